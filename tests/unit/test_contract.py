"""The contract: one source for schemas and docs, and errors that name the field."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from actui.backends.base import ActionKind
from actui.backends.cdp.input import parse_chord
from actui.backends.x11.keys import chord_keysyms
from actui.errors import InvalidParams, UnknownKey, UnsupportedAction
from actui.tools.catalog import TOOL_NAMES, TOOLS, export_schemas, validate_call
from actui.tools.contract import MODIFIER_KEYS, STEPS, ActionStep, chord_names, input_schema
from actui.tools.docs import markdown_reference

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def test_each_tool_is_declared_once_and_exported_in_catalog_order() -> None:
    assert len(TOOL_NAMES) == len(TOOLS) == len({tool.params for tool in TOOLS})
    for fmt in ("mcp", "openai", "anthropic"):
        exported = export_schemas(fmt)  # type: ignore[arg-type]
        names = [tool.get("name") or tool["function"]["name"] for tool in exported]
        assert names == list(TOOL_NAMES)


def test_schemas_have_no_tuple_arrays_refs_or_titles() -> None:
    text = json.dumps([input_schema(tool.params) for tool in TOOLS])
    for forbidden in ('"prefixItems"', '"$ref"', '"$defs"', '"title"'):
        assert forbidden not in text

    def arrays(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "array":
                assert isinstance(node.get("items"), dict), node
            for value in node.values():
                arrays(value)
        elif isinstance(node, list):
            for value in node:
                arrays(value)

    arrays(json.loads(text))


def test_the_docs_are_generated_from_the_contract() -> None:
    assert DOCS.read_text(encoding="utf-8") == markdown_reference(), (
        "docs/tools.md is stale: run `actui schema --format markdown > docs/tools.md`"
    )


def test_every_step_kind_is_documented_with_an_example_the_contract_accepts() -> None:
    for kind, declared in STEPS.items():
        step = ActionStep.model_validate(declared.example)
        assert step.action == kind
        assert f"#### `{kind}`" in markdown_reference()


def test_the_step_table_declares_every_kind_a_backend_delivers_and_wait() -> None:
    assert set(STEPS) == {*get_args(ActionKind), "wait"}


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("find_roots", {"pid": -1}, "pid"),
        ("observe_ui", {"mode": "x"}, "mode"),
        ("expand_ui", {"stateId": "s", "ref": "@e1", "depth": "deep"}, "depth"),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "scroll", "scrollY": float("inf")}]},
            "actions[0].scrollY",
        ),
        ("act_ui", {"stateId": "s", "actions": [{"action": "click", "x": 1}]}, "actions[0]"),
        ("act_ui", {"stateId": "s", "actions": [{"action": "scroll"}]}, "actions[0]"),
        ("act_ui", {"stateId": "s", "actions": [{"action": "wait"}]}, "actions[0]"),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "drag", "path": [{"x": 1}]}]},
            "actions[0].path",
        ),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "press", "ref": "@e1"}] * 21},
            "actions",
        ),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "drag", "path": [{"x": 1, "y": 2}]}]},
            "actions[0].path",
        ),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "setValue", "ref": "@e1"}]},
            "actions[0]",
        ),
        ("act_ui", {"stateId": "s", "actions": [{"action": "setText", "text": "a"}]}, "actions[0]"),
        ("act_ui", {"stateId": "s", "actions": [{"action": "moveMouse"}]}, "actions[0]"),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "keypress", "keys": []}]},
            "actions[0].keys",
        ),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "keypress", "keys": ["ctrl+"]}]},
            "actions[0].keys",
        ),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "keypress", "keys": ["a", "b"]}]},
            "actions[0].keys",
        ),
        (
            "act_ui",
            {"stateId": "s", "actions": [{"action": "keypress", "keys": ["ctrl+a+b"]}]},
            "actions[0].keys",
        ),
        ("read_text", {"ref": "@x1"}, "ref"),
        ("evaluate_browser", {"stateId": "s", "expression": ""}, "expression"),
    ],
)
def test_contract_violations_name_their_field(
    tool: str, arguments: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidParams) as info:
        validate_call(tool, arguments)
    assert info.value.field == field, info.value.message


@settings(max_examples=200, deadline=None)
@given(
    tool=st.sampled_from(TOOL_NAMES),
    arguments=st.dictionaries(
        st.sampled_from(["stateId", "ref", "text", "actions", "url", "depth", "zzz", "mode"]),
        st.none() | st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=2),
        max_size=4,
    ),
)
def test_any_arguments_validate_or_fail_with_a_named_field(
    tool: str, arguments: dict[str, Any]
) -> None:
    try:
        validate_call(tool, arguments)
    except InvalidParams as exc:
        assert exc.field and exc.message.startswith(exc.field + ":")


def test_expand_depth_is_clamped_not_rejected() -> None:
    assert validate_call("expand_ui", {"stateId": "s", "ref": "@e1", "depth": 99}).depth == 8  # type: ignore[attr-defined]
    assert validate_call("expand_ui", {"stateId": "s", "ref": "@e1", "depth": 0}).depth == 1  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "ctrl",
                "Shift",
                "alt+",
                "+",
                "++",
                "a",
                "Z",
                "é",
                "\x07",
                "enter",
                "F30",
                "hyper",
                "ctrl+s",
                "win",
                "",
                " ",
            ]
        ),
        max_size=4,
    )
)
def test_a_chord_the_contract_accepts_reaches_each_keyboard_or_is_an_unknown_key(
    keys: list[str],
) -> None:
    """The chord's shape is refused once, in the contract, naming ``keys``; what is left
    for a backend is only whether its keyboard has the key."""
    try:
        step = ActionStep(action="keypress", keys=keys)
    except ValidationError:
        with pytest.raises(InvalidParams) as refused:
            validate_call(
                "act_ui", {"stateId": "s", "actions": [{"action": "keypress", "keys": keys}]}
            )
        assert refused.value.field.startswith("actions[0]")
        return
    names = chord_names(step.keys or ())
    assert "" not in names and sum(not _modifier(n) for n in names) <= 1
    for keyboard in (chord_keysyms, parse_chord):
        with contextlib.suppress(UnknownKey, UnsupportedAction):
            keyboard(names)


def _modifier(name: str) -> bool:
    return len(name) > 1 and name.strip().lower() in MODIFIER_KEYS
