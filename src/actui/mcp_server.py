"""``actui mcp``: the eleven tools over MCP on stdio, with the official SDK.

Tool schemas come from the contract; every call goes through
``Computer.call``, so validation, bounding and error text are the same as in
the Python API. Images travel as image content, details as structured
content. The server speaks stdio only: it opens no network listener.
"""

from __future__ import annotations

import base64
import os
import signal
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from actui import __version__, contract
from actui.session import ToolResult
from actui.tools import Computer

INSTRUCTIONS = (
    "actui drives desktop and browser apps. Typical loop: find_roots → observe_ui(root) → "
    "search_ui / expand_ui / inspect_ui on the returned stateId → act_ui with @e refs and an "
    "`expect` postcondition → use the new stateId from the result. Refs belong to one state."
)

_SIGTERM_CLEANUP_S = 15.0


def _to_mcp(result: ToolResult) -> types.CallToolResult:
    content: list[types.ContentBlock] = [types.TextContent(text=result.text)]
    for data, mime in result.images:
        content.append(
            types.ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
        )
    return types.CallToolResult(
        content=content, structured_content=result.details, is_error=result.is_error
    )


def build_server(computer: Computer) -> Server[Any]:
    tools = [
        types.Tool(
            name=spec["name"], description=spec["description"], input_schema=spec["inputSchema"]
        )
        for spec in contract.export_schemas("mcp")
    ]

    async def list_tools(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return _to_mcp(await computer.call(params.name, params.arguments or {}))

    return Server(
        "actui",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve() -> None:
    computer = Computer()
    server = build_server(computer)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_end_on_sigterm, computer)
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()
    finally:
        await computer.close()


async def _end_on_sigterm(computer: Computer) -> None:
    """SIGTERM shuts down as EOF on stdin does: browsers closed, temp dirs removed.

    The stdin reader is a thread blocked in ``readline`` that cancellation
    cannot interrupt, so rather than wait for it the server cleans up and then
    ends by the signal itself, as whoever sent it expects.
    """
    with anyio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            with anyio.CancelScope(shield=True), anyio.move_on_after(_SIGTERM_CLEANUP_S):
                await computer.close()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)


def main() -> None:
    anyio.run(serve)
