"""Typed results and their parts, each turned into wire JSON by one ``to_wire()``.

A root as results name it, a root delta, a saved state as a result returns
it (``StateSummary``), one step's trace, the verification of ``expect`` and a
transaction's execution with its successor. They are built where the facts
are known (``actions.deliver``, ``transaction``, ``runtime.deltas``,
``rendering.observation``), read by
attribute there and in the Python API (``actui.api``), and become the wire's
dicts only at the edge, key for key in the order agents have always received
(``tests/integration/test_golden_act.py`` holds that order;
``actui.results.schemas`` describes the shapes to MCP clients).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast, get_args

from actui.backends.base import (
    JsonObject,
    Outcome,
    ProcessExit,
    RootCapabilities,
    RootInfo,
    RootKind,
)
from actui.outline.conditions import UiCondition, condition_json
from actui.outline.documents import PartShown, partly_wire
from actui.outline.search import Match, SearchResult
from actui.outline.windows import Windowed
from actui.quoting import clip
from actui.refusals import DeliveryPolicy
from actui.runtime.deltas import RootDelta, SettledBy
from actui.runtime.reaching import ReadNote

Wire = JsonObject
"""A result's wire form: JSON values by key (the seam's one JSON alias)."""
TITLE_CAP = 200
"""Characters of a window title or app name shown, in the text and in structured content."""
URL_CAP = 2048
"""Characters of a page URL shown, in the text and in structured content."""
VerificationStatus = Literal["verified", "preexisting", "failed", "skipped"]
EscalationReason = Literal["side_effect_free_didnt", "foreground_required"]
OUTCOMES: tuple[str, ...] = get_args(Outcome)


def as_outcome(value: str) -> Outcome:
    """``value`` as an :data:`Outcome` (``actions.aggregate`` and ``reconcile`` return str)."""
    if value not in OUTCOMES:
        raise ValueError(f"{value!r} is not an outcome ({', '.join(OUTCOMES)})")
    return cast(Outcome, value)


ViewKind = Literal["full", "diff"]
Ended = Literal["target_closed", "app_exited", "post_action_observation_failed"]
"""Why an act has no successor: its window closed, its application was killed, or the
window could not be read after the steps (docs/design-notes.md §4)."""


@dataclass(frozen=True)
class RootView:
    """A root as a result names it: its ``@r`` ref and what the backend reported."""

    ref: str
    root: RootInfo

    @property
    def app(self) -> str:
        return self.root.app_name

    @property
    def title(self) -> str:
        return self.root.title

    @property
    def kind(self) -> RootKind:
        return self.root.kind

    @property
    def pid(self) -> int:
        return self.root.pid

    @property
    def capabilities(self) -> RootCapabilities:
        """What the display lets actui do to this root (input, capture, geometry)."""
        return self.root.capabilities

    def to_wire(self) -> Wire:
        root, frame = self.root, self.root.frame
        out: Wire = {
            "windowRef": self.ref,
            "kind": root.kind,
            "app": clip(root.app_name, TITLE_CAP),
            "pid": root.pid,
            "windowTitle": clip(root.title, TITLE_CAP),
            "windowId": root.window_id,
            "frame": {"x": frame.x, "y": frame.y, "w": frame.w, "h": frame.h} if frame else None,
            "isFocused": root.is_focused,
            "isModal": root.is_modal,
            "isMinimized": root.is_minimized,
            "zOrder": root.z_order,
            "toolkit": root.toolkit,
            "accessibility": root.accessibility,
            "capabilities": {
                "input": self.capabilities.input,
                "capture": self.capabilities.capture,
                "geometry": self.capabilities.geometry,
            },
        }
        if root.url:
            out["url"] = clip(root.url, URL_CAP)
        return out


@dataclass(frozen=True)
class FoundRoot:
    """One root ``find_roots`` returned: how well it matched, and whether it may be used."""

    view: RootView
    score: float
    browser_use_allowed: bool

    def to_wire(self) -> Wire:
        return {
            **self.view.to_wire(),
            "score": round(self.score, 3),
            "browserUseAllowed": self.browser_use_allowed,
        }


@dataclass(frozen=True)
class RootsFound:
    """``find_roots``: the best roots, how many matched in all, and what the backends said."""

    roots: tuple[FoundRoot, ...]
    total: int
    notices: tuple[str, ...]
    browser_use: bool
    headless: bool

    def to_wire(self) -> Wire:
        return {
            "notices": list(self.notices),
            "windows": [found.to_wire() for found in self.roots],
            "totalMatches": self.total,
            "returned": len(self.roots),
            "hasMore": self.total > len(self.roots),
            "config": {"browser_use": self.browser_use, "headless": self.headless},
        }


@dataclass(frozen=True)
class Capture:
    """The coordinate space of a state's image: x/y of a step are in these pixels."""

    state_id: str
    width: int
    height: int
    scale_factor: float
    timestamp: float

    def to_wire(self) -> Wire:
        return {
            "stateId": self.state_id,
            "width": self.width,
            "height": self.height,
            "scaleFactor": self.scale_factor,
            "coordinateSpace": "window-relative-screenshot-pixels",
            "timestamp": self.timestamp,
        }


@dataclass(frozen=True)
class Shown:
    """How a result showed its state: the first view, a view where a diff was asked
    (``reason`` says why), or a diff with its ``changes``."""

    view: ViewKind
    changes: tuple[Mapping[str, object], ...] = ()
    reason: str | None = None

    def to_wire(self) -> Wire:
        """What the result says of the view after its own keys (nothing for a first view)."""
        if self.view == "diff":
            return {"changes": [dict(change) for change in self.changes]}
        return {} if self.reason is None else {"viewReason": self.reason}


@dataclass(frozen=True)
class StateSummary:
    """A saved state as a result returns it: its ids, its root, its size, the windowed
    containers it holds, its image's coordinate space, and how it was shown (the view
    text itself travels only in the result's text)."""

    state_id: str
    base_state_id: str | None
    target: RootView
    node_count: int
    shown: Shown
    windows: tuple[Windowed, ...] = ()
    capture: Capture | None = None

    @property
    def view(self) -> ViewKind:
        return self.shown.view

    def to_wire(self) -> Wire:
        out: Wire = {
            "stateId": self.state_id,
            "baseStateId": self.base_state_id,
            "view": self.view,
            "target": self.target.to_wire(),
            "nodeCount": self.node_count,
        }
        if self.windows:
            out["windows"] = [w.to_wire() for w in self.windows]
        out["status"] = "ok"
        if self.capture is not None:
            out["capture"] = self.capture.to_wire()
        return out


def news_wire(window_changes: tuple[RootDelta, ...]) -> Wire:
    """``windowChanges`` of a result, when it reports any."""
    return {"windowChanges": [d.to_wire() for d in window_changes]} if window_changes else {}


@dataclass(frozen=True)
class Where:
    """The window that decided a condition: it holds there (``held``), or an
    absent condition is still shown there."""

    held: bool
    ref: str
    title: str
    kind: str

    @property
    def key(self) -> str:
        return "satisfiedIn" if self.held else "shownIn"

    def to_wire(self) -> Wire:
        return {"ref": self.ref, "title": self.title, "kind": self.kind}


@dataclass(frozen=True)
class KeyboardFocus:
    """The element that has the keyboard focus after a transaction: where the next keys go."""

    ref: str
    role: str
    name: str

    def to_wire(self) -> Wire:
        return {"ref": self.ref, "role": self.role, "name": self.name}


@dataclass(frozen=True)
class StepError:
    code: str
    message: str

    def to_wire(self) -> Wire:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class BackgroundAttempt:
    """What the background delivery did before the one foreground retry."""

    outcome: Literal["didnt", "foreground_required"]
    reason: str

    def to_wire(self) -> Wire:
        return {"outcome": self.outcome, "reason": self.reason}


@dataclass(frozen=True)
class StepTrace:
    """One step of a transaction: what was sent, how, and what came of it.

    Delivered steps carry the policy fields (``background_first`` …); wait
    steps carry ``ms`` or ``until`` (with ``elapsed_ms`` and ``where``).
    """

    action: str
    outcome: Outcome
    ref: str | None = None
    ms: int | None = None
    until: UiCondition | None = None
    background_first: bool | None = None
    escalated: bool | None = None
    policy: DeliveryPolicy | None = None
    escalation_reason: EscalationReason | None = None
    background_attempt: BackgroundAttempt | None = None
    delivery: str | None = None
    mechanism: str = ""
    reason: str = ""
    evidence: Mapping[str, object] | None = None
    elapsed_ms: int | None = None
    where: Where | None = None
    error: StepError | None = None

    def to_wire(self) -> Wire:
        out: Wire = {"action": self.action}
        if self.ref:
            out["ref"] = self.ref
        if self.ms is not None:
            out["ms"] = self.ms
        if self.until is not None:
            out["until"] = condition_json(self.until)
        if self.background_first is not None:
            out["backgroundFirst"] = self.background_first
        if self.escalated is not None:
            out["escalatedToForeground"] = self.escalated
        # A foreground_required refusal came before any policy was recorded, so
        # its policy has always followed the escalation fields on the wire.
        late_policy = self.escalation_reason == "foreground_required"
        if self.policy is not None and not late_policy:
            out["deliveryPolicy"] = self.policy
        if self.escalation_reason is not None and self.background_attempt is not None:
            out["escalationReason"] = self.escalation_reason
            out["backgroundAttempt"] = self.background_attempt.to_wire()
        if self.policy is not None and late_policy:
            out["deliveryPolicy"] = self.policy
        out["outcome"] = self.outcome
        if self.delivery is not None:
            out["delivery"] = self.delivery
        if self.mechanism:
            out["mechanism"] = self.mechanism
        if self.reason:
            out["reason"] = self.reason
        if self.evidence:
            out["evidence"] = dict(self.evidence)
        if self.elapsed_ms is not None:
            out["elapsedMs"] = self.elapsed_ms
        if self.where is not None:
            out[self.where.key] = self.where.to_wire()
        if self.error is not None:
            out["error"] = self.error.to_wire()
        return out


@dataclass(frozen=True)
class Verification:
    """The check of ``expect`` after the steps (``skipped`` when they stopped early).

    ``closest`` is what the UI shows instead, for a failed check or an absent
    condition an opened window still shows; None when there is nothing to say.
    """

    status: VerificationStatus
    condition: UiCondition
    where: Where | None = None
    closest: tuple[str, ...] | None = None
    partly: tuple[PartShown, ...] = ()
    """Documents the check found no match in that expose only what is on screen."""
    scrolled: tuple[ReadNote, ...] = ()
    """Documents whose view the check scrolled to look at their pages."""

    def to_wire(self) -> Wire:
        out: Wire = {"status": self.status, **condition_json(self.condition)}
        if self.scrolled:
            out["scrolled"] = [note.json() for note in self.scrolled]
        if self.where is not None:
            out[self.where.key] = self.where.to_wire()
        if self.closest is not None:
            out["closest"] = list(self.closest)
        out.update(partly_wire(self.partly))
        return out


def exit_json(ended: ProcessExit) -> Wire:
    return {"pid": ended.pid, "code": ended.code, "signal": ended.signal, "log": ended.log or None}


@dataclass(frozen=True)
class NoSuccessor:
    """Why an act left no successor state, and the state it acted on.

    The steps were delivered: the agent must not repeat them (docs/design-notes.md §4).
    """

    status: Ended
    base_state_id: str
    target: RootView
    message: str
    exit: ProcessExit | None = None
    """How the application ended, when it did."""


@dataclass(frozen=True)
class Execution:
    """What a transaction did: its steps, where it stopped, the check, the root deltas,
    and what came after: the successor state, or why there is none.

    ``outcome`` is the reconciled outcome of the whole transaction
    (``actions.reconcile``); ``stopped_at`` the index of the step that
    stopped it; ``settled_by`` how the root deltas settled (``runtime.deltas.settle``).
    """

    outcome: Outcome
    steps: tuple[StepTrace, ...]
    stopped_at: int | None
    verification: Verification | None
    root_deltas: tuple[RootDelta, ...]
    settled_by: SettledBy
    after: StateSummary | NoSuccessor | None = None
    """The successor (``observation``) or why there is none (``ended``); None only while
    the transaction's text is written, before the successor is shown."""
    window_changes: tuple[RootDelta, ...] = ()
    """Other windows' changes since the last result, reported with the successor."""
    error: StepError | None = None
    """``postcondition_failed`` with what the UI shows instead, or why there is no successor."""
    focus: KeyboardFocus | None = None
    """The element of the successor with the keyboard focus, when the backend can tell."""

    @property
    def observation(self) -> StateSummary | None:
        """The successor state: its id, its root and how it was shown."""
        return self.after if isinstance(self.after, StateSummary) else None

    @property
    def ended(self) -> NoSuccessor | None:
        return self.after if isinstance(self.after, NoSuccessor) else None

    @property
    def escalated(self) -> StepTrace | None:
        """The first step that was escalated to the foreground, if one was."""
        return next((s for s in self.steps if s.escalated), None)

    @property
    def last_delivered(self) -> StepTrace | None:
        """The last step sent to the app (not a wait): whose delivery the act reports."""
        return next((s for s in reversed(self.steps) if s.delivery is not None), None)

    def to_wire(self) -> Wire:
        error = {"error": self.error.to_wire()} if self.error is not None else {}
        ran: Wire = {"execution": self._trace_wire(), "outcome": self.outcome}
        if isinstance(self.after, NoSuccessor):
            ended = self.after
            out: Wire = {
                "status": ended.status,
                "baseStateId": ended.base_state_id,
                "target": ended.target.to_wire(),
                **ran,
                **error,
            }
            if ended.exit is not None:
                out["exit"] = exit_json(ended.exit)
            return out
        if self.after is None:
            return {**ran, **error}
        successor = self.after
        return {
            **successor.to_wire(),
            **news_wire(self.window_changes),
            **ran,
            **error,
            **successor.shown.to_wire(),
        }

    def _trace_wire(self) -> Wire:
        """The ``execution`` object: the steps and what they add up to."""
        steps = self.steps
        out: Wire = {
            "outcome": self.outcome,
            "steps": [s.to_wire() for s in steps],
            "actionCount": len(steps),
            "stoppedAt": self.stopped_at,
            "backgroundFirst": all(s.background_first is not False for s in steps),
            "escalatedToForeground": self.escalated is not None,
            "verification": self.verification.to_wire() if self.verification else None,
            "rootDelta": [d.to_wire() for d in self.root_deltas],
            "settledBy": self.settled_by,
        }
        escalated = self.escalated
        if escalated is not None and escalated.background_attempt is not None:
            out["escalationReason"] = escalated.escalation_reason
            out["backgroundAttempt"] = escalated.background_attempt.to_wire()
        if self.focus is not None:
            out["focus"] = self.focus.to_wire()
        last = self.last_delivered
        if last is not None:
            out["delivery"] = last.delivery
            out["deliveryPolicy"] = last.policy
        return out


def match_wire(match: Match) -> Wire:
    return {
        "ref": match.ref,
        "role": match.role,
        "label": match.label,
        "labelInferred": match.inferred,
        "path": match.path,
        "matchReason": match.reason,
        "score": round(match.score, 3),
        "capabilities": list(match.caps),
        "actions": list(match.actions),
        **({"hidden": True} if match.hidden else {}),
    }


@dataclass(frozen=True)
class Found:
    """``search_ui``: the ranked matches in a state.

    When the search read what the state had left unread (rows of a big list,
    hidden pages), ``state_id`` is the successor it was read into,
    ``base_state_id`` the searched state, and ``unread`` what was read.
    """

    state_id: str
    result: SearchResult
    base_state_id: str | None = None
    unread: tuple[ReadNote, ...] = ()
    partly: tuple[PartShown, ...] = ()
    """Documents that expose only what is on screen, when nothing was found."""

    def to_wire(self) -> Wire:
        matches = self.result.matches
        out: Wire = {
            "stateId": self.state_id,
            "matches": [match_wire(m) for m in matches],
            "totalMatches": self.result.total,
            "returned": len(matches),
            "hasMore": self.result.total > len(matches),
        }
        if self.unread:
            out["baseStateId"] = self.base_state_id
            out["unread"] = [u.json() for u in self.unread]
        out.update(partly_wire(self.partly))
        return out
