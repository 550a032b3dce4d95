"""``wait_for``: wait until a condition holds on a saved state's root, then show the change.

The wait itself is the observation service's (event-driven, polling as the
fallback); this module says what came of it: met or timed out with what was
closest, and the successor as a diff. A window that closed makes ``absent``
come true with no successor.
"""

from __future__ import annotations

import time

from actui.backends.base import RootInfo
from actui.errors import TargetGone
from actui.outline.conditions import (
    UiCondition,
    check_scope,
    closest,
    condition_of,
    describe,
)
from actui.outline.documents import condition_notes, unmatched_in
from actui.quoting import inline, quote
from actui.results.observations import WaitReport, WindowClosed
from actui.results.rendering import Renderer, observation
from actui.results.schemas import BOOLEAN, OBSERVATION, shape
from actui.results.tool_result import ToolResult
from actui.results.typed import TITLE_CAP
from actui.runtime.observer import Observer
from actui.tools.contract import READS_ON_DEMAND, Condition, StateId, Tool, ToolParams


class WaitFor(Condition, ToolParams):
    stateId: StateId


async def wait_for(observer: Observer, renderer: Renderer, p: WaitFor) -> ToolResult:
    state = observer.state(p.stateId)
    cond = condition_of(p)
    check_scope(cond, state.outline, field="")
    started = time.monotonic()
    try:
        root = await observer.resolve(state.root)
        waited = await observer.wait(state, root, cond)
    except TargetGone as exc:
        if cond.until != "absent":
            raise
        # Nothing is shown by a window that closed: the absence came true.
        return _gone_with_window(renderer, state.root_ref, state.root, cond, started, exc)
    successor = observer.save(waited.snapshot, waited.outline, waited.epoch, base=state)
    verb = "disappeared" if cond.until == "absent" else "appeared"
    head = (
        f"{describe(cond)} {verb} after {waited.elapsed_ms} ms"
        if waited.satisfied
        else f"timed out after {waited.elapsed_ms} ms waiting for {describe(cond)}"
    )
    if not waited.satisfied:
        near = closest(cond, waited.outline)
        if near:
            head += "; closest: " + "; ".join(near)
    partly = () if waited.evaluation.present else unmatched_in(cond, waited.outline)
    head = "\n".join([head, *condition_notes(cond, partly)])
    news, changes = renderer.window_news(root.pid)
    above = "\n".join([head, *news])
    body, shown = renderer.diff_text(state, successor, above)
    if waited.reached:
        body += f"\nread on demand into stateId {successor.state_id}:\n"
        body += "\n".join(r.note(successor.state_id) for r in waited.reached)
    result = WaitReport(
        observation(successor, shown),
        cond,
        found=waited.satisfied,
        elapsed_ms=waited.elapsed_ms,
        checks=waited.checks,
        waited_by="events" if waited.event_driven else "polling",
        matches=tuple(waited.evaluation.matches),
        window_changes=changes,
        unread=tuple(waited.reached),
        partly=partly,
    )
    return ToolResult(f"{above}\n{body}", result)


def _gone_with_window(
    renderer: Renderer,
    ref: str,
    root: RootInfo,
    cond: UiCondition,
    started: float,
    exc: TargetGone,
) -> ToolResult:
    elapsed = round((time.monotonic() - started) * 1000)
    text = (
        f"{describe(cond)} disappeared after {elapsed} ms: its window {ref} "
        f"{quote(root.title, TITLE_CAP)} closed. No successor state exists: "
        "run find_roots, then observe_ui."
    )
    news, changes = renderer.window_news(root.pid)
    closed = WindowClosed(cond, elapsed, inline(exc.message), changes)
    return ToolResult("\n".join([text, *news]), closed)


WAIT_FOR = Tool(
    "wait_for",
    WaitFor,
    "Wait until a condition holds (or is gone); returns a new state either way.",
    lambda s, p: wait_for(s.observer, s.renderer, p),
    shape(
        ("found", "gone", "timedOut"),
        **OBSERVATION,
        found=BOOLEAN,
        gone=BOOLEAN,
        timedOut=BOOLEAN,
    ),
    reference=READS_ON_DEMAND,
)
