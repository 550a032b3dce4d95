"""``actui mcp``: the eleven tools over MCP on stdio, with the official SDK.

Tool schemas come from the contract; every call goes through
``Computer.call``, so validation, bounding and error text are the same as in
the Python API. Images travel as image content, details as structured
content. The server speaks stdio only: it opens no network listener.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
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
_ENDING: set[asyncio.Task[None]] = set()
"""The shutdown a SIGTERM started, kept referenced until the process ends."""


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
    _close_on_sigterm(computer)
    server = build_server(computer)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await computer.close()


def _close_on_sigterm(computer: Computer) -> None:
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


def main() -> None:
    anyio.run(serve)
