"""``act_ui``: one transaction on one state, from validation to successor.

Order matters and is the contract: validate everything, reject a stale state
before anything is sent, wait for ``require`` (nothing delivered, no epoch
consumed if it fails), run the steps in the resource's lane stopping at the
first ``didnt``, check ``expect``, settle root deltas, then observe the
successor — or report the terminal result when the target closed.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from actui import contract
from actui.actions import Prepared, aggregate, deliver, prepare, reconcile
from actui.backends.base import Backend, RootInfo, Snapshot
from actui.conditions import UiCondition, closest, condition_json, describe
from actui.conditions import evaluate as evaluate_condition
from actui.errors import ActuiError, PreconditionFailed, TargetGone
from actui.outline.model import Outline
from actui.runtime.deltas import SETTLE_WINDOW_S, root_deltas, settle
from actui.runtime.roots import match_root
from actui.runtime.store import State
from actui.runtime.waiting import observed_outline
from actui.session import Session, ToolResult, scale_of
from actui.views import root_delta_lines, root_json, trace_summary


async def act_ui(session: Session, p: contract.ActUi) -> ToolResult:
    state = session.state(p.stateId)
    cfg = session.config()
    headless = cfg.headless
    expect = session.condition(p.expect, "expect", state)
    require = session.condition(p.require, "require", state)
    waits = [
        session.condition(step.until, f"actions[{i}].until", state)
        for i, step in enumerate(p.actions)
    ]
    focus = False
    prepared: list[Prepared | None] = []
    for index, step in enumerate(p.actions):
        if step.action == "wait":
            prepared.append(None)
            continue
        item = prepare(step, index, state, headless=headless, focus_established=focus)
        focus = (
            focus
            or item.establishes_focus
            or (not headless and item.request.kind == "click" and item.request.point is not None)
        )
        prepared.append(item)
    key = state.resource_key
    session.scheduler.check_current(key, state.epoch)
    session.check_document(state)
    root = await session.resolve(state.root)
    backend = session.backend_for(root)
    if require is not None:
        held = await session.wait(state, root, require)
        if not held.satisfied:
            near = closest(require, held.outline)
            raise PreconditionFailed(describe(require), require.timeout_ms, near)
    steps: list[dict[str, Any]] = []
    stopped_at: int | None = None

    before: list[RootInfo] = []

    async def run(_epoch: int) -> None:
        nonlocal stopped_at
        before.extend(await backend.list_roots())
        for index, step in enumerate(p.actions):
            item = prepared[index]
            if item is None:
                trace = await _wait_step(session, state, root, step.ms, waits[index])
            else:
                item = replace(item, request=replace(item.request, root=root))
                trace = await deliver(backend, item, headless=headless, policy=cfg.delivery_policy)
            steps.append(trace)
            if trace["outcome"] == "didnt":
                stopped_at = index
                return

    await session.scheduler.write(key, state.epoch, run)
    new_epoch = session.scheduler.epoch(key)
    stopped = stopped_at is not None
    outcome = aggregate([s["outcome"] for s in steps], stopped)
    verification: dict[str, Any] | None = None
    successor_snapshot: Snapshot | None = None
    successor_outline: Outline | None = None
    try:
        if expect is not None and stopped:
            verification = {"status": "skipped", **condition_json(expect)}
        elif expect is not None:
            preexisting = evaluate_condition(expect, state.outline).satisfied
            waited = await session.wait(state, root, expect)
            successor_snapshot, successor_outline = waited.snapshot, waited.outline
            status = (
                ("preexisting" if preexisting else "verified") if waited.satisfied else "failed"
            )
            verification = {"status": status, **condition_json(expect)}
            if status == "failed":
                verification["closest"] = closest(expect, waited.outline)
        settled = verification is not None and verification["status"] != "failed"
        after = await settle(
            before, backend.list_roots, window_s=0.0 if settled else SETTLE_WINDOW_S
        )
        deltas = root_deltas(before, after, session.roots.ref_for)
        if any(d["change"] == "closed" and d["ref"] == state.root_ref for d in deltas):
            raise TargetGone(f"{state.root_ref} closed during the transaction")
        if successor_snapshot is None:
            successor_snapshot = await session.snapshot(match_root(root, after))
            successor_outline = observed_outline(successor_snapshot, state.outline, scale_of(state))
    except TargetGone as exc:
        deltas = await _closing_deltas(session, state, before, backend)
        return _terminal(session, state, steps, stopped_at, outcome, expect, exc, deltas)
    assert successor_outline is not None
    check = str(verification["status"]) if verification else None
    outcome = reconcile(outcome, check, stopped)
    trace: dict[str, Any] = {
        "outcome": outcome,
        "steps": steps,
        "actionCount": len(steps),
        "stoppedAt": stopped_at,
        "backgroundFirst": all(s.get("backgroundFirst", True) for s in steps),
        "escalatedToForeground": any(s.get("escalatedToForeground") for s in steps),
        "verification": verification,
        "rootDelta": deltas,
    }
    for s in steps:
        if s.get("escalatedToForeground"):
            trace["escalationReason"] = s["escalationReason"]
            trace["backgroundAttempt"] = s["backgroundAttempt"]
            break
    delivered = [s for s in steps if "delivery" in s]
    if delivered:
        trace["delivery"] = delivered[-1]["delivery"]
        trace["deliveryPolicy"] = delivered[-1]["deliveryPolicy"]
    successor = session.save(successor_snapshot, successor_outline, new_epoch, base=state)
    body, view, extra = session.diff_text(state, successor)
    head = [
        f"act_ui: {len(steps)} of {len(p.actions)} steps run in {root.app_name} — "
        f'"{root.title}"; outcome {outcome}'
        + (f"; check {verification['status']}" if verification else ""),
        trace_summary(trace),
        *root_delta_lines(deltas),
    ]
    if verification and verification["status"] == "failed":
        head.append(
            f"postcondition_failed: expected {describe(expect)}"  # type: ignore[arg-type]
            + (
                "; the UI shows instead: " + "; ".join(verification["closest"])
                if verification.get("closest")
                else ""
            )
        )
    details = session.observation_details(successor, view)
    details.update(extra)
    details["execution"] = trace
    details["outcome"] = outcome
    if verification and verification["status"] == "failed":
        details["error"] = {"code": "postcondition_failed", "message": head[-1]}
    return ToolResult("\n".join([*head, body]), details)


async def _wait_step(
    session: Session, state: State, root: RootInfo, ms: int | None, cond: UiCondition | None
) -> dict[str, Any]:
    if cond is None:
        await asyncio.sleep((ms or 0) / 1000)
        return {"action": "wait", "ms": ms, "outcome": "worked"}
    waited = await session.wait(state, root, cond, in_lane=True)
    step: dict[str, Any] = {
        "action": "wait",
        "until": condition_json(cond),
        "outcome": "worked" if waited.satisfied else "didnt",
        "elapsedMs": waited.elapsed_ms,
    }
    if not waited.satisfied:
        step["error"] = {
            "code": "timeout",
            "message": f"timed out waiting for {describe(cond)}",
        }
    return step


async def _closing_deltas(
    session: Session, state: State, before: list[RootInfo], backend: Backend
) -> list[dict[str, Any]]:
    """Deltas when the acted-on root closed; its ``closed`` entry is always there."""
    try:
        after = await settle(before, backend.list_roots)
    except ActuiError:
        after = [r for r in before if r.native_id != state.root.native_id]
    deltas = root_deltas(before, after, session.roots.ref_for)
    if not any(d["change"] == "closed" and d["ref"] == state.root_ref for d in deltas):
        closed = root_deltas([state.root], [], session.roots.ref_for)
        deltas = closed + deltas
    return deltas


def _terminal(
    session: Session,
    state: State,
    steps: list[dict[str, Any]],
    stopped_at: int | None,
    outcome: str,
    expect: UiCondition | None,
    exc: TargetGone,
    deltas: list[dict[str, Any]],
) -> ToolResult:
    """The acted-on window closed: no successor state exists (reference §5.9)."""
    verification = None
    if expect is not None:
        status = "verified" if expect.until == "absent" else "failed"
        verification = {"status": status, **condition_json(expect)}
        outcome = reconcile(outcome, status, stopped_at is not None)
    trace = {
        "outcome": outcome,
        "steps": steps,
        "stoppedAt": stopped_at,
        "verification": verification,
        "rootDelta": deltas,
    }
    text = "\n".join(
        [
            f"act_ui: the actions were delivered and {state.root_ref} "
            f'"{state.root.title}" closed; outcome {outcome}. No successor state exists: '
            "run find_roots, then observe_ui.",
            trace_summary(trace),
            *root_delta_lines(deltas),
        ]
    )
    return ToolResult(
        text,
        {
            "status": "target_closed",
            "baseStateId": state.state_id,
            "target": root_json(state.root_ref, state.root),
            "execution": trace,
            "outcome": outcome,
            "error": {"code": "target_closed", "message": exc.message},
        },
    )
