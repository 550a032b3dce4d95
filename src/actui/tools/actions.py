"""Preparing transaction steps and delivering them under the delivery policy.

Owns the preparation rules (docs/design-notes.md §3: targets, ``establishesFocus``,
``usesCurrentFocus``, ``needsForeground``) and the background-first rule with
its one safe foreground retry (``escalation``): backends answer with data (a
result, or a :class:`Refused` step that sent nothing), and only this module
decides whether a step goes again in the foreground. It turns a
contract step plus a stored state into a backend request and a trace entry;
it never renders text and never touches a platform API directly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from actui.backends.base import NO_PHYSICAL_INPUT, ActionKind, ActionRequest, ActionResult, Backend
from actui.errors import ActuiError, InvalidParams
from actui.outline.diff import Changes
from actui.outline.model import Node, is_hidden
from actui.refusals import DeliveryPolicy, Refused
from actui.results.typed import BackgroundAttempt, EscalationReason, StepError, StepTrace
from actui.runtime.store import State
from actui.sentences import blocked, refusal
from actui.tools.contract import STEPS, ActionStep, chord_names


@dataclass(frozen=True)
class Prepared:
    """One step ready for a backend, plus the flags that choose its policy."""

    request: ActionRequest
    ref: str | None
    needs_foreground: bool
    uses_current_focus: bool
    establishes_focus: bool
    physical_point: tuple[int, int] | None = None
    """Where a press, toggle or click lands if the backend can only do it physically."""
    hidden: bool = False
    """The target is not displayed at all (``model.is_hidden``): what it did, nobody sees."""


MAX_SCROLL = 10_000
MAX_STEP_TIMEOUT_S = 120.0


def _clamp_scroll(amount: float | None) -> int:
    return max(-MAX_SCROLL, min(MAX_SCROLL, round(amount or 0)))


# Neutral roles whose click is their press (a button, a link, a menu item, a
# tab): elsewhere a press action may open what a click would only select.
CLICK_PRESSES = frozenset(
    {"button", "toggle", "checkbox", "radio", "link", "menu", "menuitem", "tab", "combobox"}
)
ClickMeaning = Literal["press", "focus", "semantic", "pointer"]


def click_meaning(node: Node) -> ClickMeaning:
    """What a left click on ``node`` is, delivered without the pointer when possible.

    ``press`` for controls whose click is their press; ``focus`` for a text
    field; ``semantic`` for an element a backend may click semantically with
    proof on the element (an item is selected, an action named click is
    done), with a real click as the fallback; ``pointer`` for everything else.
    Never another action: a table cell's ``activate`` opens its row.
    """
    if "press" in node.caps and node.role in CLICK_PRESSES:
        return "press"
    if "focus" in node.caps and {"setText", "typeText"} & node.caps:
        return "focus"
    if {"press", "select"} & node.caps:
        return "semantic"
    return "pointer"


def can_retry_in_foreground(kind: str, outcome: str, headless: bool) -> bool:
    """Only side-effect-free input whose background attempt verifiably did nothing."""
    return not headless and outcome == "didnt" and STEPS[kind].keyboard


def _on_screen(state: State, x: float, y: float) -> tuple[int, int] | None:
    """Image pixels of the state on screen; None without geometry or outside the image."""
    size = state.image_size
    frame = state.root.frame
    if size is None or frame is None or frame.empty:
        return None
    width, height = size
    if not (0 <= x < width and 0 <= y < height):
        return None
    return (frame.x + round(x * frame.w / width), frame.y + round(y * frame.h / height))


def _screen_point(state: State, x: float, y: float, field: str) -> tuple[int, int]:
    """Map image pixels of the state to screen pixels, rejecting points outside."""
    point = _on_screen(state, x, y)
    if point is not None:
        return point
    if state.root.capabilities.geometry == "none":
        raise InvalidParams(
            field,
            "this root has geometry: none (where it is on the screen is not known), so "
            "coordinates cannot be used.",
            "Use an @e ref: it acts semantically.",
        )
    if state.image_size is None or state.root.frame is None or state.root.frame.empty:
        raise InvalidParams(
            field,
            "this state has no image or window geometry, so coordinates cannot be used.",
            "Use an @e ref, or observe with mode 'visual' to get an image first.",
        )
    width, height = state.image_size
    raise InvalidParams(
        field,
        f"point ({x:g}, {y:g}) lies outside the state's image of {width}x{height} pixels.",
        "Use coordinates inside the image.",
    )


def _center_if_known(state: State, node: Node) -> tuple[int, int] | None:
    """The element's centre on screen, or None when the state cannot place it; a state
    without an image keeps rects at scale 1."""
    if node.rect is None or node.rect.empty:
        return None
    cx, cy = node.rect.center
    frame = state.root.frame
    if state.image_size is None and frame is not None and not frame.empty:
        return (frame.x + round(cx), frame.y + round(cy))
    return _on_screen(state, cx, cy)


def _node_point(state: State, node: Node, field: str) -> tuple[int, int]:
    """The element's centre on screen, or the InvalidParams saying why it has none."""
    point = _center_if_known(state, node)
    if point is not None:
        return point
    if node.rect is None or node.rect.empty:
        raise InvalidParams(
            field, f"{node.ref} has no on-screen rectangle.", "Act on it by ref semantically."
        )
    return _screen_point(state, *node.rect.center, field)


def prepare(
    step: ActionStep,
    index: int,
    state: State,
    *,
    headless: bool,
    focus_established: bool,
) -> Prepared:
    """Resolve one step's target against ``state`` (docs/design-notes.md §3)."""
    field = f"actions[{index}]"
    assert step.action != "wait", "wait steps are not delivered"
    kind: ActionKind = step.action
    node = state.node(step.ref, f"{field}.ref") if step.ref else None
    target: str | None = None
    point: tuple[int, int] | None = None
    physical_point: tuple[int, int] | None = None
    needs_foreground = uses_current_focus = False
    # A page's input events reach the element without focus or pointer, so a
    # browser ref click stays a real click on its element.
    page = state.root.kind == "browser_page"
    if node is not None:
        semantic_click = (
            kind == "click" and step.button in (None, "left") and step.clickCount in (None, 1)
        )
        meaning = click_meaning(node) if semantic_click and not page else "pointer"
        if kind == "click" and meaning in ("press", "focus"):
            kind = meaning
        pointer = kind in ("drag", "moveMouse") or (
            kind == "click" and not page and meaning == "pointer"
        )
        if pointer or node.picture_only or not node.wire:
            point = _node_point(state, node, f"{field}.ref")
            if kind == "click" and not node.picture_only:
                target = node.wire  # aimed at: the click waits for it to be enabled
        else:
            target = node.wire
            if kind in ("press", "toggle", "click") and not page:
                physical_point = _center_if_known(state, node)
    elif step.x is not None and step.y is not None:
        point = _screen_point(state, step.x, step.y, field)
    elif step.path:
        point = _screen_point(state, step.path[0]["x"], step.path[0]["y"], f"{field}.path[0]")
    elif STEPS[kind].keyboard:
        uses_current_focus = not headless and focus_established
    if point is not None and kind in ("click", "press"):
        needs_foreground = not headless and not page
    path = tuple(
        _screen_point(state, p["x"], p["y"], f"{field}.path[{i}]")
        for i, p in enumerate(step.path or ())
    )
    establishes = (
        not headless
        and kind in ("click", "press", "focus")
        and node is not None
        and any("setText" in n.caps or "text" in n.role for n in state.outline.subtree(node))
    )
    request = ActionRequest(
        kind=kind,
        root=state.root,
        policy="ax_only",
        target=target,
        point=point,
        text=step.text or "",
        keys=chord_names(step.keys or ()),
        button=step.button or "left",
        click_count=step.clickCount or 1,
        scroll=(_clamp_scroll(step.scrollX), _clamp_scroll(step.scrollY)),
        path=path,
        value=step.value,
        timeout_s=min(MAX_STEP_TIMEOUT_S, max(15.0, 0.025 * len(step.text or "") + 4.0)),
    )
    hidden = node is not None and is_hidden(node)
    return Prepared(
        request, step.ref, needs_foreground, uses_current_focus, establishes, physical_point, hidden
    )


def _with_policy(request: ActionRequest, policy: DeliveryPolicy) -> ActionRequest:
    return replace(request, policy=policy)


def initial_policy(prepared: Prepared, *, headless: bool, policy: DeliveryPolicy) -> DeliveryPolicy:
    """The policy a step is first sent with: background first unless it needs the foreground."""
    if headless or policy == "ax_only":
        return "ax_only"
    if policy == "foreground" or prepared.needs_foreground or prepared.uses_current_focus:
        return "foreground"
    return policy


@dataclass(frozen=True)
class Escalation:
    """Why a step is sent again in the foreground, what the first attempt said, and how."""

    reason: EscalationReason
    attempt: BackgroundAttempt
    request: ActionRequest


def escalation(
    prepared: Prepared, answer: ActionResult | Refused, initial: DeliveryPolicy, headless: bool
) -> Escalation | None:
    """The one foreground retry a first answer allows, if any (docs/design-notes.md §3).

    A refusal sent nothing, so the step's physical form cannot double an effect;
    a ``didnt`` is replayed only for keyboard input, which was checked to have
    done nothing. Headless, ``ax_only`` and a first foreground attempt never retry.
    """
    if headless or initial in ("ax_only", "foreground"):
        return None
    if isinstance(answer, Refused):
        if not _has_physical_form(prepared):
            return None
        said = BackgroundAttempt("foreground_required", refusal(answer)[1])
        return Escalation("foreground_required", said, _physical(prepared))
    if can_retry_in_foreground(prepared.request.kind, answer.outcome, headless):
        said = BackgroundAttempt("didnt", answer.reason)
        return Escalation("side_effect_free_didnt", said, prepared.request)
    return None


async def deliver(
    backend: Backend, prepared: Prepared, *, headless: bool, policy: DeliveryPolicy
) -> StepTrace:
    """Deliver one step background-first and return its trace.

    The first attempt is chosen from what the backend declares it can deliver
    semantically (:class:`SemanticReach`): under a policy that sends no physical
    input, a step it rules out is answered by that declaration without a round
    trip, and goes on to the foreground retry as a refusal the backend sent would.
    Errors become a ``didnt`` step with an ``error``: the transaction stops
    there, and nothing falls through to physical input, which could repeat an
    action the semantic call did perform. A refusal the foreground cannot
    help becomes the same.
    """
    request = prepared.request
    initial = initial_policy(prepared, headless=headless, policy=policy)
    step = StepTrace(
        action=request.kind,
        outcome="didnt",
        ref=prepared.ref,
        background_first=initial != "foreground",
        escalated=False,
        policy=initial,
    )
    first = _with_policy(request, initial)
    # a step the backend declares out of its semantic reach is not sent to be refused:
    # the declared refusal is its answer, escalated (or not) exactly as a sent one
    ruled_out = (
        backend.semantic_reach(request.root).refusal(first)
        if initial in NO_PHYSICAL_INPUT
        else None
    )
    try:
        answer = ruled_out if ruled_out is not None else await backend.act(first)
        again = escalation(prepared, answer, initial, headless)
        if again is not None:
            step = replace(
                step,
                policy="foreground",
                escalated=True,
                escalation_reason=again.reason,
                background_attempt=again.attempt,
            )
            answer = await backend.act(_with_policy(again.request, "foreground"))
    except ActuiError as exc:
        return _failed(step, StepError(exc.code, exc.message))
    if isinstance(answer, Refused):
        return _failed(step, StepError(*refusal(answer)))
    reason = blocked(answer.reason, answer.blocked)
    if prepared.hidden and answer.outcome == "worked":
        reason = "; ".join(filter(None, (HIDDEN_TARGET, reason)))
    return replace(
        step,
        outcome=answer.outcome,
        delivery=answer.delivery,
        mechanism=answer.mechanism,
        reason=reason,
        evidence=dict(answer.evidence),
    )


HIDDEN_TARGET = "on a hidden element: it is not displayed, so nobody sees what it did"
"""What a step that worked on a hidden element says (FeatherPad's closed replace field took
typed text and said ``worked``, while the editor a person looks at stayed as it was)."""


def _has_physical_form(prepared: Prepared) -> bool:
    """Whether the step can be sent as input: a pointer step needs a point on screen."""
    request = prepared.request
    pointer = request.kind in ("press", "toggle", "click")
    return not pointer or request.point is not None or prepared.physical_point is not None


def _physical(prepared: Prepared) -> ActionRequest:
    """The step as physical input: a press, toggle or click becomes a click on the element."""
    request = prepared.request
    if request.point is None and prepared.physical_point is not None:
        kind: ActionKind = "click" if request.kind == "click" else "press"
        return replace(request, kind=kind, point=prepared.physical_point)
    return request


def _failed(step: StepTrace, error: StepError) -> StepTrace:
    return replace(step, outcome="didnt", error=error)


def aggregate(outcomes: list[str], stopped: bool) -> str:
    """A transaction's outcome from its steps': didnt if stopped, else the weakest."""
    if stopped or "didnt" in outcomes:
        return "didnt"
    if "unknown" in outcomes:
        return "unknown"
    return "worked"


def changed_refs(changes: Changes) -> frozenset[str]:
    """The elements a transaction's diff says were added, updated or removed."""
    return frozenset(
        c.ref for group in (changes.added, changes.updated, changes.removed) for c in group
    )


FIELD_EDITS = frozenset({"typeText", "setText"})
"""Steps whose effect is their own field's text: they explain a change there, and only there."""


def credited(
    steps: list[StepTrace], changed: frozenset[str], verified: bool, focused: frozenset[str]
) -> list[StepTrace]:
    """``steps`` with the one ``unknown`` step among them made ``worked`` when the whole
    result shows its effect: the condition it was sent for holds (``verified``), or the diff
    changed an element no other step aimed at. A backend judges a step by its own element
    (a Swing button reads the same after a press that relabels the status line), so a
    press whose change is in the result read ``unknown … nothing observable changed``.
    A key is tied to where it went: its ref, else the elements ``focused`` when the steps
    began; a change anywhere else is not its evidence.
    Only text typed into fields (:data:`FIELD_EDITS`) and waits may stand beside it: with
    another press, click or key, or a second unknown step, the change cannot be told
    apart, and nothing is credited."""
    unknown = [i for i, step in enumerate(steps) if step.outcome == "unknown"]
    if len(unknown) != 1:
        return steps
    at = unknown[0]
    others = [step for i, step in enumerate(steps) if i != at and step.action != "wait"]
    if any(step.action not in FIELD_EDITS for step in others):
        return steps  # another press, click or key may have made the change
    edited = {step.ref for step in others if step.ref}
    if steps[at].action == "keypress":
        changed &= {steps[at].ref} if steps[at].ref else focused
    elsewhere = sorted(changed - edited, key=lambda ref: int(ref[2:]) if ref[2:].isdigit() else 0)
    if verified:
        reason = "the expected change shows in the result"
    elif elsewhere:
        reason = f"its effect shows in the result ({', '.join(elsewhere[:3])} changed)"
    else:
        return steps
    credit = replace(steps[at], outcome="worked", reason=reason)
    return [*steps[:at], credit, *steps[at + 1 :]]


def reconcile(outcome: str, status: str | None, stopped: bool) -> str:
    """Combine the steps' outcome with the postcondition (docs/design-notes.md §3).

    ``verified`` never upgrades a transaction that stopped early: the steps that
    never ran are not vouched for by a condition that happens to hold.
    """
    if status == "failed":
        return "didnt"
    if status == "verified" and not stopped:
        return "worked"
    return outcome
