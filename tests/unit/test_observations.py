"""The typed results of expand_ui, inspect_ui, read_text and of a failed call:
their wire form has the keys agents have always read, in order, from the fields."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import ProcessExit, Rect, RootInfo
from actui.outline.conditions import UiCondition
from actui.outline.model import Node
from actui.results.observations import (
    AttachedImage,
    ElementText,
    Evaluation,
    Expanded,
    Inspected,
    Observed,
    OutputPage,
    PageShown,
    ToolError,
    WaitReport,
    WindowClosed,
)
from actui.results.typed import (
    Capture,
    Execution,
    NoSuccessor,
    RootView,
    Shown,
    StateSummary,
    StepError,
    exit_json,
)
from actui.results.views import node_json
from actui.runtime.deltas import RootDelta
from actui.runtime.imaging import OcrReport
from actui.runtime.reaching import Unopened

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


ROOT = RootInfo("app/1", 7, "model", "Model", "window", "frame", frame=Rect(0, 0, 300, 200))
HEAD = ["stateId", "baseStateId", "view", "target", "nodeCount", "status", "capture"]
"""The keys every result with a saved state begins with (``windows`` only when it has some)."""


def _seen(shown: Shown) -> StateSummary:
    capture = Capture("s2", 300, 200, 1.0, 0.0)
    return StateSummary("s2", "s1", RootView("@r1", ROOT), 3, shown, capture=capture)


def test_each_observing_result_writes_its_keys_in_the_order_agents_have_read() -> None:
    delta = (RootDelta("appeared", "dialog", "@r2", "Save", 7, True),)
    image = AttachedImage("sparse_ax_targets", 10, 20, "x11")
    observed = Observed(_seen(Shown("full")), {"tree": 1.0}, "atspi", delta, "slow", "none",
                        ("log",), image, OcrReport(lines=2, picture_only=1))  # fmt: skip
    assert list(observed.to_wire()) == ["ocr", *HEAD, "timingsMs", "source", "windowChanges",
        "partial", "accessibility", "console", "imageReason", "image"]  # fmt: skip
    cond = UiCondition(text="Saved")
    waited = WaitReport(_seen(Shown("diff", ({"op": "added"},))), cond, True, 5, 2, "events",
                    ("@e3",), delta, (Unopened(1, ()),))  # fmt: skip
    assert list(waited.to_wire()) == [*HEAD, "found", "gone", "timedOut", "elapsedMs", "checks",
        "waitedBy", "condition", "matches", "windowChanges", "changes", "unread"]  # fmt: skip
    assert waited.to_wire()["view"] == "diff" and not waited.timed_out
    page = PageShown(_seen(Shown("full", reason="navigated")), ("log",), Evaluation(None, None, 9))
    assert list(page.to_wire()) == [*HEAD, "console", "viewReason", "valueBytes", "value",
        "exception"]  # fmt: skip
    closed = WindowClosed(UiCondition(text="Saved", until="absent"), 5, "gone")
    assert list(closed.to_wire())[:4] == ["found", "gone", "timedOut", "windowClosed"]


def test_an_act_writes_its_successor_around_the_execution_or_says_why_there_is_none() -> None:
    ran = Execution("worked", (), None, None, (), "events")
    delta = (RootDelta("focused", "window", "@r1", "Model", 7, False),)
    failed = StepError("postcondition_failed", "expected x")
    acted = replace(ran, after=_seen(Shown("full", reason="big")), window_changes=delta,
                    error=failed)  # fmt: skip
    assert list(acted.to_wire()) == [*HEAD, "windowChanges", "execution", "outcome", "error",
        "viewReason"]  # fmt: skip
    assert acted.observation is not None and acted.observation.base_state_id == "s1"
    ended = ProcessExit(7, None, "SIGKILL", "")
    gone = NoSuccessor("app_exited", "s1", RootView("@r1", ROOT), "gone", ended)
    closed = replace(ran, after=gone, error=StepError("app_exited", "gone"))
    assert list(closed.to_wire()) == ["status", "baseStateId", "target", "execution", "outcome",
        "error", "exit"]  # fmt: skip
    assert closed.observation is None and closed.ended is gone
