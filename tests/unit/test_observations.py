"""The typed results of expand_ui, inspect_ui, read_text and of a failed call:
their wire form has the keys agents have always read, in order, from the fields."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import ProcessExit
from actui.observations import ElementText, Expanded, Inspected, OutputPage, ToolError
from actui.outline.model import Node
from actui.results import exit_json
from actui.views import node_json

NODE = Node(ref="@e3", wire="w3", role="button", raw_role="push button", name="7")


@given(st.text(max_size=50), st.integers(0, 100), st.integers(0, 100))
def test_element_text_pages_say_what_is_left(text: str, offset: int, extra: int) -> None:
    total = offset + len(text) + extra
    read = ElementText("@e3", offset, text, total)
    wire = read.to_wire()
    assert list(wire) == ["ref", "offset", "limit", "totalChars", "hasMore", "text"]
    assert wire["limit"] == len(text) and wire["text"] == text
    assert wire["hasMore"] is (extra > 0)


@given(st.integers(0, 10_000), st.integers(0, 10_000), st.booleans(), st.booleans())
def test_output_page_wire(offset: int, limit: int, more: bool, complete: bool) -> None:
    wire = OutputPage("@o1", offset, limit, offset + limit, more, complete).to_wire()
    assert wire == {
        "ref": "@o1",
        "offset": offset,
        "limit": limit,
        "totalBytes": offset + limit,
        "hasMore": more,
        "complete": complete,
    }


def test_expanded_names_its_base_only_when_read_into_a_successor() -> None:
    same = Expanded("s2", NODE, 4).to_wire()
    assert list(same) == ["stateId", "target", "shown"]
    assert same["target"] == node_json(NODE)
    moved = Expanded("s3", NODE, 4, base_state_id="s2").to_wire()
    assert list(moved) == ["stateId", "target", "shown", "baseStateId"]
    assert moved["baseStateId"] == "s2"


def test_inspected_wire() -> None:
    assert Inspected("s2", NODE).to_wire() == {"stateId": "s2", "target": node_json(NODE)}


def test_tool_error_says_how_the_app_ended_only_when_it_did() -> None:
    plain = ToolError("observe_ui", "target_gone", "observe_ui failed: gone")
    assert plain.to_wire() == {
        "tool": "observe_ui",
        "error": {"code": "target_gone", "message": "observe_ui failed: gone"},
    }
    ended = ProcessExit(pid=42, code=None, signal=9, log="")
    crashed = ToolError("act_ui", "app_exited", "act_ui failed: killed", ended).to_wire()
    assert list(crashed) == ["tool", "error", "exit"]
    assert crashed["exit"] == exit_json(ended)
