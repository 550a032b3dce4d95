"""Steps are counted in the raw bytes: exactly, whatever the strings around them hold."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from actui.server.request_bounds import too_many_steps
from actui.tools.contract import MAX_ACTIONS

_text = st.text(st.characters(codec="utf-8"), max_size=40) | st.just('"action": "press"')


@given(st.integers(0, 2 * MAX_ACTIONS), _text, st.booleans())
def test_a_request_is_refused_unparsed_exactly_when_it_holds_too_many_steps(
    count: int, text: str, ascii_only: bool
) -> None:
    steps = [{"action": "typeText", "text": text, "ref": "@e1"}] * count
    arguments = {"stateId": text, "actions": steps, "expect": {"text": text}}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": arguments}
    raw = json.dumps(request, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    refused = too_many_steps(raw)
    assert (refused is not None) == (count > MAX_ACTIONS), raw[:200]
