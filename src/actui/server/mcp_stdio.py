"""``actui mcp``: the tools over MCP on stdio, with the official SDK.

Tool schemas come from the catalog (``actui.tools.catalog``); every call goes through
``ToolBox.call``, so validation, bounding and error text are the same as in
the Python API. Images travel as image content, details as structured
content. On stdio it opens no network listener (:mod:`actui.server.mcp_http` serves
the same server over HTTP when asked to). Stdin is read through
``actui.server.stdin_guard``, so a line the SDK cannot take is answered with a
JSON-RPC error instead of nothing.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from actui import __version__
from actui.config import load_config
from actui.results.tool_result import ToolResult
from actui.server import mcp_workflows
from actui.server.stdin_guard import CheckedStdin, claimed_stdin
from actui.tools import catalog
from actui.tools.dispatch import ToolBox
from actui.tools.recording import Recorder
from actui.tools.workflow import Workflow

INSTRUCTIONS = (
    "actui drives desktop and browser apps. Typical loop: find_roots → observe_ui(root) → "
    "search_ui / expand_ui / inspect_ui on the returned stateId → act_ui with @e refs and an "
    "`expect` postcondition → use the new stateId from the result. Refs belong to one state."
)

_SIGTERM_CLEANUP_S = 15.0
_ENDING: set[asyncio.Task[None]] = set()
"""The shutdown a SIGTERM started, kept referenced until the process ends."""


def _to_mcp(result: ToolResult, structured: bool) -> types.CallToolResult:
    """The result as MCP content; its details as structuredContent unless ``structured``
    is off (``structured_content = false``)."""
    content: list[types.ContentBlock] = [types.TextContent(text=result.text)]
    for data, mime in result.images:
        content.append(
            types.ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
        )
    return types.CallToolResult(
        content=content,
        structured_content=result.details if structured else None,
        is_error=result.is_error,
    )


ToolBoxFor = Callable[[object], Awaitable[ToolBox]]
"""Which ``ToolBox`` serves a request, from its context (one for stdio; per session on HTTP)."""


def _catalog(structured: bool) -> list[types.Tool]:
    """The tools as MCP lists them; without structured content, without output schemas
    (a client refuses a result that lacks the structured content its tool's schema promises)."""
    return [
        types.Tool.model_validate(spec if structured else {**spec, "outputSchema": None})
        for spec in catalog.export_schemas("mcp")
    ]


def build_server(
    computer_for: ToolBoxFor, workflows: Mapping[str, Workflow] | None = None
) -> Server[Any]:
    """The MCP server of the tools, and of ``workflows`` by tool name (``mcp_workflows``)."""
    flows = dict(workflows or {})
    catalogs = {
        structured: _catalog(structured) + mcp_workflows.tools(flows)
        for structured in (True, False)
    }

    async def list_tools(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        # the server's own configuration: asking a session's computer would start its desktop
        structured = load_config().structured_content
        return types.ListToolsResult(tools=catalogs[structured])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        computer = await computer_for(ctx)
        if params.name in flows:
            return await mcp_workflows.call(computer, flows[params.name], params.arguments or {})
        result = await computer.call(params.name, params.arguments or {})
        return _to_mcp(result, computer.config().structured_content)

    return Server(
        "actui",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _forward(replies: MemoryObjectReceiveStream[SessionMessage], write_stream: Any) -> None:
    """Send the stdin layer's error replies on the server's own write stream."""
    async with replies:
        async for reply in replies:
            try:
                await write_stream.send(reply)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return


async def serve(
    record: Path | None = None, workflows: Mapping[str, Workflow] | None = None
) -> None:
    computer = ToolBox(record=Recorder(record) if record is not None else None)
    _close_on_sigterm(computer)

    async def the_computer(_ctx: object) -> ToolBox:
        return computer

    server = build_server(the_computer, workflows)
    try:
        with claimed_stdin() as wire:
            stdin = CheckedStdin(wire)
            async with (
                stdio_server(stdin=cast("anyio.AsyncFile[str]", stdin)) as (read_stream, write),
                anyio.create_task_group() as tasks,
            ):
                tasks.start_soon(_forward, stdin.replies, write)
                await server.run(read_stream, write, server.create_initialization_options())
                tasks.cancel_scope.cancel()
    finally:
        await computer.close()


def _close_on_sigterm(computer: ToolBox) -> None:
    """SIGTERM shuts down as EOF on stdin does: browsers closed, temp dirs removed.

    The stdin reader is a thread blocked in ``readline`` that cancellation
    cannot interrupt, so rather than wait for it the server cleans up and then
    ends by the signal itself, as whoever sent it expects.
    """
    loop = asyncio.get_running_loop()

    async def close_then_end() -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(computer.close(), _SIGTERM_CLEANUP_S)
        loop.remove_signal_handler(signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)

    def on_sigterm() -> None:
        if not _ENDING:  # a second SIGTERM changes nothing: the shutdown is under way
            _ENDING.add(loop.create_task(close_then_end()))

    loop.add_signal_handler(signal.SIGTERM, on_sigterm)


def main(record: Path | None = None, workflows: Mapping[str, Workflow] | None = None) -> None:
    """Serve on stdio; ``record`` a directory for this session's workflow file,
    ``workflows`` the recorded workflows to serve as tools (``docs/replay.md``)."""
    try:
        anyio.run(serve, record, workflows)
    except* (BrokenPipeError, ConnectionResetError):
        # The client closed its end of the wire: nobody is left to read a reply
        # or a traceback, and the session was closed on the way out.
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
