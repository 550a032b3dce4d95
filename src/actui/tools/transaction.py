"""``act_ui``: one transaction on one state, from validation to successor.

Order matters and is the contract: validate everything, reject a stale state
before anything is sent, wait for ``require`` (nothing delivered, no epoch
consumed if it fails), run the steps in the resource's lane stopping at the
first ``didnt``, check ``expect``, settle root deltas, then observe the
successor — or report the terminal result when the target closed. ``expect``
and ``wait`` steps confined to no element are also met in the windows the
steps opened (a dialog), and say which window met them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from pydantic import Field

from actui.backends.base import ProcessExit, RootInfo, Snapshot
from actui.config import Config
from actui.deadlines import Deadline, poll
from actui.errors import ActuiError, PreconditionFailed, TargetGone
from actui.outline.conditions import (
    UiCondition,
    check_scope,
    closest,
    condition_of,
    describe,
    refuse_secrets,
)
from actui.outline.conditions import evaluate as evaluate_condition
from actui.outline.diff import Changes
from actui.outline.documents import condition_notes, unmatched_in
from actui.outline.model import Outline
from actui.quoting import inline, quote
from actui.results.rendering import Renderer, observation
from actui.results.schemas import ERROR_INFO, EXECUTION, OBSERVATION, OUTCOME, shape
from actui.results.tool_result import ToolResult
from actui.results.typed import (
    TITLE_CAP,
    Ended,
    Execution,
    KeyboardFocus,
    NoSuccessor,
    RootView,
    StepError,
    StepTrace,
    Verification,
    VerificationStatus,
    Where,
    as_outcome,
)
from actui.results.views import focus_line, root_delta_lines, trace_summary
from actui.runtime.deltas import SETTLE_WINDOW_S, RootDelta, SettledBy, root_deltas, settle
from actui.runtime.imaging import scale_of
from actui.runtime.observer import Observer
from actui.runtime.reaching import PagesScanned
from actui.runtime.roots import match_root
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import State
from actui.runtime.waiting import WaitResult, observed_outline
from actui.tools.actions import (
    Prepared,
    aggregate,
    changed_refs,
    credited,
    deliver,
    prepare,
    reconcile,
)
from actui.tools.contract import (
    MAX_ACTIONS,
    READS_ON_DEMAND,
    WRITES,
    ActionStep,
    Condition,
    StateId,
    Tool,
    ToolParams,
)
from actui.tools.session import Session

CLOSING_S = 1.0
CLOSING_POLL_S = 0.05
"""How long, and how often, a window whose read failed is watched for leaving the listing."""
OPENED_CAP = 8
"""Opened windows read per check of a condition: a burst of popups must not stall a wait."""


class ActUi(ToolParams):
    stateId: StateId
    actions: list[ActionStep] = Field(
        min_length=1,
        max_length=MAX_ACTIONS,
        description="Steps run in order; stops at first failure.",
    )
    expect: Condition | None = Field(
        None,
        description="Postcondition checked after the steps; without ref or scopeRef it is "
        "also met in windows the steps opened (the result names the window).",
    )
    require: Condition | None = Field(
        None, description="Precondition; nothing runs unless it holds."
    )


@dataclass(frozen=True)
class Seen:
    """A successor observation and the epoch of its resource when it was taken."""

    snapshot: Snapshot
    outline: Outline
    epoch: int


def _condition(raw: Condition | None, field: str, state: State) -> UiCondition | None:
    """A contract condition as a checked ``UiCondition`` whose refs are ``state``'s."""
    if raw is None:
        return None
    cond = condition_of(raw)
    check_scope(cond, state.outline, field=field)
    return cond


@dataclass(frozen=True)
class Parts:
    """What a transaction works through, each part for one job."""

    observer: Observer
    """Resolves, takes, waits and saves (and names each root's backend)."""
    renderer: Renderer
    """Writes the result's text."""
    lanes: Scheduler
    """The resource lanes: the stale write refused, the steps run as one write."""
    ref_for: Callable[[RootInfo], str]
    """A root's ``@r`` ref."""
    told: Callable[[Sequence[RootInfo], set[int]], None]
    """Records which processes' windows the result reported (``Announced.shown``)."""
    exit_of: Callable[[int], Awaitable[ProcessExit | None]]
    """How a process ended, once its root vanished."""
    config: Config
    """The configuration of this call."""

    @classmethod
    def of(cls, s: Session) -> Parts:
        """The parts a transaction needs of the session."""
        return cls(
            observer=s.observer,
            renderer=s.renderer,
            lanes=s.lanes,
            ref_for=s.roots.ref_for,
            told=s.announced.shown,
            exit_of=s.backends.exit_of,
            config=s.backends.config(),
        )


async def act_ui(parts: Parts, p: ActUi) -> ToolResult:
    return await Transaction(parts, p).run()


class Transaction:
    """The phases of one ``act_ui`` call; each method is one phase."""

    def __init__(self, parts: Parts, p: ActUi) -> None:
        self.parts = parts
        self.observer = observer = parts.observer
        self.p = p
        self.state = observer.state(p.stateId)
        self.config = parts.config
        self.headless = self.config.headless
        self.expect = _condition(p.expect, "expect", self.state)
        self.require = _condition(p.require, "require", self.state)
        self.waits = [
            _condition(step.until, f"actions[{i}].until", self.state)
            for i, step in enumerate(p.actions)
        ]
        self.prepared = self._prepare()
        self._refuse_secrets()
        self.steps: list[StepTrace] = []
        self.stopped_at: int | None = None
        self.root = self.state.root
        """The acted-on root as resolved just before the steps."""
        self.before: list[RootInfo] = []
        self.after: list[RootInfo] = []
        self.began = self.last_sent = time.monotonic()
        """When the steps began, and when the last step was sent (the settle window's start)."""
        self.settled_by: SettledBy = "none"
        """How root deltas settled: ``events`` (the app went quiet), ``window`` (the fixed
        window), ``launch`` (a started process's window was waited for) or ``none``."""

    def _refuse_secrets(self) -> None:
        """No condition may repeat text this call sends to a password field (it would be echoed)."""
        outline = self.state.outline
        focused = [n for n in outline if "focused" in n.states]
        secrets = []
        for item in self.prepared:
            if item is None or not item.request.text:
                continue
            targets = [outline.get(item.ref)] if item.ref else focused
            if any(node is not None and node.secure for node in targets):
                secrets.append(item.request.text)
        named = [(self.expect, "expect"), (self.require, "require")]
        named += [(wait, f"actions[{i}].until") for i, wait in enumerate(self.waits)]
        for cond, field in named:
            if secrets and cond is not None:
                refuse_secrets(cond, secrets, field=field)

    def _prepare(self) -> list[Prepared | None]:
        """Resolve every step's target before anything is sent (wait steps: None)."""
        focus = False
        prepared: list[Prepared | None] = []
        for index, step in enumerate(self.p.actions):
            if step.action == "wait":
                prepared.append(None)
                continue
            item = prepare(step, index, self.state, headless=self.headless, focus_established=focus)
            clicked = item.request.kind == "click" and item.request.point is not None
            focus = focus or item.establishes_focus or (not self.headless and clicked)
            prepared.append(item)
        return prepared

    async def run(self) -> ToolResult:
        observer, state = self.observer, self.state
        self.parts.lanes.check_current(state.resource_key, state.epoch)
        observer.check_document(state)
        if self.require is not None:
            await self._gate(await observer.resolve(state.root), self.require)
        await self.parts.lanes.write(
            state.resource_key, state.epoch, lambda _: self._steps(), first=self._listed_before
        )
        root = self.root
        stopped = self.stopped_at is not None
        outcome = aggregate([s.outcome for s in self.steps], stopped)
        try:
            verification, seen = await self._verify(root, stopped)
            deltas = await self._settle(verification)
            if seen is None:
                after = match_root(root, self.after)
                snapshot, epoch = await observer.snapshot_at_epoch(after, state.resource_key)
                seen = Seen(
                    snapshot, observed_outline(snapshot, state.outline, scale_of(state)), epoch
                )
        except TargetGone as exc:
            return await self._terminal(outcome, exc, "target_closed")
        except ActuiError as exc:
            if await self._closing(root):
                gone = TargetGone(f"{state.root_ref} closed during the transaction")
                return await self._terminal(outcome, gone, "target_closed")
            # Delivered, but the result could not be observed: say so, never a bare error
            # that invites a retry (docs/design-notes.md §4).
            return await self._terminal(outcome, exc, "post_action_observation_failed")
        check = verification.status if verification else None
        changes = self.parts.renderer.changes(state, seen.outline)
        focus = None
        if not stopped and seen.snapshot.root.accessibility != "not_answering":
            # an unread tree's diff shows what was not seen, not what changed
            focused = frozenset(n.ref for n in state.outline if "focused" in n.states)
            self.steps = credited(self.steps, changed_refs(changes), check == "verified", focused)
            outcome = aggregate([s.outcome for s in self.steps], stopped)
            focus = await self._focus(root, seen.outline)
        return self._result(
            root, reconcile(outcome, check, stopped), verification, deltas, seen, changes, focus
        )

    def _menu_command(self) -> bool:
        """Whether a step ran an item of a menu (its end gives the focus back)."""
        outline = self.state.outline
        for step in self.steps:
            node = outline.get(step.ref) if step.ref else None
            if node is None or node.role == "menu" or step.action not in ("click", "press"):
                continue  # a submenu opens, it runs nothing
            up = outline.get(node.parent) if node.parent else None
            if node.role == "menuitem" or (up is not None and up.role == "menu"):
                return True
        return False

    async def _focus(self, root: RootInfo, outline: Outline) -> KeyboardFocus | None:
        """The successor's element with the keyboard focus, if the backend can tell and
        the successor holds it (a menu command leaves it in the document, not the menu)."""
        try:
            element = await self.observer.backend_for(root).keyboard_focus(root)
        except ActuiError:
            return None
        node = next((n for n in outline if element and n.wire == element), None)
        if node is None:
            return None
        return KeyboardFocus(node.ref, node.role, node.name if node.secure else node.label)

    async def _closing(self, root: RootInfo) -> bool:
        """Whether a read failed because the window was being destroyed under it.

        Its elements vanish before the window leaves the listing (GTK 4's Save As
        dialog after Save), so the listing is asked for up to :data:`CLOSING_S`.
        """
        backend = self.observer.backend_for(root)

        async def gone() -> bool | None:
            """True once the window left the listing, False when none can be had."""
            try:
                listed = await backend.list_roots()
            except ActuiError:
                return False
            return True if all(r.native_id != root.native_id for r in listed) else None

        return await poll(gone, Deadline(CLOSING_S), CLOSING_POLL_S) is True

    async def _gate(self, root: RootInfo, require: UiCondition) -> None:
        """``require`` must hold in time, or nothing is sent and the epoch stays."""
        held = await self.observer.wait(self.state, root, require)
        if not held.satisfied:
            near = closest(require, held.outline)
            partly = () if held.evaluation.present else unmatched_in(require, held.outline)
            notes = condition_notes(require, partly)
            raise PreconditionFailed(describe(require), require.timeout_ms, near, notes)

    def _launched(self) -> list[int]:
        """Processes the acted-on application started since the steps began."""
        root = self.state.root
        return self.observer.backend_for(root).started_processes(root, self.began)

    async def _listed_before(self) -> None:
        """The listing just before the steps, in the lane: the root deltas' "before",
        and where the root is resolved (one listing, not two). A root that closed
        refuses the write before the epoch moves."""
        self.before = await self.observer.backend_for(self.root).list_roots()
        self.root = self.observer.resolved(self.root, self.before)

    async def _steps(self) -> None:
        """Deliver the steps in order inside the lane; stop at the first ``didnt``."""
        root = self.root
        backend = self.observer.backend_for(root)
        self.began = self.last_sent = time.monotonic()
        for index, step in enumerate(self.p.actions):
            item = self.prepared[index]
            if item is None:
                try:
                    trace = await self._wait_step(root, step.ms, self.waits[index])
                except ActuiError as exc:
                    error = StepError(exc.code, exc.message)
                    trace = StepTrace(action="wait", outcome="didnt", error=error)
            else:
                item = replace(item, request=replace(item.request, root=root))
                self.last_sent = time.monotonic()
                trace = await deliver(
                    backend, item, headless=self.headless, policy=self.config.delivery_policy
                )
            self.steps.append(trace)
            if trace.outcome == "didnt":
                self.stopped_at = index
                return

    async def _wait_step(
        self, root: RootInfo, ms: int | None, cond: UiCondition | None
    ) -> StepTrace:
        if cond is None:
            await asyncio.sleep((ms or 0) / 1000)
            return StepTrace(action="wait", outcome="worked", ms=ms)
        waited = await self.observer.wait(self.state, root, cond, in_lane=True, opened=self._opened)
        timeout = StepError("timeout", f"timed out waiting for {describe(cond)}")
        return StepTrace(
            action="wait",
            outcome="worked" if waited.satisfied else "didnt",
            until=cond,
            elapsed_ms=waited.elapsed_ms,
            where=self._where(root, waited),
            error=None if waited.satisfied else timeout,
        )

    async def _verify(
        self, root: RootInfo, stopped: bool
    ) -> tuple[Verification | None, Seen | None]:
        """The postcondition: verified, preexisting, failed — or skipped after a stop."""
        expect = self.expect
        if expect is None:
            return None, None
        if stopped:
            return Verification("skipped", expect), None
        preexisting = evaluate_condition(expect, self.state.outline).satisfied
        waited = await self.observer.wait(self.state, root, expect, opened=self._opened)
        if waited.met_in is not None:
            preexisting = False  # the window that shows it is new
        status: VerificationStatus = (
            ("preexisting" if preexisting else "verified") if waited.satisfied else "failed"
        )
        where = self._where(root, waited)
        instead: tuple[str, ...] | None = None
        if where is not None and not where.held:
            title = quote(where.title, TITLE_CAP)
            instead = (f"{where.ref} {where.kind} {title} still shows it",)
        elif status == "failed":
            instead = tuple(closest(expect, waited.outline))
        partly = () if waited.evaluation.present else unmatched_in(expect, waited.outline)
        scrolled = tuple(r for r in waited.reached if isinstance(r, PagesScanned))
        verification = Verification(status, expect, where, instead, partly, scrolled)
        return verification, Seen(waited.snapshot, waited.outline, waited.epoch)

    async def _opened(self) -> list[Snapshot]:
        """Snapshots of the windows listed now that were not listed before the steps.

        A window that closes while it is read is left out: it shows nothing.
        """
        backend = self.observer.backend_for(self.root)
        known = {r.native_id for r in self.before} | {self.root.native_id}
        fresh = [r for r in await backend.list_roots() if r.native_id not in known]
        snapshots: list[Snapshot] = []
        for root in fresh[:OPENED_CAP]:
            try:
                snapshots.append(await self.observer.snapshot(root))
            except ActuiError:
                continue
        return snapshots

    def _where(self, root: RootInfo, waited: WaitResult) -> Where | None:
        """Which window decided a condition: the one where it held, else the opened
        window that still shows an absent condition; None when neither."""
        if not waited.satisfied and waited.met_in is None:
            return None
        window = waited.met_in or root
        ref = self.parts.ref_for(window)
        return Where(waited.satisfied, ref, window.title, window.kind)

    async def _settle(self, verification: Verification | None) -> list[RootDelta]:
        """Root deltas; a verified check has already waited, so it needs no settle window."""
        root = self.state.root
        backend = self.observer.backend_for(root)
        settled = verification is not None and verification.status in ("verified", "preexisting")
        quiet_s = backend.settle_quiet_s(root)

        async def went_quiet(limit_s: float) -> bool:
            assert quiet_s is not None
            mark = backend.change_mark(root)
            silent = await backend.wait_for_change(root, mark, min(quiet_s, limit_s)) == mark
            return silent and limit_s >= quiet_s

        self.after, self.settled_by = await settle(
            self.before,
            backend.list_roots,
            window_s=0.0 if settled else SETTLE_WINDOW_S,
            since=self.last_sent,
            went_quiet=went_quiet if quiet_s is not None else None,
            # a verified expect says when the work is done: no waiting for new processes
            launched=None if settled else self._launched,
        )
        deltas = root_deltas(self.before, self.after, self.parts.ref_for)
        if any(d.change == "closed" and d.ref == self.state.root_ref for d in deltas):
            raise TargetGone(f"{self.state.root_ref} closed during the transaction")
        return deltas

    def _execution(
        self, outcome: str, verification: Verification | None, deltas: list[RootDelta]
    ) -> Execution:
        steps, stopped, settled = tuple(self.steps), self.stopped_at, self.settled_by
        return Execution(as_outcome(outcome), steps, stopped, verification, tuple(deltas), settled)

    def _result(
        self,
        root: RootInfo,
        outcome: str,
        verification: Verification | None,
        deltas: list[RootDelta],
        seen: Seen,
        changes: Changes,
        focus: KeyboardFocus | None,
    ) -> ToolResult:
        state, renderer, ref_for = self.state, self.parts.renderer, self.parts.ref_for
        execution = replace(self._execution(outcome, verification, deltas), focus=focus)
        successor = self.observer.save(seen.snapshot, seen.outline, seen.epoch, base=state)
        check = f"; check {verification.status}" if verification else ""
        met = verification.where if verification else None
        if met is not None and met.held and met.ref != ref_for(root):
            check += f" in {met.ref} {met.kind} {quote(met.title, TITLE_CAP)}"
        news, window_changes = renderer.window_news(root.pid)
        head = [
            f"act_ui {renderer.named(ref_for(root), root)}: {_ran(self.steps, self.p.actions)}"
            f"outcome {outcome}{check}",
            *trace_summary(execution),
            *news,
            *root_delta_lines(deltas),
            *focus_line(focus, state.outline, self._menu_command()),
        ]
        # the deltas told the agent about these processes' windows
        told = {root.pid} | {d.pid for d in deltas}
        self.parts.told(self.after, told)
        error = None
        if verification and verification.status == "failed" and self.expect is not None:
            shown = verification.closest
            message = f"postcondition_failed: expected {describe(self.expect)}" + (
                "; the UI shows instead: " + "; ".join(shown) if shown else ""
            )
            head.append(message)
            error = StepError("postcondition_failed", message)
        if verification is not None:
            head += condition_notes(verification.condition, verification.partly)
            head += [note.note(successor.state_id) for note in verification.scrolled]
        above = "\n".join(head)
        body, view = renderer.diff_text(state, successor, above, changes)
        execution = replace(
            execution,
            after=observation(successor, view),
            window_changes=window_changes,
            error=error,
        )
        return ToolResult(f"{above}\n{body}", execution)

    async def _terminal(self, outcome: str, exc: ActuiError, status: Ended) -> ToolResult:
        """No successor: the window closed, or the result could not be observed.

        See docs/design-notes.md §4.
        """
        state, expect = self.state, self.expect
        closed = status == "target_closed"
        deltas = await self._closing_deltas() if closed else []
        verification = None
        if expect is not None and closed:
            check: VerificationStatus = "verified" if expect.until == "absent" else "failed"
            verification = Verification(check, expect)
            outcome = reconcile(outcome, check, self.stopped_at is not None)
        execution = self._execution(outcome, verification, deltas)
        what = "closed" if closed else f"could not be observed afterwards ({exc.message})"
        ended = await self.parts.exit_of(state.root.pid) if closed else None
        if ended is not None:  # a crash is not a window that closed
            status = "app_exited" if ended.crashed else status
            what = f"{'is gone' if ended.crashed else 'closed'}: its application {ended.describe()}"
        text = "\n".join(
            [
                f"act_ui: {self._delivered()} and {state.root_ref} "
                f"{quote(state.root.title, TITLE_CAP)} {inline(what)}; outcome {outcome}. "
                "No successor state exists: "
                "do not repeat the actions; run find_roots, then observe_ui.",
                *trace_summary(execution),
                *root_delta_lines(deltas),
            ]
        )
        target = RootView(state.root_ref, state.root)
        gone = NoSuccessor(status, state.state_id, target, exc.message, ended)
        return ToolResult(
            text, replace(execution, after=gone, error=StepError(status, exc.message))
        )

    def _delivered(self) -> str:
        """What became of the steps, as the start of the sentence of a transaction that
        has no successor: all delivered, or which one failed."""
        asked, failed = len(self.p.actions), self.stopped_at
        if failed is not None:
            before = f", after {failed} delivered" if failed else ""
            return f"step {failed + 1} of {asked} failed{before},"
        if len(self.steps) < asked:
            return f"{len(self.steps)} of {asked} steps were delivered"
        return "the actions were delivered"

    async def _closing_deltas(self) -> list[RootDelta]:
        """Deltas when the acted-on root closed; its ``closed`` entry is always there."""
        state, refs = self.state, self.parts.ref_for
        try:
            after, _ = await settle(
                self.before,
                self.observer.backend_for(state.root).list_roots,
                launched=self._launched,
            )
        except ActuiError:
            after = [r for r in self.before if r.native_id != state.root.native_id]
        deltas = root_deltas(self.before, after, refs)
        if not any(d.change == "closed" and d.ref == state.root_ref for d in deltas):
            deltas = root_deltas([state.root], [], refs) + deltas
        return deltas


def _ran(steps: Sequence[object], asked: Sequence[object]) -> str:
    """``2 of 3 steps run; `` when a transaction stopped early; nothing when all ran."""
    return "" if len(steps) == len(asked) else f"{len(steps)} of {len(asked)} steps run; "


ACT_UI = Tool(
    "act_ui",
    ActUi,
    "Run 1-20 steps on a state as one transaction, with optional require/expect "
    "conditions. Returns outcome worked/didnt/unknown, the check, and a diff + new stateId.",
    lambda s, p: act_ui(Parts.of(s), p),
    shape(
        ("execution", "outcome"),
        **OBSERVATION,
        execution=EXECUTION,
        outcome=OUTCOME,
        error=ERROR_INFO,
    ),
    WRITES,
    reference=READS_ON_DEMAND,
)
