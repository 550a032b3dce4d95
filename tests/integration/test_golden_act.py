"""The transaction part of act_ui results, byte for byte, over a fixed set of calls.

A fixed sequence of act_ui calls on our own web form (headless Chromium, a
real MCP client and server) covers every verification status (verified,
preexisting, failed, skipped), a stopped transaction, a step that could not
be confirmed and both kinds of wait step. What the transaction itself writes is compared with
``golden/act_ui_form.json`` as bytes: ``execution``, ``outcome`` and ``error``
of the structured result and the text's lines that come from the transaction
(its summary, the step lines it prints, the stop and postcondition messages). The outline diff
below them is the views' and is left out, so rendering changes do not touch
this file. Only timings are blanked. To re-record after a deliberate change:
``ACTUI_GOLDEN_RECORD=1 pytest tests/integration/test_golden_act.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from test_browser_tools import FORM_URL, _no_desktop_env, _ref

from actui.server.demo import Agent, connect

GOLDEN = Path(__file__).resolve().parent / "golden" / "act_ui_form.json"
TIMINGS = frozenset({"elapsedMs", "pageChanges"})
"""Blanked: how long a step took, and how many DOM changes of each kind Chromium reported
before the step settled (a loaded machine splits or merges them)."""
TRANSACTION_LINES = (*(f"  {n}. " for n in range(1, 10)), "  stopped at ", "postcondition_failed")
"""The transaction's lines below its summary: steps worth a line, a stop, a failed check."""


def _blank_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: 0 if k in TIMINGS else _blank_timings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank_timings(v) for v in value]
    return value


def _transaction_part(result: Any) -> dict[str, Any]:
    structured = result.structured_content or {}
    lines = Agent.text(result).splitlines()
    own = lines[:1] + [line for line in lines[1:] if line.startswith(TRANSACTION_LINES)]
    return {
        "isError": bool(result.is_error),
        "text": own,
        **{
            k: _blank_timings(structured[k])
            for k in ("execution", "outcome", "error")
            if k in structured
        },
    }


async def _transcript() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    async with connect(_no_desktop_env()) as agent:
        state = (await agent.details("launch_browser", {"url": FORM_URL}))["stateId"]
        name = await _ref(agent, state, text="Name", role="textbox")
        submit = await _ref(agent, state, text="Submit", role="button")
        agree = await _ref(agent, state, text="I agree", role="checkbox")
        later = await _ref(agent, state, text="Show later", role="button")
        disabled = await _ref(agent, state, text="Disabled", role="button")
        calls: list[dict[str, Any]] = [
            {  # verified, two steps
                "actions": [
                    {"action": "setText", "ref": name, "text": "Grace"},
                    {"action": "press", "ref": submit},
                ],
                "expect": {"text": "submitted Grace"},
            },
            {  # preexisting: the heading was there before
                "actions": [{"action": "toggle", "ref": agree}],
                "expect": {"text": "Sign up"},
            },
            {  # failed, with what the page shows instead
                "actions": [{"action": "focus", "ref": name}],
                "expect": {"text": "never on this page", "timeoutMs": 300},
            },
            {  # a wait step until a late change, then a pause
                "actions": [
                    {"action": "press", "ref": later},
                    {"action": "wait", "until": {"text": "Arrived late", "timeoutMs": 5000}},
                    {"action": "wait", "ms": 10},
                ],
            },
            {  # a press with no visible effect (unknown), then a verified submit
                "actions": [
                    {"action": "press", "ref": disabled},
                    {"action": "press", "ref": submit},
                ],
                "expect": {"text": "submitted"},
            },
            {  # a wait step that times out stops the transaction; expect is skipped
                "actions": [{"action": "wait", "until": {"text": "not coming", "timeoutMs": 200}}],
                "expect": {"text": "Sign up"},
            },
        ]
        for call in calls:
            result = await agent.call("act_ui", {"stateId": state, **call})
            out.append(_transaction_part(result))
            if not result.is_error and (result.structured_content or {}).get("stateId"):
                state = result.structured_content["stateId"]  # type: ignore[index]
    return out


async def test_the_transaction_part_of_act_ui_results_is_unchanged() -> None:
    transcript = json.dumps(await _transcript(), indent=1, ensure_ascii=False) + "\n"
    if os.environ.get("ACTUI_GOLDEN_RECORD") == "1":
        GOLDEN.write_text(transcript, encoding="utf-8")
    assert transcript == GOLDEN.read_text(encoding="utf-8"), (
        "act_ui's transaction output changed; if that is meant, re-record (see the docstring)"
    )
