"""A corpus task over the real MCP server: featherpad (Qt 5) through ``actui mcp`` on stdio.

The other corpus modules drive ``Computer.call``, the handlers the server
serves; this one goes through the wire too, with the official client, so
the path an agent uses is proven on an app none of us wrote. featherpad is
alive after every call; the file's bytes on disk are the oracle.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from computer_helpers import assert_alive

from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent, connect

TEXT = "Über den Fluss, 東京\nzweite Zeile ✓"


async def _alive_call(agent: Agent, pid: int, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    details = await agent.details(tool, args)
    assert_alive(pid)
    return details


async def test_featherpad_types_and_saves_over_mcp(sandbox: Sandbox) -> None:
    path = Path(sandbox.env["HOME"]) / "over-mcp.txt"
    path.write_bytes(b"")
    app = await sandbox.launch(["featherpad", str(path)])
    await sandbox.wait_for_app(app.pid)
    async with connect(sandbox.env) as agent:
        roots: dict[str, Any] = {}
        for _ in range(100):  # listed on AT-SPI before its X window is mapped
            roots = await _alive_call(agent, app.pid, "find_roots", {"pid": app.pid})
            if any(w["windowId"] for w in roots["windows"]):
                break
            await asyncio.sleep(0.1)
        window = next(w for w in roots["windows"] if w["windowId"])
        state = await _alive_call(agent, app.pid, "observe_ui", {"root": window["windowRef"]})
        sid = state["stateId"]
        found = await _alive_call(agent, app.pid, "search_ui", {"stateId": sid, "role": "textbox"})
        documents = []
        for match in found["matches"]:
            inspected = await _alive_call(
                agent, app.pid, "inspect_ui", {"stateId": sid, "ref": match["ref"]}
            )
            if "multi_line" in inspected["target"]["states"]:
                documents.append(match["ref"])
        (document,) = documents
        typed = await _alive_call(
            agent,
            app.pid,
            "act_ui",
            {
                "stateId": sid,
                "actions": [
                    {"action": "typeText", "ref": document, "text": TEXT},
                    {"action": "keypress", "ref": document, "keys": ["ctrl", "s"]},
                ],
            },
        )
        assert typed["execution"]["steps"][0]["outcome"] == "worked", typed
        for _ in range(200):
            if path.read_bytes():
                break
            await asyncio.sleep(0.05)
        # featherpad ends a saved file with a newline (its default appendEmptyLine)
        assert path.read_bytes() == (TEXT + "\n").encode()
        again = await _alive_call(agent, app.pid, "find_roots", {"pid": app.pid})
        assert again["windows"], "featherpad still answers for its window"
