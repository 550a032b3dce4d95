"""``wait_for``: wait until a condition holds on a saved state's root, then show the change.

The wait itself is the observation service's (event-driven, polling as the
fallback); this module says what came of it: met or timed out with what was
closest, and the successor as a diff. A window that closed makes ``absent``
come true with no successor.
"""

from __future__ import annotations

import time
from typing import Any

from actui import contract
from actui.backends.base import RootInfo
from actui.conditions import (
    UiCondition,
    check_scope,
    closest,
    condition_json,
    condition_of,
    describe,
)
from actui.errors import TargetGone
from actui.observer import Observer
from actui.quoting import inline, quote
from actui.rendering import Renderer, observation_details
from actui.results import TITLE_CAP
from actui.tool_result import ToolResult


async def wait_for(observer: Observer, renderer: Renderer, p: contract.WaitFor) -> ToolResult:
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
    details = observation_details(successor, "diff")
    details.update(
        found=waited.satisfied,
        gone=waited.satisfied and cond.until == "absent",
        timedOut=not waited.satisfied,
        elapsedMs=waited.elapsed_ms,
        checks=waited.checks,
        waitedBy="events" if waited.event_driven else "polling",
        condition=condition_json(cond),
        matches=list(waited.evaluation.matches),
    )
    above = "\n".join([head, *renderer.window_news(root.pid, details)])
    body, view, extra = renderer.diff_text(state, successor, above)
    details.update(extra, view=view)
    if waited.reached:
        body += f"\nread on demand into stateId {successor.state_id}:\n"
        body += "\n".join(r.note(successor.state_id) for r in waited.reached)
        details["unread"] = [r.json() for r in waited.reached]
    return ToolResult(f"{above}\n{body}", details)


def _gone_with_window(
    renderer: Renderer,
    ref: str,
    root: RootInfo,
    cond: UiCondition,
    started: float,
    exc: TargetGone,
) -> ToolResult:
    elapsed = round((time.monotonic() - started) * 1000)
    details: dict[str, Any] = {
        "found": True,
        "gone": True,
        "timedOut": False,
        "windowClosed": True,
        "elapsedMs": elapsed,
        "condition": condition_json(cond),
        "reason": inline(exc.message),
    }
    text = (
        f"{describe(cond)} disappeared after {elapsed} ms: its window {ref} "
        f"{quote(root.title, TITLE_CAP)} closed. No successor state exists: "
        "run find_roots, then observe_ui."
    )
    return ToolResult("\n".join([text, *renderer.window_news(root.pid, details)]), details)
