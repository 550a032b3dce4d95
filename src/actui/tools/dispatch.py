"""The tool box: ``ToolBox.call(tool, arguments)``, the wire-level core of the MCP
server, the CLI and the Python API (``api.py``).

A ``ToolBox`` has a session's parts (``session.Session``) and runs the tools
of the catalog (``catalog.TOOLS``), each handler given the session to take
only the parts it needs. A call validates its arguments through the contract,
runs its handler, and bounds the text it returns; errors become
agent-readable text, never tracebacks.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping

from actui.backends.base import Backend, ProcessExit
from actui.backends.registry import Backends
from actui.config import Config
from actui.errors import ActuiError, BackendUnavailable, TargetGone
from actui.quoting import inline
from actui.results.observations import ToolError
from actui.results.rendering import RESULT_BUDGET
from actui.results.tool_result import ToolResult
from actui.runtime.store import State
from actui.sentences import as_sentence
from actui.tools import catalog, contract
from actui.tools.recording import Recorder
from actui.tools.session import Session
from actui.tools.transaction import ActUi

log = logging.getLogger(__name__)


def _asked_budget(arguments: Mapping[str, object] | None) -> int | None:
    """A valid ``maxTokens`` of the call, so even its contract error keeps to it."""
    asked = (arguments or {}).get("maxTokens") if isinstance(arguments, Mapping) else None
    if not isinstance(asked, int) or isinstance(asked, bool):
        return None
    return asked if contract.MIN_TOKENS <= asked <= contract.MAX_TOKENS else None


class ToolBox:
    """One agent session: the tools of the catalog over the session's parts, with the
    agent's JSON in and out."""

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

    def recorded_by(self, recorder: Recorder) -> ToolBox:
        """This session's tools with ``recorder`` writing their acts: one desktop served to
        several MCP sessions at once (``actui mcp --http --record``) keeps each one's
        workflow apart. The session stays this one's to close."""
        view = copy.copy(self)
        view._recorder = recorder
        return view

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

    async def look(self, root_ref: str) -> State:
        """A fresh look at the window ``root_ref`` (a ``find_roots`` ref), saved as a state
        and not rendered: for code that reads the outline, not the text (a replay)."""
        session = self._session
        return await session.looker.look(await session.observer.pick(root_ref))

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
        declared = catalog.tool_named(tool)
        params = contract.validate(declared, arguments)
        if isinstance(params, contract.ToolParams):  # "300" is 300 once validated
            RESULT_BUDGET.set(params.maxTokens)
        work = declared.handler(session, params)
        if self._recorder is not None and isinstance(params, ActUi):
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
