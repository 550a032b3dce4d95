"""act_ui's transaction logic on a scripted in-memory backend (pure runtime logic).

The backend here is a small model of an app, not a mock of AT-SPI: it keeps an
entry's text and applies setText/typeText to it, so outcomes and conditions are
checked against state that really changes.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from model_app import ROOT, ModelApp, windows_of

from actui.backends.base import (
    ActionRequest,
    ActionResult,
    RawNode,
    Rect,
    RootInfo,
    Snapshot,
)
from actui.errors import ActuiError
from actui.results.observations import Observed, ToolError
from actui.results.tool_result import ToolResult
from actui.results.typed import Execution, Found, Verification
from actui.tools.dispatch import ToolBox


async def _session(policy: str = "", headless: str = "0") -> tuple[ToolBox, ModelApp, str]:
    app = ModelApp()
    env = {"ACTUI_HEADLESS": headless, "XDG_CONFIG_HOME": "/nonexistent"}
    if policy:
        env["ACTUI_DELIVERY_POLICY"] = policy
    computer = ToolBox(env=env, desktop=app)
    roots = await computer.call("find_roots", {})
    observed = await computer.call("observe_ui", {"root": windows_of(roots)[0].ref})
    return computer, app, _state_id(observed)


async def _act(computer: ToolBox, state: str, **extra: Any) -> ToolResult:
    result = await computer.call("act_ui", {"stateId": state, **extra})
    assert not result.is_error, result.text
    return result


def _executed(result: ToolResult) -> Execution:
    assert isinstance(result.value, Execution), result.text
    return result.value


def _observed_ref(result: ToolResult) -> str:
    """The ``@r`` ref of the window an act's successor is of."""
    seen = _executed(result).observation
    assert seen is not None, result.text
    return seen.target.ref


def _error_message(result: ToolResult) -> str:
    error = _executed(result).error
    assert error is not None, result.text
    return error.message


def _state_id(result: ToolResult) -> str:
    """The id of the state an observation or an act's successor saved."""
    value = result.value
    seen = value.observation if isinstance(value, (Observed, Execution)) else None
    assert seen is not None, result.text
    return seen.state_id


def _found(result: ToolResult) -> Found:
    assert isinstance(result.value, Found), result.text
    return result.value


def _error(result: ToolResult) -> ToolError:
    assert result.is_error and isinstance(result.value, ToolError), result.text
    return result.value


def _check(result: ToolResult) -> Verification:
    verification = _executed(result).verification
    assert verification is not None, result.text
    return verification


async def test_a_require_that_does_not_hold_sends_nothing_and_keeps_the_state_current() -> None:
    computer, app, state = await _session()
    gated = await computer.call(
        "act_ui",
        {
            "stateId": state,
            "require": {"text": "absent text", "timeoutMs": 100},
            "actions": [{"action": "setText", "ref": "@e2", "text": "x"}],
        },
    )
    assert _error(gated).code == "precondition_failed"
    assert app.requests == [] and app.text == "start"
    done = await _act(computer, state, actions=[{"action": "setText", "ref": "@e2", "text": "y"}])
    assert _executed(done).outcome == "worked" and app.text == "y"


async def test_a_verified_postcondition_and_a_preexisting_one() -> None:
    computer, _, state = await _session()
    done = await _act(
        computer,
        state,
        actions=[{"action": "setText", "ref": "@e2", "text": "ok"}],
        expect={"ref": "@e2", "value": "ok"},
    )
    assert _check(done).status == "verified"
    again = await _act(
        computer,
        _state_id(done),
        actions=[{"action": "focus", "ref": "@e2"}],
        expect={"ref": "@e2", "value": "ok"},
    )
    assert _check(again).status == "preexisting"


@pytest.mark.parametrize(
    ("policy", "first", "escalated"),
    [
        ("", "background", True),
        ("background", "background", True),
        ("default", "default", True),
        ("foreground", "foreground", False),
        ("ax_only", "ax_only", False),
    ],
)
async def test_the_delivery_policy_setting_decides_the_first_attempt(
    policy: str, first: str, escalated: bool
) -> None:
    computer, app, state = await _session(policy)
    details = await computer.call(
        "act_ui",
        {"stateId": state, "actions": [{"action": "keypress", "ref": "@e2", "keys": ["a"]}]},
    )
    assert app.requests[0].policy == first
    step = _executed(details).steps[0]
    assert step.escalated is escalated
    if escalated:
        assert step.escalation_reason == "foreground_required"
        assert [r.policy for r in app.requests] == [first, "foreground"]


async def test_headless_never_escalates_whatever_the_policy() -> None:
    computer, app, state = await _session("foreground", headless="1")
    result = await computer.call(
        "act_ui",
        {"stateId": state, "actions": [{"action": "keypress", "ref": "@e2", "keys": ["a"]}]},
    )
    assert [r.policy for r in app.requests] == ["ax_only"]
    assert _executed(result).outcome == "didnt"
    assert _executed(result).stopped_at == 0


DIALOG = RootInfo(
    native_id="app/2",
    pid=7,
    app_name="model",
    title="Create New Folder",
    kind="dialog",
    raw_role="dialog",
    frame=Rect(50, 50, 200, 100),
    window_id=6,
    resource_key="desktop-pid:7",
)


class DialogApp(ModelApp):
    """A window whose "New" button opens a dialog and whose "Tip" label "Hide" removes;
    the dialog's "Cancel" closes it."""

    def __init__(self) -> None:
        super().__init__()
        self.dialog = False
        self.tip = True

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        return [ROOT, DIALOG] if self.dialog else [ROOT]

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        press = frozenset({"press"})
        if root.native_id == DIALOG.native_id:
            if not self.dialog:
                # as GTK 4 does: the elements vanish while the window is being destroyed
                raise ActuiError("Object does not exist")
            kids: tuple[RawNode, ...] = (
                RawNode("title", "label", name="Folder name", rect=Rect(60, 60, 80, 20)),
                RawNode("name", "text", caps=frozenset({"setText"}), rect=Rect(150, 60, 90, 20)),
                RawNode(
                    "cancel", "push button", name="Cancel", caps=press, rect=Rect(60, 100, 60, 20)
                ),
            )
            tree = RawNode("dlg", "dialog", name=DIALOG.title, children=kids, rect=DIALOG.frame)
            return Snapshot(root=DIALOG, tree=tree, captured_at=time.time(), node_count=4)
        kids = (
            RawNode("new", "push button", name="New", caps=press, rect=Rect(10, 10, 50, 20)),
            RawNode("hide", "push button", name="Hide", caps=press, rect=Rect(70, 10, 50, 20)),
        )
        if self.tip:
            kids += (RawNode("tip", "label", name="Tip", rect=Rect(10, 40, 50, 20)),)
        tree = RawNode("win", "frame", name="Model", children=kids, rect=ROOT.frame)
        return Snapshot(root=ROOT, tree=tree, captured_at=time.time(), node_count=len(kids) + 1)

    async def act(self, request: ActionRequest) -> ActionResult:
        self.requests.append(request)
        if request.target == "new":
            self.dialog = True
        elif request.target == "cancel":
            self.dialog = False
        elif request.target == "hide":
            self.tip = False
        return ActionResult("worked", "ax", request.policy)


async def _dialog_session() -> tuple[ToolBox, DialogApp, str]:
    app = DialogApp()
    computer = ToolBox(env={"ACTUI_HEADLESS": "1", "XDG_CONFIG_HOME": "/nonexistent"}, desktop=app)
    roots = await computer.call("find_roots", {})
    observed = await computer.call("observe_ui", {"root": windows_of(roots)[0].ref})
    return computer, app, _state_id(observed)


async def test_an_expect_met_in_the_dialog_the_step_opened_is_verified_there() -> None:
    computer, _, state = await _dialog_session()
    result = await computer.call(
        "act_ui",
        {
            "stateId": state,
            "actions": [{"action": "press", "ref": "@e2"}],
            "expect": {"text": "Create New Folder", "timeoutMs": 2000},
        },
    )
    verification = _check(result)
    assert verification.status == "verified", result.text
    dialog = verification.where
    assert dialog is not None and dialog.held
    assert dialog.title == "Create New Folder" and dialog.kind == "dialog"
    assert dialog.ref != _observed_ref(result)
    assert f'check verified in {dialog.ref} dialog "Create New Folder"' in result.text
    assert _executed(result).outcome == "worked"


async def test_a_wait_step_sees_a_field_label_in_the_opened_dialog() -> None:
    computer, _, state = await _dialog_session()
    done = await _act(
        computer,
        state,
        actions=[
            {"action": "press", "ref": "@e2"},
            {"action": "wait", "until": {"text": "Folder name", "timeoutMs": 2000}},
        ],
    )
    wait = _executed(done).steps[1]
    assert wait.outcome == "worked" and wait.where is not None and wait.where.kind == "dialog"


async def test_an_absent_expect_fails_while_the_opened_dialog_still_shows_it() -> None:
    computer, _, state = await _dialog_session()
    result = await computer.call(
        "act_ui",
        {
            "stateId": state,
            "actions": [{"action": "press", "ref": "@e2"}],
            "expect": {"text": "Folder name", "gone": True, "timeoutMs": 300},
        },
    )
    verification = _check(result)
    shown = verification.where
    assert verification.status == "failed" and shown is not None and not shown.held
    assert shown.kind == "dialog"
    dialog = shown.ref
    message = _error_message(result)
    assert f'{dialog} dialog "Create New Folder" still shows it' in message


async def test_an_expect_anchored_to_a_ref_is_checked_in_its_own_window_only() -> None:
    computer, _, state = await _dialog_session()
    result = await computer.call(
        "act_ui",
        {
            "stateId": state,
            "actions": [{"action": "press", "ref": "@e2"}],
            "expect": {"scopeRef": "@e1", "text": "Folder name", "timeoutMs": 300},
        },
    )
    assert _check(result).status == "failed"


async def test_gone_with_only_a_ref_is_verified_when_that_element_disappears() -> None:
    computer, app, state = await _dialog_session()
    done = await _act(
        computer,
        state,
        actions=[{"action": "press", "ref": "@e3"}],
        expect={"ref": "@e4", "gone": True, "timeoutMs": 2000},
    )
    assert not app.tip and _check(done).status == "verified"
    kept = await computer.call(
        "act_ui",
        {
            "stateId": _state_id(done),
            "actions": [{"action": "focus", "ref": "@e2"}],
            "expect": {"ref": "@e2", "gone": True, "timeoutMs": 200},
        },
    )
    assert _check(kept).status == "failed"
    assert "@e2 button" in _error_message(kept)


async def test_a_read_failing_while_the_dialog_closes_is_the_dialog_closing() -> None:
    computer, _, state = await _dialog_session()
    await _act(computer, state, actions=[{"action": "press", "ref": "@e2"}])
    roots = await computer.call("find_roots", {})
    dialog = next(w.ref for w in windows_of(roots) if w.kind == "dialog")
    state = _state_id(await computer.call("observe_ui", {"root": dialog}))
    found = await computer.call("search_ui", {"stateId": state, "text": "Cancel"})
    cancel = _found(found).result.matches[0].ref
    closed = await computer.call(
        "act_ui",
        {
            "stateId": state,
            "actions": [{"action": "press", "ref": cancel}],
            "expect": {"ref": cancel, "gone": True, "timeoutMs": 2000},
        },
    )
    ended = _executed(closed).ended
    assert ended is not None and ended.status == "target_closed", closed.text
    assert _check(closed).status == "verified"
