"""Step preparation and the background-first delivery rule (pure logic, scripted backend)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import (
    ActionKind,
    ActionRequest,
    ActionResult,
    Backend,
    RawNode,
    Rect,
    RootInfo,
    SemanticReach,
    Snapshot,
    TextSlice,
)
from actui.errors import ForegroundRequired, InvalidParams
from actui.outline.model import build_outline
from actui.refusals import Blocked, DeliveryPolicy, Needs, Refused
from actui.results.typed import BackgroundAttempt, Outcome, StepTrace
from actui.runtime.store import State
from actui.sentences import refusal
from actui.tools.actions import (
    aggregate,
    can_retry_in_foreground,
    click_meaning,
    credited,
    deliver,
    prepare,
    reconcile,
)
from actui.tools.contract import ActionStep

ROOT = RootInfo(
    native_id="app/1",
    pid=42,
    app_name="app",
    title="Form",
    kind="window",
    raw_role="frame",
    frame=Rect(100, 50, 400, 300),
    resource_key="desktop-pid:42",
)


def _state() -> State:
    tree = RawNode(
        "w",
        "frame",
        name="Form",
        rect=Rect(100, 50, 400, 300),
        children=(
            RawNode(
                "entry",
                "text",
                name="Name",
                caps=frozenset({"setText", "typeText", "focus"}),
                rect=Rect(120, 70, 200, 30),
            ),
            RawNode(
                "ok",
                "push button",
                name="OK",
                caps=frozenset({"press"}),
                rect=Rect(300, 120, 80, 30),
            ),
            RawNode("pic", "label", name="decor", rect=Rect(110, 200, 40, 40)),
        ),
    )
    return State(
        state_id="s1",
        resource_key="desktop-pid:42",
        epoch=0,
        root_ref="@r1",
        root=ROOT,
        outline=build_outline(tree, ROOT.frame),
        captured_at=0.0,
        image_size=(400, 300),
    )


class ScriptedBackend(Backend):
    """Answers ``act`` from a script keyed by policy, recording every request."""

    def __init__(self, answer: Callable[[ActionRequest], ActionResult | Refused]) -> None:
        self.answer = answer
        self.requests: list[ActionRequest] = []

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        return [ROOT]

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        raise NotImplementedError

    async def act(self, request: ActionRequest) -> ActionResult | Refused:
        self.requests.append(request)
        return self.answer(request)

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        raise NotImplementedError

    async def close(self) -> None:
        return None


def _result(outcome: str, policy: str) -> ActionResult:
    delivery = "hid" if policy == "foreground" else "ax"
    return ActionResult(outcome=outcome, delivery=delivery, policy=policy)  # type: ignore[arg-type]


def test_ref_press_on_a_button_is_semantic_and_needs_no_foreground() -> None:
    prepared = prepare(
        ActionStep(action="press", ref="@e3"), 0, _state(), headless=False, focus_established=False
    )
    assert prepared.request.target == "ok"
    assert prepared.request.point is None
    assert not prepared.needs_foreground


def test_click_on_a_text_input_focuses_it_semantically_and_establishes_focus() -> None:
    prepared = prepare(
        ActionStep(action="click", ref="@e2"), 0, _state(), headless=False, focus_established=False
    )
    assert prepared.request.kind == "focus"
    assert prepared.request.target == "entry"
    assert prepared.establishes_focus


def test_click_on_a_node_without_semantics_becomes_a_foreground_coordinate_click() -> None:
    prepared = prepare(
        ActionStep(action="click", ref="@e4"), 0, _state(), headless=False, focus_established=False
    )
    assert prepared.request.point == (130, 220)  # screen centre of the label
    assert prepared.needs_foreground


def test_refless_typing_after_a_focusing_click_uses_the_current_focus() -> None:
    prepared = prepare(
        ActionStep(action="typeText", text="hi"),
        1,
        _state(),
        headless=False,
        focus_established=True,
    )
    assert prepared.uses_current_focus
    headless = prepare(
        ActionStep(action="typeText", text="hi"), 1, _state(), headless=True, focus_established=True
    )
    assert not headless.uses_current_focus


def test_coordinates_map_image_pixels_to_the_screen_and_outside_points_are_rejected() -> None:
    prepared = prepare(
        ActionStep(action="click", x=10, y=20), 0, _state(), headless=False, focus_established=False
    )
    assert prepared.request.point == (110, 70)
    with pytest.raises(InvalidParams) as info:
        prepare(
            ActionStep(action="click", x=400, y=20),
            2,
            _state(),
            headless=False,
            focus_established=False,
        )
    assert info.value.field == "actions[2]"


def test_unknown_ref_names_the_step_field() -> None:
    with pytest.raises(InvalidParams) as info:
        prepare(
            ActionStep(action="press", ref="@e99"),
            3,
            _state(),
            headless=False,
            focus_established=False,
        )
    assert info.value.field == "actions[3].ref"


@pytest.mark.parametrize(
    ("kind", "outcome", "headless", "allowed"),
    [
        ("typeText", "didnt", False, True),
        ("keypress", "didnt", False, True),
        ("typeText", "didnt", True, False),
        ("typeText", "unknown", False, False),
        ("click", "didnt", False, False),
        ("click", "unknown", False, False),
        ("press", "didnt", False, False),
    ],
)
def test_only_side_effect_free_didnt_may_retry_in_the_foreground(
    kind: str, outcome: str, headless: bool, allowed: bool
) -> None:
    assert can_retry_in_foreground(kind, outcome, headless) is allowed


async def test_a_keyboard_didnt_is_retried_in_the_foreground_with_the_trace_fields() -> None:
    backend = ScriptedBackend(
        lambda r: _result("didnt" if r.policy == "background" else "unknown", r.policy)
    )
    prepared = prepare(
        ActionStep(action="typeText", ref="@e2", text="x"),
        0,
        _state(),
        headless=False,
        focus_established=False,
    )
    trace = await deliver(backend, prepared, headless=False, policy="background")
    assert [r.policy for r in backend.requests] == ["background", "foreground"]
    assert trace.background_first is True
    assert trace.escalated is True
    assert trace.escalation_reason == "side_effect_free_didnt"
    assert trace.background_attempt.outcome == "didnt"
    assert trace.policy == "foreground"
    assert list(trace.to_wire()) == [  # the wire's key order, as agents have always had it
        "action",
        "ref",
        "backgroundFirst",
        "escalatedToForeground",
        "deliveryPolicy",
        "escalationReason",
        "backgroundAttempt",
        "outcome",
        "delivery",
    ]


async def test_a_failed_foreground_retry_after_didnt_is_not_retried_again() -> None:
    def answer(request: ActionRequest) -> ActionResult:
        if request.policy == "background":
            return _result("didnt", "background")
        raise ForegroundRequired("the window could not be activated")

    prepared = prepare(
        ActionStep(action="typeText", ref="@e2", text="x"),
        0,
        _state(),
        headless=False,
        focus_established=False,
    )
    backend = ScriptedBackend(answer)
    trace = await deliver(backend, prepared, headless=False, policy="background")
    assert [r.policy for r in backend.requests] == ["background", "foreground"]
    assert trace.escalation_reason == "side_effect_free_didnt"
    assert trace.background_attempt.outcome == "didnt"
    assert trace.policy == "foreground"
    assert trace.outcome == "didnt"
    assert trace.error.code == "foreground_required"


async def test_foreground_required_is_retried_in_the_foreground_unless_headless() -> None:
    def answer(request: ActionRequest) -> ActionResult | Refused:
        if request.policy != "foreground":
            return Refused("web text fields need typing", "physical", request.policy)
        return _result("unknown", "foreground")

    prepared = prepare(
        ActionStep(action="typeText", ref="@e2", text="x"),
        0,
        _state(),
        headless=False,
        focus_established=False,
    )
    backend = ScriptedBackend(answer)
    trace = await deliver(backend, prepared, headless=False, policy="background")
    assert trace.escalation_reason == "foreground_required"
    said = refusal(Refused("web text fields need typing", "physical", "background"))[1]
    assert said.startswith("web text fields need typing")
    assert trace.background_attempt == BackgroundAttempt("foreground_required", said)
    wire = trace.to_wire()
    assert list(wire)[4:7] == ["escalationReason", "backgroundAttempt", "deliveryPolicy"]
    assert wire["backgroundAttempt"] == {"outcome": "foreground_required", "reason": said}
    headless_backend = ScriptedBackend(answer)
    headless_trace = await deliver(headless_backend, prepared, headless=True, policy="background")
    assert [r.policy for r in headless_backend.requests] == ["ax_only"]
    assert headless_trace.outcome == "didnt"
    assert headless_trace.error.code == "coordinate_blocked", "no retry sends physical input"


async def test_an_unknown_pointer_outcome_is_never_replayed() -> None:
    backend = ScriptedBackend(lambda r: _result("unknown", r.policy))
    prepared = prepare(
        ActionStep(action="click", ref="@e4"), 0, _state(), headless=False, focus_established=False
    )
    trace = await deliver(backend, prepared, headless=False, policy="background")
    assert len(backend.requests) == 1
    assert trace.background_first is False
    assert trace.outcome == "unknown"


async def test_delivery_policy_ax_only_never_escalates() -> None:
    backend = ScriptedBackend(lambda r: _result("didnt", r.policy))
    prepared = prepare(
        ActionStep(action="keypress", ref="@e2", keys=["a"]),
        0,
        _state(),
        headless=False,
        focus_established=False,
    )
    trace = await deliver(backend, prepared, headless=False, policy="ax_only")
    assert [r.policy for r in backend.requests] == ["ax_only"]
    assert trace.escalated is False


def test_transaction_outcomes_and_postcondition_reconciliation() -> None:
    assert aggregate(["worked"], stopped=False) == "worked"
    assert aggregate(["worked", "unknown"], stopped=False) == "unknown"
    assert aggregate(["worked", "didnt"], stopped=True) == "didnt"
    assert reconcile("unknown", "verified", stopped=False) == "worked"
    assert reconcile("unknown", "preexisting", stopped=False) == "unknown"
    assert reconcile("worked", "failed", stopped=False) == "didnt"
    # A verified postcondition never upgrades a transaction that stopped early.
    assert reconcile("didnt", "verified", stopped=True) == "didnt"


NONE: frozenset[str] = frozenset()


def _trace(action: str, outcome: Outcome, ref: str) -> StepTrace:
    return StepTrace(action=action, outcome=outcome, ref=ref, reason="nothing observable changed")


def test_an_unknown_press_whose_effect_is_in_the_diff_of_another_element_worked() -> None:
    # the Swing form: the press on Register leaves the button as it was, relabels the status
    steps = [_trace("typeText", "worked", "@e8"), _trace("press", "unknown", "@e9")]
    typed, pressed = credited(steps, frozenset({"@e8", "@e10"}), verified=False, focused=NONE)
    assert typed == steps[0]
    assert pressed.outcome == "worked" and "@e10 changed" in pressed.reason
    assert aggregate([typed.outcome, pressed.outcome], stopped=False) == "worked"


def test_a_change_only_to_what_other_steps_aimed_at_credits_nothing() -> None:
    steps = [_trace("typeText", "worked", "@e8"), _trace("press", "unknown", "@e9")]
    assert credited(steps, frozenset({"@e8"}), verified=False, focused=NONE) == steps
    assert credited(steps, frozenset(), verified=False, focused=NONE) == steps


def test_a_verified_condition_credits_the_one_unknown_step() -> None:
    steps = [_trace("keypress", "unknown", "@e2")]
    (step,) = credited(steps, frozenset(), verified=True, focused=NONE)
    assert step.outcome == "worked" and "expected change" in step.reason


def test_a_key_is_credited_only_by_a_change_where_it_went() -> None:
    # the focus (or the key's ref) is where a key's effect is; a status line elsewhere
    # changing is no evidence of it
    at_focus, focus = [_trace("keypress", "unknown", "")], frozenset({"@e4"})
    assert credited(at_focus, frozenset({"@e30"}), verified=False, focused=focus) == at_focus
    (step,) = credited(at_focus, frozenset({"@e4", "@e30"}), verified=False, focused=focus)
    assert step.outcome == "worked" and "@e4 changed" in step.reason and "@e30" not in step.reason
    aimed = [_trace("keypress", "unknown", "@e2")]
    assert credited(aimed, frozenset({"@e4"}), verified=False, focused=focus) == aimed
    (step,) = credited(aimed, frozenset({"@e2"}), verified=False, focused=focus)
    assert step.outcome == "worked"


def test_beside_another_press_a_change_is_not_credited_to_the_unknown_one() -> None:
    # a press on a disabled button, then a submit that relabels the status: the submit's
    steps = [_trace("press", "unknown", "@e21"), _trace("press", "worked", "@e22")]
    assert credited(steps, frozenset({"@e30"}), verified=True, focused=NONE) == steps


def test_two_unknown_steps_cannot_be_told_apart_and_stay_unknown() -> None:
    steps = [_trace("press", "unknown", "@e2"), _trace("press", "unknown", "@e3")]
    assert credited(steps, frozenset({"@e7"}), verified=True, focused=NONE) == steps


def test_a_browser_ref_click_stays_a_real_click_on_its_element() -> None:
    page = replace(ROOT, kind="browser_page", resource_key="cdp:T")
    state = replace(_state(), root=page, resource_key="cdp:T")
    prepared = prepare(
        ActionStep(action="click", ref="@e2"), 0, state, headless=True, focus_established=False
    )
    assert prepared.request.kind == "click"
    assert prepared.request.target == "entry"
    assert not prepared.needs_foreground


def _with_check_box() -> State:
    """A window holding one check box that exposes no action (GTK 4), at (200, 150) 20x20."""
    box = RawNode("box", "check box", caps=frozenset({"focus"}), rect=Rect(200, 150, 20, 20))
    tree = RawNode("w", "frame", rect=ROOT.frame, children=(box,))
    return replace(_state(), outline=build_outline(tree, ROOT.frame))


async def test_a_toggle_the_backend_can_only_do_physically_becomes_a_click_on_its_center() -> None:
    """A GTK 4 check box with no action: semantic first, then a real click where it is."""
    state = _with_check_box()

    def answer(request: ActionRequest) -> ActionResult | Refused:
        if request.policy != "foreground":
            return Refused(
                "the check box has no accessible action for toggle", "physical", request.policy
            )
        return _result("unknown", "foreground")

    prepared = prepare(
        ActionStep(action="toggle", ref="@e2"), 0, state, headless=False, focus_established=False
    )
    assert not prepared.needs_foreground, "the semantic attempt comes first"
    backend = ScriptedBackend(answer)
    trace = await deliver(backend, prepared, headless=False, policy="background")
    first, retry = backend.requests
    assert (first.kind, first.target, first.point) == ("toggle", "box", None)
    assert (retry.kind, retry.point, retry.policy) == ("press", (210, 160), "foreground")
    assert trace.escalation_reason == "foreground_required" and trace.delivery == "hid"


def test_a_click_only_focuses_a_text_field_and_clicks_anything_else_for_real() -> None:
    clicked = prepare(
        ActionStep(action="click", ref="@e2"),
        0,
        _with_check_box(),
        headless=False,
        focus_established=False,
    )
    assert (clicked.request.kind, clicked.request.point) == ("click", (210, 160))
    wire = _with_check_box().node("@e2").wire
    assert wire is not None and clicked.request.target == wire, (
        "aimed at the check box: the click waits for it to be enabled"
    )
    focused = prepare(
        ActionStep(action="click", ref="@e2"), 0, _state(), headless=False, focus_established=False
    )
    assert focused.request.kind == "focus", "a text field is focused, not clicked"


def _with_file_row() -> State:
    """A file manager's list: a name cell (GTK 3: ``activate`` opens the row) and a button."""
    cell = RawNode(
        "cell",
        "table cell",
        name="notes.txt",
        caps=frozenset({"press", "select", "focus"}),
        rect=Rect(120, 100, 100, 20),
    )
    table = RawNode("table", "table", rect=Rect(110, 90, 300, 200), children=(cell,))
    tree = RawNode("w", "frame", rect=ROOT.frame, children=(table,))
    return replace(_state(), outline=build_outline(tree, ROOT.frame))


@pytest.mark.parametrize(
    ("role", "caps", "meaning"),
    [
        ("push button", {"press"}, "press"),
        ("menu item", {"press", "select"}, "press"),
        ("link", {"press", "focus"}, "press"),
        ("text", {"setText", "typeText", "focus"}, "focus"),
        ("table cell", {"press", "select", "focus"}, "semantic"),
        ("list item", {"select"}, "semantic"),
        ("section", {"press"}, "semantic"),
        ("check box", {"focus"}, "pointer"),
        ("label", set(), "pointer"),
    ],
)
def test_a_click_means_a_press_only_for_controls_whose_click_is_their_press(
    role: str, caps: set[str], meaning: str
) -> None:
    node = build_outline(RawNode("n", role, caps=frozenset(caps)), None).root_node
    assert click_meaning(node) == meaning


def test_a_click_on_a_file_row_stays_a_click_and_is_never_its_activate() -> None:
    prepared = prepare(
        ActionStep(action="click", ref="@e3"),
        0,
        _with_file_row(),
        headless=False,
        focus_established=False,
    )
    assert prepared.request.kind == "click", "a table cell's press would open the file"
    assert (prepared.request.target, prepared.request.point) == ("cell", None)
    assert not prepared.needs_foreground, "the semantic click comes first"
    assert prepared.physical_point == (170, 110)
    semantic = replace(_with_file_row(), image_size=None)  # semantic mode: rects at scale 1
    without_image = prepare(
        ActionStep(action="click", ref="@e3"), 0, semantic, headless=False, focus_established=False
    )
    assert without_image.physical_point == (170, 110)


async def test_a_click_refused_semantically_becomes_a_real_click_unless_headless() -> None:
    def answer(request: ActionRequest) -> ActionResult | Refused:
        if request.policy != "foreground":
            return Refused(
                "the table cell cannot be selected semantically", "physical", request.policy
            )
        return _result("unknown", "foreground")

    state = _with_file_row()
    prepared = prepare(
        ActionStep(action="click", ref="@e3"), 0, state, headless=False, focus_established=False
    )
    backend = ScriptedBackend(answer)
    trace = await deliver(backend, prepared, headless=False, policy="background")
    first, retry = backend.requests
    assert (first.kind, first.point) == ("click", None)
    assert (retry.kind, retry.point, retry.policy) == ("click", (170, 110), "foreground")
    assert trace.escalated is True
    assert trace.escalation_reason == "foreground_required"
    headless = ScriptedBackend(answer)
    quiet = prepare(
        ActionStep(action="click", ref="@e3"), 0, state, headless=True, focus_established=False
    )
    headless_trace = await deliver(headless, quiet, headless=True, policy="background")
    assert [(r.kind, r.policy) for r in headless.requests] == [("click", "ax_only")]
    assert headless_trace.outcome == "didnt" and headless_trace.escalated is False


async def test_a_refused_click_on_an_element_with_no_place_on_screen_is_not_sent_blind() -> None:
    """A row scrolled out of view has no rectangle: the refusal stands, nothing is clicked."""
    cell = RawNode("cell", "table cell", name="far.txt", caps=frozenset({"select"}))
    tree = RawNode("w", "frame", rect=ROOT.frame, children=(cell,))
    state = replace(_state(), outline=build_outline(tree, ROOT.frame))

    def answer(request: ActionRequest) -> ActionResult | Refused:
        return Refused("the table cell cannot be selected semantically", "physical", request.policy)

    prepared = prepare(
        ActionStep(action="click", ref="@e2"), 0, state, headless=False, focus_established=False
    )
    backend = ScriptedBackend(answer)
    trace = await deliver(backend, prepared, headless=False, policy="background")
    assert len(backend.requests) == 1, "no physical retry without a point"
    assert trace.outcome == "didnt" and trace.error.code == "foreground_required"


@given(
    st.sampled_from(get_args(Needs)),
    st.sampled_from(get_args(DeliveryPolicy)),
    st.booleans(),
    st.sampled_from(["typeText", "keypress", "toggle"]),
)
def test_a_refusal_is_sent_again_once_in_the_foreground_only_where_the_policy_allows(
    needs: Needs, policy: DeliveryPolicy, headless: bool, kind: str
) -> None:
    """The backend only answers; the retry, its policy and its one repetition are decided here."""

    def answer(request: ActionRequest) -> ActionResult | Refused:
        if request.policy == "foreground":
            return _result("unknown", "foreground")
        return Refused("it needs input", needs, request.policy)

    step = {
        "typeText": ActionStep(action="typeText", ref="@e2", text="x"),
        "keypress": ActionStep(action="keypress", ref="@e2", keys=["a"]),
        "toggle": ActionStep(action="toggle", ref="@e3"),
    }[kind]
    prepared = prepare(step, 0, _state(), headless=headless, focus_established=False)
    backend = ScriptedBackend(answer)
    trace = asyncio.run(deliver(backend, prepared, headless=headless, policy=policy))
    first = backend.requests[0].policy
    may_retry = not headless and first in ("background", "default")
    assert [r.policy for r in backend.requests] == ([first, "foreground"] if may_retry else [first])
    if may_retry:
        assert trace.escalation_reason == "foreground_required" and trace.outcome == "unknown"
        assert trace.background_attempt is not None
    elif first != "foreground":
        assert trace.outcome == "didnt" and trace.error is not None
        assert trace.error.code == refusal(Refused("it needs input", needs, first))[0]


class DeclaringBackend(ScriptedBackend):
    """A scripted backend that declares what it delivers semantically."""

    def __init__(
        self, reach: SemanticReach, answer: Callable[[ActionRequest], ActionResult | Refused]
    ) -> None:
        super().__init__(answer)
        self.reach = reach

    def semantic_reach(self, root: RootInfo) -> SemanticReach:
        return self.reach


KEYS_ONLY_PHYSICALLY = SemanticReach(kinds=frozenset({"press", "setText"}), elements_only=True)


@pytest.mark.parametrize("policy", ["background", "ax_only", "default", "foreground"])
@pytest.mark.parametrize("headless", [False, True])
async def test_a_step_out_of_the_declared_reach_is_not_sent_to_be_refused_and_traces_the_same(
    policy: DeliveryPolicy, headless: bool
) -> None:
    """Declaring a kind out of reach gives the trace a refusal answered on the wire gives,
    without the round trip; the foreground retry and its honesty rules are unchanged."""

    def answer(request: ActionRequest) -> ActionResult | Refused:
        if request.policy in ("ax_only", "background"):
            refused = KEYS_ONLY_PHYSICALLY.refusal(request)
            assert refused is not None
            return refused
        return _result("unknown", request.policy)

    prepared = prepare(
        ActionStep(action="keypress", ref="@e2", keys=["a"]),
        0,
        _state(),
        headless=headless,
        focus_established=False,
    )
    answering = ScriptedBackend(answer)
    declaring = DeclaringBackend(KEYS_ONLY_PHYSICALLY, answer)
    sent = await deliver(answering, prepared, headless=headless, policy=policy)
    declared = await deliver(declaring, prepared, headless=headless, policy=policy)
    assert declared == sent
    assert all(r.policy not in ("ax_only", "background") for r in declaring.requests)
    skipped = [r for r in answering.requests if r.policy in ("ax_only", "background")]
    assert len(declaring.requests) == len(answering.requests) - len(skipped)
    if not headless and policy == "background":
        assert declared.escalated and declared.escalation_reason == "foreground_required"
        assert [r.policy for r in declaring.requests] == ["foreground"]
    if headless:
        assert declaring.requests == [] and declared.outcome == "didnt"


@given(
    st.sampled_from(sorted(get_args(ActionKind))),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["left", "right"]),
    st.integers(1, 3),
)
def test_an_element_only_reach_refuses_exactly_what_has_no_semantic_form(
    kind: ActionKind, target: bool, point: bool, button: str, count: int
) -> None:
    request = ActionRequest(
        kind=kind,
        root=ROOT,
        policy="background",
        target="el" if target else None,
        point=(1, 2) if point else None,
        button=button,  # type: ignore[arg-type]
        click_count=count,
    )
    refused = KEYS_ONLY_PHYSICALLY.refusal(request)
    plain_click = not point and button == "left" and count == 1
    reachable = kind in KEYS_ONLY_PHYSICALLY.kinds and target
    assert (refused is None) == (reachable and (kind != "click" or plain_click))
    assert SemanticReach().refusal(request) is None, "by default the backend answers each"
    bare = SemanticReach(unreachable="no tree").refusal(request)
    assert bare == Refused("no tree", "pixels", "background")


@pytest.mark.parametrize(
    ("blocked", "advice"),
    [
        ("disabled", "observe again"),
        ("menu_closed", "open its menu first"),
        ("modal_dialog", "close it with a click"),
    ],
)
async def test_what_blocked_a_step_is_data_the_trace_words_as_advice(
    blocked: Blocked, advice: str
) -> None:
    """Backends say what stood in the way; the advice is written above the seam, once."""
    fact = "the button is disabled (it stayed insensitive for 1 s), so nothing was sent"
    backend = ScriptedBackend(
        lambda r: ActionResult("didnt", "ax", r.policy, reason=fact, blocked=blocked)
    )
    prepared = prepare(
        ActionStep(action="press", ref="@e3"), 0, _state(), headless=True, focus_established=False
    )
    trace = await deliver(backend, prepared, headless=True, policy="background")
    assert trace.reason.startswith(fact) and advice in trace.reason.removeprefix(fact)
    plain = ScriptedBackend(lambda r: ActionResult("didnt", "ax", r.policy, reason=fact))
    assert (await deliver(plain, prepared, headless=True, policy="background")).reason == fact
