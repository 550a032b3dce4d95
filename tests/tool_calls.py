"""Random tool calls for the fuzz tests: every tool, arguments near and far from the contract.

Shared by the in-process fuzz on a model app (tests/unit/test_fuzz_tools.py) and the MCP
fuzz on a real app (tests/integration/test_mcp_fuzz.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from actui.tokens import estimate_tokens
from actui.tools.catalog import TOOL_NAMES
from actui.tools.contract import MAX_TOKENS, MIN_TOKENS

MAX_BYTES = 48 * 1024 + 1024  # the visible limit plus the continuation trailer
MAX_LINES = 2_000 + 4
FIELD = re.compile(r"^[A-Za-z_][\w]*(\[\d+\])?(\.[A-Za-z_]\w*(\[\d+\])?)*: ")

_text = st.text(max_size=40) | st.sampled_from(["", " ", "OK", "@e1", "@r1", "ü" * 300])
_any = st.none() | st.booleans() | st.integers(-5, 100_000) | _text | st.floats(allow_nan=True)
_bad_url = st.sampled_from(
    ["http://[::1", "http://[::1]:99999/", "https://", "ftp://nope", "about:config", "http:x"]
) | st.text(max_size=40).map(lambda tail: "http://[" + tail)
"""URLs refused before any browser starts (a valid one would launch Chromium per call)."""
_ref = st.sampled_from(["@e1", "@e2", "@e5", "@e999", "@r1", "e1", "", "@o1"]) | _text
_small_timeout = st.integers(-10, 300)


def _condition() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "ref": _ref,
            "scopeRef": _ref,
            "scopeExact": st.booleans(),
            "text": _text,
            "role": st.sampled_from(["button", "push button", "textbox", "label"]) | _text,
            "value": _text,
            "until": st.sampled_from(["present", "absent", "maybe"]),
            "gone": st.booleans(),
            "timeoutMs": _small_timeout,
            "bogus": _any,
        },
    )


_action = st.fixed_dictionaries(
    {
        "action": st.sampled_from(
            [
                "press",
                "click",
                "toggle",
                "setText",
                "typeText",
                "keypress",
                "focus",
                "scroll",
                "wait",
                "drag",
                "moveMouse",
                "explode",
            ]
        )
    },
    optional={
        "ref": _ref,
        "x": st.integers(-10, 3000) | st.floats(allow_nan=True),
        "y": st.integers(-10, 3000),
        "text": _text,
        "keys": st.lists(_text, max_size=3),
        "clickCount": st.integers(-1, 5),
        "scrollY": st.integers(-20, 20),
        "ms": st.integers(-5, 200),
        "until": _condition(),
        "path": st.lists(st.fixed_dictionaries({"x": st.integers(0, 50), "y": st.integers(0, 50)})),
    },
)


def tool_calls(state: str) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    state_ids = st.sampled_from([state, "not-a-state", ""]) | _text
    per_tool: dict[str, st.SearchStrategy[dict[str, Any]]] = {
        "find_roots": st.fixed_dictionaries(
            {}, optional={"text": _text, "app": _text, "pid": _any, "kind": _text}
        ),
        "observe_ui": st.fixed_dictionaries(
            {}, optional={"root": _ref, "mode": st.sampled_from(["semantic", "x"])}
        ),
        "search_ui": st.fixed_dictionaries(
            {"stateId": state_ids}, optional={"text": _text, "role": _text, "capability": _text}
        ),
        "expand_ui": st.fixed_dictionaries(
            {"stateId": state_ids, "ref": _ref}, optional={"depth": _any}
        ),
        "inspect_ui": st.fixed_dictionaries({"stateId": state_ids, "ref": _ref}),
        "act_ui": st.fixed_dictionaries(
            {"stateId": state_ids, "actions": st.lists(_action, max_size=3)},
            optional={"expect": _condition(), "require": _condition()},
        ),
        "read_text": st.fixed_dictionaries(
            {"ref": _ref}, optional={"stateId": state_ids, "offset": _any}
        ),
        "wait_for": _condition().map(lambda c: c) | st.just({}),
        "launch_browser": st.fixed_dictionaries({"url": _bad_url}),
        "navigate_browser": st.fixed_dictionaries({"stateId": state_ids, "url": _bad_url}),
        "evaluate_browser": st.fixed_dictionaries({"stateId": state_ids, "expression": _text}),
    }
    wait_for = per_tool["wait_for"]
    per_tool["wait_for"] = wait_for.flatmap(lambda c: state_ids.map(lambda s: {**c, "stateId": s}))
    return st.sampled_from(TOOL_NAMES).flatmap(
        lambda name: per_tool[name].flatmap(_budgeted).map(lambda args: (name, args))
    )


def _budgeted(args: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """The call as drawn, or with a ``maxTokens`` (mostly in range, sometimes not)."""
    budgets = st.integers(MIN_TOKENS, 3000) | st.sampled_from([0, MIN_TOKENS - 1, "300", None])
    return st.just(args) | budgets.map(lambda n: {**args, "maxTokens": n})


def check_answer(
    tool: str, arguments: Mapping[str, Any], text: str, is_error: bool, details: Mapping[str, Any]
) -> None:
    """Bounded text (within a valid ``maxTokens`` too); an error says which tool failed,
    names its field, and is never internal."""
    assert len(text.encode()) <= MAX_BYTES, (tool, arguments)
    budget = arguments.get("maxTokens")
    if isinstance(budget, int) and MIN_TOKENS <= budget <= MAX_TOKENS:
        assert estimate_tokens(text) <= budget, (tool, arguments, text)
    assert text.count("\n") + 1 <= MAX_LINES, (tool, arguments)
    if is_error:
        assert text.startswith(f"{tool} failed: "), text
        error = details.get("error", {})
        assert error.get("code") != "internal_error", (tool, arguments, text)
        if error.get("code") == "invalid_params":
            assert FIELD.match(text.removeprefix(f"{tool} failed: ")), text
