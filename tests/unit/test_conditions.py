"""Conditions: validated once by the contract, naming each bad field; one matcher for all."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actui.backends.base import RawNode
from actui.errors import InvalidParams
from actui.outline.conditions import (
    DEFAULT_TIMEOUT_MS,
    UiCondition,
    check_scope,
    closest,
    condition_json,
    condition_of,
    describe,
    evaluate,
    refuse_secrets,
)
from actui.outline.model import Node, Outline, build_outline
from actui.tools.catalog import validate_call as validate
from actui.tools.transaction import ActUi
from actui.tools.waits import WaitFor


def raw(role: str, name: str = "", *children: RawNode, **fields: Any) -> RawNode:
    return RawNode(
        native_id=f"wire:{role}:{name}", raw_role=role, name=name, children=children, **fields
    )


# @e1 frame; @e2 General, @e3 Advanced; @e4 Save, @e5 Name, @e6 Password;
# @e7 Saved!, @e8 Enable logs
SETTINGS = build_outline(
    raw(
        "frame",
        "Settings",
        raw(
            "panel",
            "General",
            raw("push button", "Save"),
            raw("text", "Name", value="  Alice  ", value_length=9),
            raw("password text", "Password", value=None, secure=True),
        ),
        raw(
            "panel",
            "Advanced",
            raw("label", "Saved!"),
            raw("check box", "Enable   logs", description="Write a log file"),
        ),
    ),
    None,
)


def parse_condition(raw_condition: object, *, field: str) -> UiCondition:
    """``raw_condition`` as an agent sends it at ``field``, through the contract."""
    if field == "":
        assert isinstance(raw_condition, dict)
        params = validate("wait_for", {"stateId": "s1", **raw_condition})
        assert isinstance(params, WaitFor)
        return condition_of(params)
    pause = {"action": "wait", "ms": 0}
    steps = [pause, {"action": "wait", "until": raw_condition}]
    act = validate(
        "act_ui",
        {"stateId": "s1", "actions": [pause], "expect": raw_condition}
        if field == "expect"
        else {"stateId": "s1", "actions": steps},
    )
    assert isinstance(act, ActUi)
    found = act.expect if field == "expect" else act.actions[1].until
    assert found is not None and field in ("expect", "actions[1].until")
    return condition_of(found)


def cond(**raw_condition: object) -> UiCondition:
    return parse_condition(raw_condition, field="expect")


def matches(outline: Outline = SETTINGS, **raw_condition: object) -> tuple[str, ...]:
    return evaluate(cond(**raw_condition), outline).matches


# --- validation -----------------------------------------------------------------------------


def test_a_text_condition_gets_the_defaults() -> None:
    assert cond(text=" Saved ") == UiCondition(text="Saved", until="present", timeout_ms=10_000)
    assert DEFAULT_TIMEOUT_MS == 10_000


def test_gone_true_is_the_same_as_until_absent() -> None:
    assert cond(text="Saved", gone=True) == cond(text="Saved", until="absent")
    assert cond(text="Saved", gone=True, until="absent").until == "absent"
    assert cond(text="Saved", gone=False).until == "present"


def test_scope_exact_means_the_element_itself() -> None:
    exact = cond(scopeRef="@e5", scopeExact=True, value="alice")
    assert exact.exact and exact.anchor == "@e5"
    assert evaluate(exact, SETTINGS) == evaluate(cond(ref="@e5", value="alice"), SETTINGS)


@pytest.mark.parametrize(
    ("raw_condition", "field", "words"),
    [
        ({"text": "a", "gone": True, "until": "present"}, "expect.gone", ["until"]),
        ({"text": "a", "gone": False, "until": "absent"}, "expect.gone", ["until"]),
        ({"text": "a", "ref": "@e1", "scopeRef": "@e2"}, "expect.scopeRef", ["ref"]),
        ({}, "expect.text", ["role", "value"]),
        ({"text": "   ", "role": ""}, "expect.text", ["role", "value"]),
        ({"ref": "@e4"}, "expect.text", ["role", "value", "gone: true"]),
        ({"scopeRef": "@e2", "gone": True}, "expect.text", ["role", "value"]),
        ({"role": "button"}, "expect.role", ["ref", "scopeRef"]),
        ({"value": "x"}, "expect.value", ["ref"]),
        ({"value": "x", "scopeRef": "@e5"}, "expect.value", ["ref", "scopeExact"]),
        ({"text": "a", "scopeExact": True}, "expect.scopeExact", ["scopeRef"]),
        ({"text": "a", "timeout": 5}, "expect.timeout", ["timeoutMs"]),
        ({"text": "a", "scope_ref": "@e2"}, "expect.scope_ref", ["scopeRef"]),
        ({"text": "a", "colour": "red"}, "expect.colour", ["Allowed"]),
        ({"text": 5}, "expect.text", ["string"]),
        ({"text": "a", "role": ["button"]}, "expect.role", ["string"]),
        ({"text": "a", "ref": 4}, "expect.ref", ["string"]),
        ({"text": "a", "scopeRef": "@e1", "scopeExact": "maybe"}, "expect.scopeExact", ["bool"]),
        ({"text": "a", "gone": "never"}, "expect.gone", ["bool"]),
        ({"text": "a", "until": "visible"}, "expect.until", ["present", "absent"]),
        ({"text": "a", "until": True}, "expect.until", ["present"]),
        ({"text": "a", "timeoutMs": "soon"}, "expect.timeoutMs", ["integer"]),
        ({"text": "a", "timeoutMs": 1500.7}, "expect.timeoutMs", ["integer"]),
        ({"text": "a", "timeoutMs": -3}, "expect.timeoutMs", ["0"]),
        ({"text": "a", "timeoutMs": float("nan")}, "expect.timeoutMs", ["finite"]),
        ({"text": "x" * 513}, "expect.text", ["512"]),
        ({"text": "a", "ref": "@" * 129}, "expect.ref", ["128"]),
        ({"text": "a", "scopeRef": "@" * 129}, "expect.scopeRef", ["128"]),
        ({"text": "a", "scopeRef": "@e1", "role": "r" * 129}, "expect.role", ["128"]),
        ({"ref": "@e5", "value": "v" * 4097}, "expect.value", ["4096"]),
    ],
)
def test_every_invalid_condition_is_rejected_naming_its_field(
    raw_condition: dict[str, object], field: str, words: list[str]
) -> None:
    with pytest.raises(InvalidParams) as caught:
        parse_condition(raw_condition, field="expect")
    assert caught.value.field == field
    assert caught.value.message.startswith(f"{field}: ")
    for word in words:
        assert word in caught.value.message


@pytest.mark.parametrize("not_an_object", ["Saved", 3, ["text"]])
def test_a_condition_must_be_an_object(not_an_object: object) -> None:
    with pytest.raises(InvalidParams) as caught:
        parse_condition(not_an_object, field="actions[1].until")
    assert caught.value.field == "actions[1].until"


def test_wait_for_top_level_fields_are_named_bare() -> None:
    with pytest.raises(InvalidParams) as caught:
        parse_condition({"role": "button"}, field="")
    assert caught.value.field == "role"


@pytest.mark.parametrize(
    ("given", "clamped"), [(5, 100), (99_999, 60_000), (1500.0, 1500), (0, 100)]
)
def test_timeout_is_clamped(given: float, clamped: int) -> None:
    assert cond(text="a", timeoutMs=given).timeout_ms == clamped


def test_nulls_are_treated_as_missing() -> None:
    assert cond(text="a", ref=None, scopeRef=None, role=None, value=None, gone=None) == cond(
        text="a"
    )


def test_an_empty_value_means_the_element_is_empty() -> None:
    empty = cond(ref="@e5", value="   ")
    assert empty.value == ""
    assert not evaluate(empty, SETTINGS).satisfied


def test_scope_must_exist_in_the_state() -> None:
    check_scope(cond(text="Save", scopeRef="@e2"), SETTINGS, field="expect")
    check_scope(cond(text="Save"), SETTINGS, field="expect")
    with pytest.raises(InvalidParams) as caught:
        check_scope(cond(text="Save", scopeRef="@e99"), SETTINGS, field="expect")
    assert caught.value.field == "expect.scopeRef"
    assert "observe_ui" in caught.value.message
    with pytest.raises(InvalidParams) as caught:
        check_scope(cond(text="Save", ref="@e99"), SETTINGS, field="expect")
    assert caught.value.field == "expect.ref"


def test_a_wire_ref_is_accepted_as_the_anchor() -> None:
    wire = "wire:push button:Save"
    check_scope(cond(text="Save", ref=wire), SETTINGS, field="expect")
    assert matches(text="save", ref=wire) == ("@e4",)


def test_a_value_condition_on_a_password_field_is_refused() -> None:
    with pytest.raises(InvalidParams) as caught:
        check_scope(cond(ref="@e6", value="hunter2"), SETTINGS, field="expect")
    assert caught.value.field == "expect.value"
    assert "password" in caught.value.message


# --- evaluation -----------------------------------------------------------------------------


def test_present_and_absent_are_decided_by_the_same_match() -> None:
    present = evaluate(cond(text="saved"), SETTINGS)
    assert present == evaluate(cond(text="SAVED"), SETTINGS)
    assert (present.satisfied, present.present, present.matches) == (True, True, ("@e7",))
    gone = evaluate(cond(text="saved", gone=True), SETTINGS)
    assert (gone.satisfied, gone.present) == (False, True)
    missing = evaluate(cond(text="Deleted", gone=True), SETTINGS)
    assert (missing.satisfied, missing.present, missing.matches) == (True, False, ())


def test_scope_ref_covers_the_subtree_and_exact_only_the_element() -> None:
    assert matches(text="save") == ("@e4", "@e7")
    assert matches(text="save", scopeRef="@e2") == ("@e4",)
    assert matches(text="save", scopeRef="@e3") == ("@e7",)
    assert matches(text="general", scopeRef="@e2") == ("@e2",)
    assert matches(text="save", scopeRef="@e2", scopeExact=True) == ()
    assert matches(text="save", ref="@e4") == ("@e4",)


def test_roles_match_through_the_neutral_vocabulary() -> None:
    assert matches(role="button", scopeRef="@e1") == ("@e4",)
    assert matches(role="push button", scopeRef="@e1") == ("@e4",)
    assert matches(role="Push_Button", ref="@e4") == ("@e4",)
    assert matches(role="checkbox", scopeRef="@e3") == ("@e8",)
    assert matches(role="check box", text="logs", scopeRef="@e1") == ("@e8",)
    assert matches(role="button", text="saved") == ()


def test_role_words_are_not_matched_as_text() -> None:
    assert matches(text="button") == ()
    assert matches(text="push") == ()
    assert matches(text="check box") == ()


def test_text_matches_name_description_or_value_ignoring_spacing() -> None:
    assert matches(text="log file") == ("@e8",)
    assert matches(text="enable logs") == ("@e8",)
    assert matches(text="alice") == ("@e5",)
    assert matches(text="password") == ("@e6",)


def test_value_compares_whole_after_trim_ignoring_case() -> None:
    assert matches(ref="@e5", value="alice") == ("@e5",)
    assert matches(ref="@e5", value=" ALICE ") == ("@e5",)
    assert matches(ref="@e5", value="Alic") == ()
    assert matches(ref="@e5", value="alice", role="textbox") == ("@e5",)
    assert matches(ref="@e5", value="alice", role="button") == ()


def test_a_vanished_anchor_is_absent() -> None:
    assert not evaluate(cond(text="x", ref="@e99"), SETTINGS).satisfied
    assert evaluate(cond(text="x", ref="@e99", gone=True), SETTINGS).satisfied


@pytest.mark.parametrize("spelling", [{"gone": True}, {"until": "absent"}])
def test_a_ref_alone_that_must_be_gone_holds_exactly_when_the_element_no_longer_exists(
    spelling: dict[str, object],
) -> None:
    there = cond(ref="@e4", **spelling)
    assert not evaluate(there, SETTINGS).satisfied
    assert closest(there, SETTINGS) == ['@e4 button "Save"']
    assert describe(there) == "element @e4 to be gone"
    assert condition_json(there)["gone"] is True
    assert evaluate(cond(ref="@e99", **spelling), SETTINGS).satisfied


SECRET = Outline(
    root="@e1",
    nodes={
        "@e1": Node(ref="@e1", wire="w1", role="window", raw_role="frame", children=("@e2",)),
        "@e2": Node(
            ref="@e2",
            wire="w2",
            role="password",
            raw_role="password text",
            name="PIN",
            value="hunter2",
            secure=True,
            parent="@e1",
            depth=1,
        ),
    },
)


def test_a_password_value_is_never_matched_or_shown_even_if_a_node_carries_it() -> None:
    assert matches(SECRET, text="hunter2") == ()
    assert matches(SECRET, ref="@e2", value="hunter2") == ()
    assert matches(SECRET, text="pin") == ("@e2",)
    shown = closest(cond(text="hunter"), SECRET) + closest(cond(ref="@e2", text="hunter"), SECRET)
    assert shown and all("hunter" not in line for line in shown)
    assert any("password field" in line for line in shown)


def test_a_text_or_value_condition_on_the_exact_password_field_is_refused() -> None:
    for field, extra in (("text", {"text": "PIN"}), ("value", {"value": "x"})):
        with pytest.raises(InvalidParams) as caught:
            check_scope(cond(ref="@e2", **extra), SECRET, field="expect")
        assert caught.value.field == f"expect.{field}"
    check_scope(cond(scopeRef="@e1", text="PIN"), SECRET, field="expect")  # a subtree is fine


def test_a_condition_repeating_a_secret_sent_in_the_same_call_is_refused() -> None:
    for text in ("hunter2", "  HUNTER2 ", "hunt", "says hunter2 here"):
        with pytest.raises(InvalidParams) as caught:
            refuse_secrets(cond(text=text), ["hunter2"], field="expect")
        assert caught.value.field == "expect.text" and "hunter" not in caught.value.message
    refuse_secrets(cond(text="Welcome"), ["hunter2", " "], field="expect")
    refuse_secrets(cond(role="button", scopeRef="@e1"), ["hunter2"], field="expect")


# --- failure descriptions -------------------------------------------------------------------


def test_closest_shows_the_nearest_elements_first() -> None:
    nearest = closest(cond(text="Savee"), SETTINGS)
    assert nearest[0] == '@e4 button "Save"'
    assert len(nearest) == 3
    assert closest(cond(text="Savee"), SETTINGS, limit=1) == nearest[:1]


def test_closest_stays_inside_the_scope_and_shows_values() -> None:
    assert closest(cond(ref="@e5", value="bob"), SETTINGS) == [
        '@e5 textbox "Name" value "  Alice  "'
    ]
    assert all(
        line.split()[0] in {"@e3", "@e7", "@e8"}
        for line in closest(cond(text="zzz", scopeRef="@e3"), SETTINGS)
    )


def test_closest_of_an_absent_condition_shows_what_is_still_there() -> None:
    assert closest(cond(text="saved", gone=True), SETTINGS) == ['@e7 label "Saved!"']


def test_closest_says_when_the_anchor_vanished() -> None:
    assert closest(cond(text="x", scopeRef="@e42"), SETTINGS) == ["@e42 is no longer in the UI"]


def test_describe_reads_as_one_line() -> None:
    assert describe(cond(text="Save", role="button", scopeRef="@e2")) == (
        'button with text "Save" inside @e2 to be present'
    )
    assert (
        describe(cond(ref="@e5", value="alice")) == 'element @e5 with value "alice" to be present'
    )
    assert describe(cond(text="Loading", gone=True)) == 'element with text "Loading" to be gone'
    assert "\n" not in describe(cond(text="a\nb" * 100))


def test_condition_json_uses_wire_names_and_omits_what_was_not_given() -> None:
    assert condition_json(cond(text="Saved", gone=True, timeoutMs=2500)) == {
        "text": "Saved",
        "until": "absent",
        "gone": True,
        "timeoutMs": 2500,
    }
    assert condition_json(cond(role="button", scopeRef="@e2")) == {
        "scopeRef": "@e2",
        "scopeExact": False,
        "role": "button",
        "until": "present",
        "gone": False,
        "timeoutMs": 10_000,
    }


# --- properties -----------------------------------------------------------------------------

ROLES = ["push button", "button", "label", "text", "panel", "check box", "menu item"]
WORDS = st.text(alphabet="abAB ", max_size=6)


@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> RawNode:
    kids = draw(st.lists(trees(depth + 1), max_size=3)) if depth < 2 else []
    return RawNode(
        native_id=f"n{draw(st.integers(0, 10**9))}",
        raw_role=draw(st.sampled_from(ROLES)),
        name=draw(WORDS),
        description=draw(WORDS),
        value=draw(WORDS),
        children=tuple(kids),
    )


@settings(max_examples=40)
@given(trees(), st.text(alphabet="abAB", min_size=1, max_size=3), st.sampled_from([*ROLES, None]))
def test_matches_narrow_from_everywhere_to_subtree_to_element(
    tree: RawNode, text: str, role: str | None
) -> None:
    outline = build_outline(tree, None)
    for node in outline:
        everywhere = set(matches(outline, text=text, role=role))
        subtree = set(matches(outline, text=text, role=role, scopeRef=node.ref))
        exact = set(matches(outline, text=text, role=role, ref=node.ref))
        assert exact <= subtree <= everywhere
        assert exact == ({node.ref} & everywhere)


@settings(max_examples=40)
@given(trees(), st.text(alphabet="abAB", min_size=1, max_size=3))
def test_absent_is_exactly_not_present_and_case_never_matters(tree: RawNode, text: str) -> None:
    outline = build_outline(tree, None)
    present = evaluate(cond(text=text), outline)
    absent = evaluate(cond(text=text, gone=True), outline)
    assert absent.matches == present.matches
    assert absent.satisfied == (not present.satisfied)
    assert evaluate(cond(text=text.swapcase()), outline).matches == present.matches


@settings(max_examples=40)
@given(trees(), st.data())
def test_any_part_of_a_name_finds_its_element(tree: RawNode, data: st.DataObject) -> None:
    outline = build_outline(tree, None)
    named = [node for node in outline if node.name.strip()]
    if not named:
        return
    node = data.draw(st.sampled_from(named))
    start = data.draw(st.integers(0, len(node.name) - 1))
    piece = node.name[start : data.draw(st.integers(start + 1, len(node.name)))]
    if piece.strip():
        assert node.ref in matches(outline, text=piece.strip())


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = st.sampled_from(
    ["ref", "scopeRef", "scopeExact", "text", "role", "value", "until", "gone", "timeoutMs", "x"]
)


@given(
    st.dictionaries(KEYS, JSON | st.sampled_from(["@e1", "present", "absent", True]), max_size=6)
)
def test_parsing_either_succeeds_or_names_a_field_of_the_condition(
    raw_condition: dict[str, object],
) -> None:
    try:
        parsed = parse_condition(raw_condition, field="expect")
    except InvalidParams as error:
        assert error.field.startswith("expect.")
        assert error.field.split(".", 1)[1] in {*raw_condition, "text", "role", "value"}
    else:
        assert 100 <= parsed.timeout_ms <= 60_000
        one_gone = parsed.ref is not None and parsed.until == "absent"
        assert parsed.text or parsed.role or parsed.value is not None or one_gone
        assert not (parsed.ref and parsed.scope_ref)
