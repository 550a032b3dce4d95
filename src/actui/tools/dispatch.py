"""The eleven tools: ``Computer.call(tool, arguments)``, the wire-level core of the MCP
server, the CLI and the Python API (``api.py``).

``Computer`` has a session's parts (``session.Session``) and a table of
handlers, one per tool, each given only the parts it needs. A call validates
its arguments through the contract, runs its handler, and bounds the text it
returns; errors become agent-readable text, never tracebacks.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from actui.backends.base import Backend, ProcessExit
from actui.backends.registry import Backends
from actui.config import Config
from actui.errors import ActuiError, BackendUnavailable, TargetGone, UnknownState
from actui.quoting import inline
from actui.results.observations import ToolError
from actui.results.rendering import RESULT_BUDGET
from actui.results.tool_result import ToolResult
from actui.runtime.store import State
from actui.sentences import as_sentence
from actui.tools import browser, contract, discovery, queries, transaction, waits
from actui.tools.recording import Recorder
from actui.tools.session import Session

log = logging.getLogger(__name__)

Handler = Callable[[Session, Any], Awaitable[ToolResult]]
"""One tool's work over the session's parts, given its validated parameters."""


async def _read_text(s: Session, p: contract.ReadText) -> ToolResult:
    if p.ref.startswith("@o"):
        return queries.read_output(s.output, p)
    return await queries.read_element(s.observer, p)


def _act_parts(s: Session) -> transaction.Parts:
    return transaction.Parts(
        observer=s.observer,
        renderer=s.renderer,
        lanes=s.lanes,
        ref_for=s.roots.ref_for,
        told=s.announced.shown,
        exit_of=s.backends.exit_of,
        config=s.backends.config(),
    )


def _browser_parts(s: Session) -> browser.Parts:
    return browser.Parts(browsers=s.backends, looker=s.looker, lanes=s.lanes)


HANDLERS: Mapping[str, Handler] = {
    "find_roots": lambda s, p: discovery.find_roots(s.backends, s.roots, s.announced, p),
    "observe_ui": lambda s, p: discovery.observe_ui(s.looker, p),
    "search_ui": lambda s, p: queries.search_ui(s.observer, p),
    "expand_ui": lambda s, p: queries.expand_ui(s.observer, p),
    "inspect_ui": lambda s, p: queries.inspect_ui(s.observer, p),
    "read_text": _read_text,
    "wait_for": lambda s, p: waits.wait_for(s.observer, s.renderer, p),
    "act_ui": lambda s, p: transaction.act_ui(_act_parts(s), p),
    "launch_browser": lambda s, p: browser.launch_browser(_browser_parts(s), p),
    "navigate_browser": lambda s, p: browser.navigate_browser(_browser_parts(s), p),
    "evaluate_browser": lambda s, p: browser.evaluate_browser(_browser_parts(s), p),
}
"""The tools by name: every name of ``contract.TOOL_NAMES`` has its handler here."""


def _asked_budget(arguments: Mapping[str, object] | None) -> int | None:
    """A valid ``maxTokens`` of the call, so even its contract error keeps to it."""
    asked = (arguments or {}).get("maxTokens") if isinstance(arguments, Mapping) else None
    if not isinstance(asked, int) or isinstance(asked, bool):
        return None
    return asked if contract.MIN_TOKENS <= asked <= contract.MAX_TOKENS else None


class Computer:
    """One agent session: the eleven tools over the session's parts."""

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        desktop: Backend | None = None,
        record: Recorder | None = None,
    ) -> None:
        """``env`` and ``desktop`` choose the backends (see ``backends.registry.Backends``);
        ``record`` writes every act_ui transaction to a workflow file (``tools.recording``)."""
        self._session = Session.open(env=env, desktop=desktop)
        self._recorder = record

    @property
    def recorder(self) -> Recorder | None:
        """What records this session's acts, if anything does."""
        return self._recorder

    @property
    def backends(self) -> Backends:
        """The backends this session drives (started on first use)."""
        return self._session.backends

    def config(self) -> Config:
        """The configuration as read at the start of the current tool call."""
        return self._session.backends.config()

    def state(self, state_id: str) -> State:
        """A state this session saved: its root, outline and image geometry."""
        return self._session.observer.state(state_id)

    async def close(self) -> None:
        await self._session.close()

    async def call(self, tool: str, arguments: Mapping[str, object] | None = None) -> ToolResult:
        """Run one tool call; contract errors and agent-visible failures become text."""
        budget = RESULT_BUDGET.set(_asked_budget(arguments))
        try:
            return await self._call(tool, arguments)
        finally:
            RESULT_BUDGET.reset(budget)

    async def run(self, tool: str, arguments: Mapping[str, object] | None = None) -> ToolResult:
        """Run one tool call whose failure is raised as its typed error (``actui.errors``),
        with the data it carries: the Python API's path (``actui.api``)."""
        budget = RESULT_BUDGET.set(_asked_budget(arguments))
        try:
            return await self._run(tool, arguments)
        finally:
            RESULT_BUDGET.reset(budget)

    async def _run(self, tool: str, arguments: Mapping[str, object] | None) -> ToolResult:
        session = self._session
        session.backends.reload_config()
        params = contract.validate(tool, arguments)
        if isinstance(params, contract.ToolParams):  # "300" is 300 once validated
            RESULT_BUDGET.set(params.maxTokens)
        work = HANDLERS[tool](session, params)
        if self._recorder is not None and isinstance(params, contract.ActUi):
            work = self._recorder.transaction(session.observer.state, params, work)
        result = await work
        result.tool = tool
        result.text = session.output.bound(result.text, tool=tool, max_tokens=RESULT_BUDGET.get())
        return result

    async def _call(self, tool: str, arguments: Mapping[str, object] | None) -> ToolResult:
        try:
            return await self._run(tool, arguments)
        except ActuiError as exc:
            backends = self._session.backends
            ended = await backends.exit_of(exc.pid) if isinstance(exc, TargetGone) else None
            if ended is not None:
                return self._exited_result(tool, exc.message, ended)
            # "gone" or "unavailable" may have a cause a backend knows: say it
            known = backends.notices() if isinstance(exc, (TargetGone, BackendUnavailable)) else []
            why = [as_sentence(n) for n in known if n.rstrip(".") not in exc.message]
            # an error may quote what an app controls: it stays on one line
            return self._error_result(tool, exc.code, inline(" ".join([exc.message, *why])))
        except Exception as exc:  # a bug must not reach the agent as a traceback
            log.exception("%s failed unexpectedly", tool)
            return self._error_result(
                tool,
                "internal_error",
                f"internal error ({type(exc).__name__}: {inline(str(exc))}). "
                "The server is still running; retry or observe again.",
            )

    def _error_result(
        self, tool: str, code: str, message: str, ended: ProcessExit | None = None
    ) -> ToolResult:
        text = self._session.output.bound_error(f"{tool} failed: {message}", RESULT_BUDGET.get())
        error = ToolError(tool, code, text, ended)
        return ToolResult(text, error, is_error=True)

    def _exited_result(self, tool: str, gone: str, ended: ProcessExit) -> ToolResult:
        """A root is gone because its application ended: say how, not just "gone".

        A crash (``ProcessExit.crashed``) is ``app_exited``; an exit with a code or on a
        request to end (SIGTERM, as a window manager's close may end in) may be the app's
        normal end once its window closed, so it stays ``target_gone``.
        """
        why = f"the application (pid {ended.pid}) {ended.describe()}. "
        code = "app_exited" if ended.crashed else TargetGone.code
        return self._error_result(tool, code, why + gone[:1].upper() + gone[1:], ended)

    # ------------------------------------------------------------ Python API
    # One typed method per tool; each accepts the contract's parameter model or
    # the same keyword arguments an agent sends (camelCase wire names).

    async def _typed(
        self, tool: str, params: contract.Params | None, args: Mapping[str, object]
    ) -> ToolResult:
        if params is not None:
            args = {**params.model_dump(exclude_none=True, by_alias=True), **args}
        return await self.call(tool, args)

    async def find_roots(self, p: contract.FindRoots | None = None, /, **a: object) -> ToolResult:
        return await self._typed("find_roots", p, a)

    async def observe_ui(self, p: contract.ObserveUi | None = None, /, **a: object) -> ToolResult:
        return await self._typed("observe_ui", p, a)

    async def search_ui(self, p: contract.SearchUi | None = None, /, **a: object) -> ToolResult:
        return await self._typed("search_ui", p, a)

    async def expand_ui(self, p: contract.ExpandUi | None = None, /, **a: object) -> ToolResult:
        return await self._typed("expand_ui", p, a)

    async def inspect_ui(self, p: contract.InspectUi | None = None, /, **a: object) -> ToolResult:
        return await self._typed("inspect_ui", p, a)

    async def act_ui(self, p: contract.ActUi | None = None, /, **a: object) -> ToolResult:
        return await self._typed("act_ui", p, a)

    async def read_text(self, p: contract.ReadText | None = None, /, **a: object) -> ToolResult:
        return await self._typed("read_text", p, a)

    async def wait_for(self, p: contract.WaitFor | None = None, /, **a: object) -> ToolResult:
        return await self._typed("wait_for", p, a)

    async def launch_browser(
        self, p: contract.LaunchBrowser | None = None, /, **a: object
    ) -> ToolResult:
        return await self._typed("launch_browser", p, a)

    async def navigate_browser(
        self, p: contract.NavigateBrowser | None = None, /, **a: object
    ) -> ToolResult:
        return await self._typed("navigate_browser", p, a)

    async def evaluate_browser(
        self, p: contract.EvaluateBrowser | None = None, /, **a: object
    ) -> ToolResult:
        return await self._typed("evaluate_browser", p, a)

    async def act(
        self,
        action: str,
        target: str | None = None,
        params: Mapping[str, object] | None = None,
        *,
        state_id: str | None = None,
    ) -> ToolResult:
        """The seeds' one-step shorthand: ``act(action="typeText", target="@e4", params=…)``.

        Runs on ``state_id``, or on the newest state this session saved.
        """
        store = self._session.store
        try:
            state = store.get(state_id) if state_id else store.newest()
        except UnknownState as exc:
            return self._error_result("act_ui", exc.code, f"stateId: {exc.message}")
        if state is None:
            return self._error_result(
                "act_ui", "invalid_params", "stateId: no state yet. Call observe_ui first."
            )
        step: dict[str, object] = {"action": action, **(params or {})}
        if target is not None:
            step["ref"] = target
        return await self.call("act_ui", {"stateId": state.state_id, "actions": [step]})
