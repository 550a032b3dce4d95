"""Replaying a workflow: each step re-found, gated and checked, stopping at the first difference.

For each step: wait for its window (app, kind, title, URL), observe it, resolve
every selector strictly (exactly one on-screen element, else stop before
anything is sent and name the candidates), then run the step as one
``act_ui`` with its ``require`` and ``expect``. The replay stops at the first
step that does not end ``worked`` with its check ``verified`` or
``preexisting``, and says side by side what the recording expected and what
the UI shows. It runs through the same tools an agent calls, so every rule of
``act_ui`` (stale states, honest outcomes, password fields) holds, and it
calls no model.

This module runs a workflow; reading the file is ``workflow``'s, printing a
summary the caller's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from actui.errors import ActuiError, InvalidParams
from actui.outline.conditions import condition_of, describe
from actui.outline.selectors import resolve
from actui.quoting import inline
from actui.results.typed import Execution, RootsFound, RootView, StepTrace, Wire
from actui.runtime.store import State
from actui.tools import contract
from actui.tools.dispatch import ToolBox
from actui.tools.workflow import Check, Step, Workflow, fill, tool_name, values_of

WINDOW_TIMEOUT_S = 10.0
"""How long a step waits for its window to be listed."""
LISTING_POLL_S = 0.1
"""How often the window listing is read while a step waits for its window: a listing
has no change event the tools can wait on across applications, so this is polled."""
SHOWN_CAP = 5
"""Windows named when a step's window is not found."""

Stop = Literal[
    "window_missing",
    "not_found",
    "ambiguous",
    "precondition_failed",
    "didnt",
    "unknown",
    "check_failed",
    "error",
]


@dataclass(frozen=True)
class WindowWanted:
    """A step's window with its variables filled in: what a listed root must be."""

    app: str
    kind: str
    title: str
    url: str = ""

    def describe(self) -> str:
        url = f" at {self.url}" if self.url else ""
        return f'{self.app} {self.kind} "{inline(self.title)}"{url}'

    def matches(self, root: RootView) -> bool:
        return (
            root.app == self.app
            and root.kind == self.kind
            and root.title == self.title
            and (not self.url or root.root.url == self.url)
        )


@dataclass(frozen=True)
class Divergence:
    """Where a replay stopped: the step, why, and what was expected beside what is shown."""

    step: int
    why: Stop
    message: str
    expected: tuple[str, ...]
    shown: tuple[str, ...]
    sent: bool
    """Whether this step's actions were sent (never, when it stopped before acting)."""

    def to_wire(self) -> Wire:
        return {
            "step": self.step,
            "why": self.why,
            "message": self.message,
            "expected": list(self.expected),
            "shown": list(self.shown),
            "sent": self.sent,
        }

    def lines(self) -> list[str]:
        """The side-by-side: the recording's expectation on the left, the UI on the right."""
        width = max([len("expected (recording)"), *(len(e) for e in self.expected)])
        rows = [f"  {'expected (recording)':<{width}} | the UI shows"]
        for i in range(max(len(self.expected), len(self.shown))):
            left = self.expected[i] if i < len(self.expected) else ""
            right = self.shown[i] if i < len(self.shown) else ""
            rows.append(f"  {left:<{width}} | {right}")
        sent = "its actions were sent" if self.sent else "nothing was sent in this step"
        return [f"stopped at step {self.step} ({self.why}): {self.message}; {sent}.", *rows]


RunStatus = Literal["verified", "resolved", "not_open_yet", "diverged"]


@dataclass(frozen=True)
class StepRun:
    """One step as replayed: its time beside the recorded act's, and how it ended."""

    step: int
    window: str
    ms: int
    recorded_ms: int
    status: RunStatus
    outcome: str | None = None
    check: str | None = None

    def to_wire(self) -> Wire:
        out: Wire = {
            "step": self.step,
            "window": self.window,
            "ms": self.ms,
            "recordedMs": self.recorded_ms,
            "status": self.status,
        }
        if self.outcome is not None:
            out["outcome"] = self.outcome
        if self.check is not None:
            out["check"] = self.check
        return out


@dataclass(frozen=True)
class Replayed:
    """A whole replay: the steps run, where it stopped (if it did), its time."""

    workflow: str
    steps: int
    runs: tuple[StepRun, ...]
    divergence: Divergence | None
    dry_run: bool
    ms: int
    recorded_ms: int

    @property
    def ok(self) -> bool:
        """Every step verified (a dry run: every step checked so far resolved)."""
        return self.divergence is None

    @property
    def reached(self) -> int:
        """The steps that ended verified (resolved, in a dry run)."""
        return sum(r.status in ("verified", "resolved") for r in self.runs)

    def to_wire(self) -> Wire:
        return {
            "workflow": self.workflow,
            "ok": self.ok,
            "dryRun": self.dry_run,
            "steps": self.steps,
            "reached": self.reached,
            "ms": self.ms,
            "recordedMs": self.recorded_ms,
            "runs": [r.to_wire() for r in self.runs],
            "divergence": self.divergence.to_wire() if self.divergence else None,
        }

    def text(self) -> str:
        what = "resolved" if self.dry_run else "verified"
        ratio = f"; {self.ms / self.recorded_ms:.2f}×" if self.recorded_ms else ""
        head = (
            f"replay {self.workflow}: {self.reached} of {self.steps} steps {what} in "
            f"{self.ms / 1000:.2f} s (the recorded act_ui calls: {self.recorded_ms / 1000:.2f} s"
            f"{ratio})"
        )
        lines = [head]
        for run in self.runs:
            ended = f"{run.outcome}, check {run.check}" if run.outcome else run.status
            lines.append(
                f"  step {run.step} {run.window}: {run.ms} ms "
                f"(recorded {run.recorded_ms} ms) {ended}"
            )
        if self.divergence is not None:
            lines += self.divergence.lines()
        return "\n".join(lines)


async def find_window(
    computer: ToolBox, wanted: WindowWanted, timeout_s: float = WINDOW_TIMEOUT_S
) -> tuple[RootView | None, tuple[RootView, ...]]:
    """The first listed window ``wanted`` describes, waited for up to ``timeout_s``;
    None and the windows listed last (of its app, else all) when none came."""
    deadline = time.monotonic() + timeout_s
    while True:
        listed = await _listed(computer, {"app": wanted.app})
        match = next((root for root in listed if wanted.matches(root)), None)
        if match is not None:
            return match, listed
        if time.monotonic() >= deadline:
            return None, listed or await _listed(computer, {})
        await asyncio.sleep(LISTING_POLL_S)


async def _listed(computer: ToolBox, query: dict[str, object]) -> tuple[RootView, ...]:
    found = (await computer.run("find_roots", query)).value
    return tuple(f.view for f in found.roots) if isinstance(found, RootsFound) else ()


class _Diverged(Exception):
    def __init__(self, divergence: Divergence) -> None:
        super().__init__(divergence.message)
        self.divergence = divergence


@dataclass
class _Run:
    """One replay in progress: the computer, the values, the options."""

    computer: ToolBox
    values: Mapping[str, str]
    dry_run: bool
    window_timeout_s: float
    last: State | None = None
    """The successor state the previous step's act returned."""

    def wanted(self, step: Step) -> WindowWanted:
        """The step's window with this run's values filled in."""
        window, values = step.window, self.values
        return WindowWanted(
            window.app, window.kind, fill(window.title, values), fill(window.url, values)
        )

    async def step(self, index: int, step: Step) -> StepRun:
        began = time.monotonic()
        wanted = self.wanted(step)

        def ran(status: RunStatus, done: Execution | None = None) -> StepRun:
            ms = round((time.monotonic() - began) * 1000)
            check = done.verification.status if done and done.verification else None
            outcome = done.outcome if done else None
            return StepRun(index, wanted.describe(), ms, step.recorded.ms, status, outcome, check)

        state = self._successor(wanted)
        if state is None:
            found = await self._window(index, wanted, ran)
            if isinstance(found, StepRun):
                return found
            state = found
        refs = self._resolved(index, step, state)
        if self.dry_run:
            return ran("resolved")
        done = await self._act(index, step, state, refs)
        after = done.observation
        self.last = self.computer.state(after.state_id) if after is not None else None
        return ran("verified", done)

    def _successor(self, wanted: WindowWanted) -> State | None:
        """The previous step's successor state when it is of this step's window: the
        freshest look there is, so the window is neither waited for nor observed again."""
        last, self.last = self.last, None
        if last is not None and wanted.matches(RootView(last.root_ref, last.root)):
            return last
        return None

    async def _window(
        self, index: int, wanted: WindowWanted, ran: Callable[[RunStatus], StepRun]
    ) -> State | StepRun:
        """A fresh look at the step's window, once it is listed."""
        timeout = 0.0 if self.dry_run and index > 1 else self.window_timeout_s
        root, listed = await find_window(self.computer, wanted, timeout)
        if root is None:
            if self.dry_run and index > 1:
                return ran("not_open_yet")
            shown = [f'{r.app} {r.kind} "{inline(r.title)}"' for r in listed[:SHOWN_CAP]]
            raise _Diverged(
                Divergence(
                    index,
                    "window_missing",
                    f"no window matched within {self.window_timeout_s:g} s",
                    (wanted.describe(),),
                    tuple(shown) or ("no window",),
                    sent=False,
                )
            )
        return await self.computer.look(root.ref)

    def _resolved(self, index: int, step: Step, state: State) -> dict[int, str]:
        """Each selector's ref in ``state``, by ``id()``; the first that is not exactly one
        element stops the replay here."""
        refs: dict[int, str] = {}
        for selector in step.selectors():
            found = resolve(state.outline, selector)
            if found.node is None:
                why: Stop = "ambiguous" if found.why == "ambiguous" else "not_found"
                message = (
                    "more than one element matched and the recorded index cannot tell them apart"
                    if why == "ambiguous"
                    else "no element matched"
                )
                shown = found.candidates or ("nothing like it on screen",)
                raise _Diverged(
                    Divergence(index, why, message, (selector.describe(),), shown, sent=False)
                )
            refs[id(selector)] = found.node.ref
        return refs

    def _condition(self, check: Check | None, refs: Mapping[int, str]) -> dict[str, object] | None:
        if check is None:
            return None
        wire = check.wire(refs)
        for key in ("text", "value"):
            if isinstance(wire.get(key), str):
                wire[key] = fill(str(wire[key]), self.values)
        return wire

    async def _act(
        self, index: int, step: Step, state: State, refs: Mapping[int, str]
    ) -> Execution:
        actions = []
        for act in step.actions:
            wire = act.wire(refs)
            if act.text is not None:
                wire["text"] = fill(act.text, self.values)
            if act.until is not None:
                wire["until"] = self._condition(act.until, refs)
            actions.append(wire)
        args: dict[str, object] = {"stateId": state.state_id, "actions": actions}
        for key, check in (("require", step.require), ("expect", step.expect)):
            condition = self._condition(check, refs)
            if condition is not None:
                args[key] = condition
        try:
            result = await self.computer.run("act_ui", args)
        except ActuiError as exc:
            why: Stop = "precondition_failed" if exc.code == "precondition_failed" else "error"
            expected = _described(step.require, args.get("require")) if step.require else ()
            sent = why != "precondition_failed"
            raise _Diverged(
                Divergence(index, why, exc.code, expected, (inline(exc.message),), sent)
            ) from None
        done = result.value
        if not isinstance(done, Execution):
            raise TypeError(f"act_ui returned {done!r}")
        self._judge(index, step, done, args.get("expect"))
        return done

    def _judge(self, index: int, step: Step, done: Execution, expect: object) -> None:
        check = done.verification.status if done.verification else None
        if done.outcome == "worked" and check in ("verified", "preexisting"):
            return
        if check == "failed":
            assert done.verification is not None
            shown = done.verification.closest or ("nothing like it",)
            expected = _described(step.expect, expect)
            raise _Diverged(
                Divergence(index, "check_failed", "the postcondition failed", expected, shown, True)
            )
        # worked without a confirmed check is not verified either: it stops as unknown
        why: Stop = "didnt" if done.outcome == "didnt" else "unknown"
        recorded = step.recorded.traces
        expected = (
            *(f"{t.action}: {t.outcome}" for t in recorded),
            f"check {step.recorded.check or 'of the recorded effect'}: verified",
        )
        shown = (*(_trace_line(t) for t in done.steps), f"check {check}")
        at = f" at action {done.stopped_at + 1}" if done.stopped_at is not None else ""
        raise _Diverged(
            Divergence(index, why, f"the act ended {done.outcome}{at}", expected, shown, True)
        )


def _trace_line(trace: StepTrace) -> str:
    why = trace.reason or (trace.error.message if trace.error else "")
    return f"{trace.action}: {trace.outcome}" + (f" ({inline(why)})" if why else "")


def _described(check: Check | None, wire: object) -> tuple[str, ...]:
    """A check as a person reads it: the condition, its selectors named where it had refs."""
    if check is None or not isinstance(wire, dict):
        return ()
    condition = condition_of(contract.Condition.model_validate(wire))
    target = check.target.describe() if check.target is not None else condition.ref
    scope = check.scope.describe() if check.scope is not None else condition.scope_ref
    return (describe(replace(condition, ref=target, scope_ref=scope)),)


async def replay(
    computer: ToolBox,
    workflow: Workflow,
    given: Mapping[str, str] | None = None,
    *,
    dry_run: bool = False,
    window_timeout_s: float = WINDOW_TIMEOUT_S,
) -> Replayed:
    """Run ``workflow`` with the ``given`` variables (the recorded values otherwise).

    A missing secret or an unknown variable raises ``InvalidParams`` before
    anything is sent; a divergence is the result's, not an exception.
    """
    values = values_of(workflow, given or {})
    run = _Run(computer, values, dry_run, window_timeout_s)
    began = time.monotonic()
    runs: list[StepRun] = []
    divergence: Divergence | None = None
    for index, step in enumerate(workflow.steps, 1):
        started = time.monotonic()
        try:
            runs.append(await run.step(index, step))
        except _Diverged as stop:
            divergence = stop.divergence
            took = round((time.monotonic() - started) * 1000)
            where = run.wanted(step).describe()
            runs.append(StepRun(index, where, took, step.recorded.ms, "diverged"))
            break
        if runs[-1].status == "not_open_yet":
            break
    ms = round((time.monotonic() - began) * 1000)
    return Replayed(
        workflow.name,
        len(workflow.steps),
        tuple(runs),
        divergence,
        dry_run,
        ms,
        workflow.recorded_ms,
    )


def parse_vars(pairs: Sequence[str]) -> dict[str, str]:
    """``name=value`` pairs (``--var``) as a mapping; a pair without ``=`` is named."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not name:
            raise InvalidParams(
                "--var", f"{pair!r} is not name=value.", "Write e.g. --var email=a@b.c."
            )
        values[name] = value
    return values


def tool_spec(workflow: Workflow) -> dict[str, object]:
    """The workflow as an MCP tool: its variables as string parameters (a secret one
    required), and the replay's shape as its output schema."""
    properties = {
        v.name: {
            "type": "string",
            "description": "secret: never recorded" if v.secret else f"recorded: {v.default!r}",
        }
        for v in workflow.variables
    }
    required = [v.name for v in workflow.variables if v.default is None]
    windows = " → ".join(
        dict.fromkeys(f"{s.window.app} {s.window.title!r}" for s in workflow.steps)
    )
    return {
        "name": tool_name(workflow),
        "description": (
            f"Replay the recorded workflow {workflow.name!r} ({len(workflow.steps)} steps: "
            f"{windows}); each step re-found and checked, stopping at the first difference."
        ),
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
        "outputSchema": REPLAYED_SCHEMA,
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": False,
            "openWorldHint": True,
        },
    }


_TEXTS = {"type": "array", "items": {"type": "string"}}
REPLAYED_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "workflow": {"type": "string"},
        "ok": {"type": "boolean"},
        "dryRun": {"type": "boolean"},
        "steps": {"type": "integer"},
        "reached": {"type": "integer", "description": "Steps that ended verified."},
        "ms": {"type": "integer"},
        "recordedMs": {"type": "integer"},
        "runs": {"type": "array", "items": {"type": "object"}},
        "divergence": {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "properties": {
                        "step": {"type": "integer"},
                        "why": {"type": "string"},
                        "message": {"type": "string"},
                        "expected": _TEXTS,
                        "shown": _TEXTS,
                        "sent": {"type": "boolean"},
                    },
                    "required": ["step", "why", "message", "expected", "shown", "sent"],
                },
            ]
        },
    },
    "required": ["workflow", "ok", "steps", "reached", "runs", "divergence"],
}
"""The structured result of a workflow tool (:meth:`Replayed.to_wire`)."""
