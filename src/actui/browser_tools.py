"""The browser tools: launch a private Chromium, navigate a page, evaluate script.

Navigation and evaluation are writes on the page's lane; their results are
successor observations like any action's. URLs are limited to web, file,
data and blank pages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from actui import contract
from actui.backends.base import RootInfo
from actui.errors import BackendUnavailable, InvalidParams
from actui.quoting import inline, quote
from actui.runtime.store import State
from actui.runtime.waiting import observed_outline
from actui.session import Session, ToolResult, scale_of
from actui.views import console_line, page_header

if TYPE_CHECKING:
    from actui.backends.cdp import EvalResult


MAX_VALUE_BYTES = 16 * 1024
"""Evaluation results larger than this travel only in the (bounded) text."""
QUIET_S = 0.05
QUIET_LIMIT_S = 0.3
"""A script's successor is read once its page has made no change for ``QUIET_S`` (the
page's mutation watcher counts them), or after ``QUIET_LIMIT_S``: the view the agent acts
on is then the page the script left, not one mid-update."""


async def _quiet(session: Session, root: RootInfo) -> None:
    browser = session.browser
    loop = asyncio.get_running_loop()
    deadline = loop.time() + QUIET_LIMIT_S
    while (left := deadline - loop.time()) > 0:
        mark = browser.change_mark(root)
        if await browser.wait_for_change(root, mark, min(QUIET_S, left)) == mark:
            return


def _browser_state(session: Session, state_id: str) -> State:
    state = session.state(state_id)
    if state.root.kind != "browser_page":
        raise InvalidParams(
            "stateId",
            f"state {state_id} is of a desktop window, not a browser page.",
            "Use act_ui for native windows, or a stateId from launch_browser.",
        )
    session.backend_for(state.root)
    return state


async def launch_browser(session: Session, p: contract.LaunchBrowser) -> ToolResult:
    if not session.config().browser_use:
        raise BackendUnavailable("browser use is turned off (browser_use = false).")
    url = p.url or "about:blank"
    root = await session.browser.launch(url, headed=session.config().browser_headed or None)
    return await session.observe(root, "semantic", "launch_browser")


async def _page_write(
    session: Session, state: State, work: Callable[[RootInfo], Awaitable[RootInfo]]
) -> RootInfo:
    """Run ``work`` as a write on the page's lane and observe the result."""
    session.scheduler.check_current(state.resource_key, state.epoch)
    root = await session.resolve(state.root)
    after: list[RootInfo] = []

    async def job(_epoch: int) -> None:
        after.append(await work(root))

    await session.scheduler.write(state.resource_key, state.epoch, job)
    return after[0]


async def _page_successor(
    session: Session, state: State, root: RootInfo, tool: str, extra_text: list[str]
) -> ToolResult:
    navigated = session.browser.document_generation(root) != state.extra.get("generation", 0)
    snapshot, epoch = await session.snapshot_at_epoch(root, state.resource_key)
    outline = observed_outline(snapshot, None if navigated else state.outline, scale_of(state))
    successor = session.save(snapshot, outline, epoch, base=state)
    details = session.observation_details(successor, "full")
    head = page_header(tool, session.named(successor.root_ref, snapshot.root))
    above = "\n".join([head, *extra_text, *session.console_lines(root, details)])
    if navigated:
        body = session.fold_text(successor, "navigated to a new document", above)
        extra: dict[str, Any] = {"viewReason": "navigated"}
    else:
        body, view, extra = session.diff_text(state, successor, above)
        details["view"] = view
    details.update(extra)
    return ToolResult(f"{above}\n{body}", details)


async def navigate_browser(session: Session, p: contract.NavigateBrowser) -> ToolResult:
    state = _browser_state(session, p.stateId)
    url, browser = p.url, session.browser

    async def go(root: RootInfo) -> RootInfo:
        return await browser.navigate(root, url)

    root = await _page_write(session, state, go)
    return await _page_successor(session, state, root, "navigate_browser", [])


async def evaluate_browser(session: Session, p: contract.EvaluateBrowser) -> ToolResult:
    state = _browser_state(session, p.stateId)
    browser = session.browser
    results: list[EvalResult] = []

    async def run(root: RootInfo) -> RootInfo:
        results.append(await browser.evaluate(root, p.expression))
        return root

    root = await _page_write(session, state, run)
    result = results[0]
    if result.exception is not None:
        lines = [f"exception: {quote(result.exception)}"]
    else:
        lines = ["value: " + inline(result.value_json)]
    lines += [console_line(line) for line in result.console]
    await _quiet(session, root)
    outcome = await _page_successor(session, state, root, "evaluate_browser", lines)
    value = result.value_json if result.exception is None else None
    if value is not None and len(value.encode()) > MAX_VALUE_BYTES:
        # The text carries it, bounded and continued by an @o ref; details stay small.
        outcome.details["valueBytes"] = len(value.encode())
        value = None
    outcome.details["value"] = value
    outcome.details["exception"] = result.exception
    return outcome
