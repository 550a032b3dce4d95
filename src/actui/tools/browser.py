"""The browser tools: launch a private browser, navigate a page, evaluate script.

Navigation and evaluation are writes on the page's lane; their results are
successor observations like any action's. URLs are limited to web, file,
data and blank pages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Protocol

from pydantic import AfterValidator, Field

from actui.backends.base import RootInfo
from actui.backends.browsing import BrowserBackend, EvalResult
from actui.config import Config
from actui.deadlines import Deadline
from actui.errors import BackendUnavailable, InvalidParams
from actui.quoting import inline, quote
from actui.results.observations import Evaluation, PageShown
from actui.results.rendering import Renderer, observation
from actui.results.schemas import OBSERVATION, STATE, STRING, nullable, shape
from actui.results.tool_result import ToolResult
from actui.results.typed import Shown
from actui.results.views import console_line, page_header
from actui.runtime.imaging import scale_of
from actui.runtime.observer import Observer
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import State
from actui.runtime.waiting import observed_outline
from actui.tools.contract import WRITES, StateId, Tool, ToolHints, ToolParams
from actui.tools.observing import Looker
from actui.tools.session import Session
from actui.urls import check_url

PageUrl = Annotated[str, Field(max_length=8192), AfterValidator(check_url)]


class LaunchBrowser(ToolParams):
    url: PageUrl | None = Field(None, description="Default about:blank.")


class NavigateBrowser(ToolParams):
    stateId: StateId
    url: PageUrl = Field(description="Absolute http(s), file: or data: URL.")


class EvaluateBrowser(ToolParams):
    stateId: StateId
    expression: str = Field(min_length=1, max_length=65_536)


class Browsers(Protocol):
    """Where the browser comes from: created on first use, under this call's configuration."""

    @property
    def browser(self) -> BrowserBackend: ...

    def config(self) -> Config: ...


@dataclass(frozen=True)
class Parts:
    """What the browser tools work through, each part for one job."""

    browsers: Browsers
    looker: Looker
    """A launched page's first, full observation."""
    lanes: Scheduler
    """The page's lane: navigation and script are writes on it."""

    @property
    def observer(self) -> Observer:
        return self.looker.observer

    @property
    def renderer(self) -> Renderer:
        return self.looker.renderer

    @classmethod
    def of(cls, s: Session) -> Parts:
        """The parts a browser tool needs of the session."""
        return cls(browsers=s.backends, looker=s.looker, lanes=s.lanes)


MAX_VALUE_BYTES = 16 * 1024
"""Evaluation results larger than this travel only in the (bounded) text."""
QUIET_S = 0.05
QUIET_LIMIT_S = 0.3
"""A script's successor is read once its page has made no change for ``QUIET_S`` (the
page's mutation watcher counts them), or after ``QUIET_LIMIT_S``: the view the agent acts
on is then the page the script left, not one mid-update."""


async def _quiet(browser: BrowserBackend, root: RootInfo) -> None:
    deadline = Deadline(QUIET_LIMIT_S)
    while (left := deadline.left()) > 0:
        mark = browser.change_mark(root)
        if await browser.wait_for_change(root, mark, min(QUIET_S, left)) == mark:
            return


def _browser_state(observer: Observer, state_id: str) -> State:
    state = observer.state(state_id)
    if state.root.kind != "browser_page":
        raise InvalidParams(
            "stateId",
            f"state {state_id} is of a desktop window, not a browser page.",
            "Use act_ui for native windows, or a stateId from launch_browser.",
        )
    observer.backend_for(state.root)
    return state


async def launch_browser(parts: Parts, p: LaunchBrowser) -> ToolResult:
    cfg = parts.browsers.config()
    if not cfg.browser_use:
        raise BackendUnavailable("browser use is turned off (browser_use = false).")
    url = p.url or "about:blank"
    root = await parts.browsers.browser.launch(url, headed=cfg.browser_headed or None)
    return await parts.looker.observe(root, "semantic", "launch_browser")


async def _page_write(
    parts: Parts, state: State, work: Callable[[RootInfo], Awaitable[RootInfo]]
) -> RootInfo:
    """Run ``work`` as a write on the page's lane and observe the result."""
    parts.lanes.check_current(state.resource_key, state.epoch)
    root = await parts.observer.resolve(state.root)
    after: list[RootInfo] = []

    async def job(_epoch: int) -> None:
        after.append(await work(root))

    await parts.lanes.write(state.resource_key, state.epoch, job)
    return after[0]


async def _page_successor(
    parts: Parts,
    state: State,
    root: RootInfo,
    tool: str,
    extra_text: list[str],
    evaluation: Evaluation | None = None,
) -> ToolResult:
    observer, renderer = parts.observer, parts.renderer
    browser = parts.browsers.browser
    navigated = browser.document_generation(root) != state.meta.generation
    snapshot, epoch = await observer.snapshot_at_epoch(root, state.resource_key)
    outline = observed_outline(snapshot, None if navigated else state.outline, scale_of(state))
    successor = observer.save(snapshot, outline, epoch, base=state)
    head = page_header(tool, renderer.named(successor.root_ref, snapshot.root))
    console, messages = renderer.console_lines(root)
    above = "\n".join([head, *extra_text, *console])
    if navigated:
        body = renderer.fold_text(successor, "navigated to a new document", above)
        shown = Shown("full", reason="navigated")
    else:
        body, shown = renderer.diff_text(state, successor, above)
    page = PageShown(observation(successor, shown), messages, evaluation)
    return ToolResult(f"{above}\n{body}", page)


async def navigate_browser(parts: Parts, p: NavigateBrowser) -> ToolResult:
    state = _browser_state(parts.observer, p.stateId)
    url, browser = p.url, parts.browsers.browser

    async def go(root: RootInfo) -> RootInfo:
        return await browser.navigate(root, url)

    root = await _page_write(parts, state, go)
    return await _page_successor(parts, state, root, "navigate_browser", [])


async def evaluate_browser(parts: Parts, p: EvaluateBrowser) -> ToolResult:
    state = _browser_state(parts.observer, p.stateId)
    browser = parts.browsers.browser
    results: list[EvalResult] = []

    async def run(root: RootInfo) -> RootInfo:
        results.append(await browser.evaluate(root, p.expression))
        return root

    root = await _page_write(parts, state, run)
    result = results[0]
    if result.exception is not None:
        lines = [f"exception: {quote(result.exception)}"]
    else:
        lines = ["value: " + inline(result.value_json)]
    lines += [console_line(line) for line in result.console]
    await _quiet(browser, root)
    value = result.value_json if result.exception is None else None
    size = None
    if value is not None and len(value.encode()) > MAX_VALUE_BYTES:
        # The text carries it, bounded and continued by an @o ref; details stay small.
        size, value = len(value.encode()), None
    evaluation = Evaluation(value, result.exception, size)
    return await _page_successor(parts, state, root, "evaluate_browser", lines, evaluation)


LAUNCH_BROWSER = Tool(
    "launch_browser",
    LaunchBrowser,
    "Start a private Chromium and observe its page.",
    lambda s, p: launch_browser(Parts.of(s), p),
    shape(STATE, **OBSERVATION),
    ToolHints(read_only=False, idempotent=False, open_world=True),
)
NAVIGATE_BROWSER = Tool(
    "navigate_browser",
    NavigateBrowser,
    "Load a URL in a browser page state; returns the new state.",
    lambda s, p: navigate_browser(Parts.of(s), p),
    shape(STATE, **OBSERVATION),
    ToolHints(read_only=False, destructive=True, open_world=True),
)
EVALUATE_BROWSER = Tool(
    "evaluate_browser",
    EvaluateBrowser,
    "Run JavaScript in a browser page state; returns its JSON value.",
    lambda s, p: evaluate_browser(Parts.of(s), p),
    shape(STATE, **OBSERVATION, value=nullable(STRING), exception=nullable(STRING)),
    WRITES,
)
