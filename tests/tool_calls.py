"""Random tool calls for the fuzz tests: every tool, arguments near and far from the contract.

The calls are derived from the tool declarations (``actui.tools.catalog``) and the step
table (``contract.STEPS``), so a new tool or step kind is fuzzed without an edit here.

Shared by the in-process fuzz on a model app (tests/unit/test_fuzz_tools.py) and the MCP
fuzz on a real app (tests/integration/test_mcp_fuzz.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from actui.tokens import estimate_tokens
from actui.tools.catalog import TOOL_NAMES, TOOLS
from actui.tools.contract import MAX_TOKENS, MIN_TOKENS, STEPS, input_schema

Strategy = st.SearchStrategy[Any]
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


_small_int = st.integers(-10, 300) | st.floats(max_value=300) | st.none() | st.booleans() | _text
"""Integers near every bound the contract sets, and what is not one: a timeout or pause
that is accepted stays under 0.3 s."""
_role = st.sampled_from(["button", "push button", "textbox", "label"]) | _text
_number = st.integers(-10, 3000) | st.floats(allow_nan=True)
_point = st.fixed_dictionaries({"x": st.integers(0, 50), "y": st.integers(0, 50)})


def _value(name: str, prop: Mapping[str, Any], state_ids: Strategy) -> Strategy:
    """Values for one parameter, near and far from what its schema accepts."""
    if name == "stateId":
        return state_ids
    if name == "url":  # only refused URLs: a valid one would launch Chromium per call
        return _bad_url
    if name == "role":
        return _role
    if "enum" in prop:
        return st.sampled_from([*prop["enum"], "maybe"])
    kind = prop.get("type")
    if kind == "string":
        return _ref if "pattern" in prop or name.lower().endswith(("ref", "root")) else _text
    if kind == "integer":
        return _small_int
    if kind == "number":
        return _number
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        items = prop["items"]
        if "action" in items.get("properties", {}):
            return st.lists(_step(items, state_ids), max_size=3)
        if items.get("type") == "object":
            return st.lists(_point, max_size=4)
        return st.lists(_value("", items, state_ids), max_size=3)
    if kind == "object" and "properties" in prop:
        return _arguments(prop, state_ids)
    return _any


def _arguments(schema: Mapping[str, Any], state_ids: Strategy) -> Strategy:
    """An object of ``schema``: its required keys always, the others and a stray one maybe."""
    props = {k: v for k, v in schema["properties"].items() if k != "maxTokens"}
    required = {*schema.get("required", ()), *({"url"} & set(props))}
    values = {name: _value(name, prop, state_ids) for name, prop in props.items()}
    return st.fixed_dictionaries(
        {name: values[name] for name in props if name in required},
        optional={
            **{name: values[name] for name in props if name not in required},
            "bogus": _any,
        },
    )


def _step(schema: Mapping[str, Any], state_ids: Strategy) -> Strategy:
    """One ``act_ui`` step: every declared step kind (and one that is not), any fields."""
    fields = {k: v for k, v in schema["properties"].items() if k != "action"}
    kinds = st.sampled_from([*STEPS, "explode"])
    return _arguments({"properties": fields}, state_ids).flatmap(
        lambda step: kinds.map(lambda kind: {"action": kind, **step})
    )


def tool_calls(state: str) -> Strategy:
    """Calls of every declared tool, with arguments drawn from its own parameter schema."""
    state_ids = st.sampled_from([state, "not-a-state", ""]) | _text
    per_tool = {tool.name: _arguments(input_schema(tool.params), state_ids) for tool in TOOLS}
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
