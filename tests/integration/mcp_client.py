"""The official MCP client over Streamable HTTP, as the HTTP server tests drive a server.

A session with the bearer token, a tool call that must succeed, and the wait for the
zenity probe window the servers under test start on every desktop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

PROBE_APP = "zenity --entry --title=Probe --text=Type:"


@asynccontextmanager
async def http_session(url: str, token: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=120)) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(tool, args, read_timeout_seconds=90)
    text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
    assert not result.is_error, text
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def probe_window(session: ClientSession) -> dict[str, Any]:
    """The desktop's zenity probe window (``PROBE_APP``), once it shows."""
    async with asyncio.timeout(60):
        while True:
            roots = await call(session, "find_roots", {"text": "Probe"})
            if roots["windows"]:
                return dict(roots["windows"][0])
            await asyncio.sleep(0.2)
