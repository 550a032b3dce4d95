"""The browser actui launches is reached over its debugging pipe: no TCP port exists.

A browser someone else started with a loopback debugging port can still be
reached over a websocket, with the same flattened sessions.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from procs import listening_tcp_ports, tree

from actui.backends.cdp import CdpBackend
from actui.backends.cdp.connection import CdpConnection, WebSocketTransport
from actui.backends.cdp.launch import command_line, find_executable

PAGE = "data:text/html,<title>piped</title><button>Press me</button>"


async def test_a_launched_browser_listens_on_no_tcp_port_and_still_works() -> None:
    backend = CdpBackend()
    try:
        root = await backend.launch(PAGE)
        browser = backend.browser_process
        assert browser is not None
        pids = tree(browser.process.pid)
        assert len(pids) > 1, pids  # renderers and helpers, not just the main process
        assert listening_tcp_ports(pids) == []
        snapshot = await backend.snapshot(root, max_nodes=100, max_depth=10)
        assert "Press me" in repr(snapshot.tree)
        evaluated = await backend.evaluate(root, "document.title")
        assert evaluated.value_json == '"piped"'
    finally:
        await backend.close()


async def test_a_browser_on_a_loopback_port_is_reached_over_a_websocket(tmp_path: Path) -> None:
    """The attach path: a port the user opened, one browser websocket, a flattened session."""
    argv = command_line(
        find_executable(os.environ), tmp_path / "profile", headed=False, as_root=os.geteuid() == 0
    )
    argv.insert(-1, "--remote-debugging-port=0")
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        start_new_session=True,
    )
    port_file = tmp_path / "profile" / "DevToolsActivePort"
    try:
        for _ in range(300):
            lines = port_file.read_text().splitlines() if port_file.exists() else []
            if len(lines) >= 2:
                break
            await asyncio.sleep(0.05)
        port, path = int(lines[0]), lines[1]
        assert port in listening_tcp_ports(tree(process.pid))  # the check above can fail
        conn = CdpConnection(await WebSocketTransport.open(f"ws://127.0.0.1:{port}{path}"), "b")
        try:
            targets = (await conn.send("Target.getTargets"))["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            session = await conn.attach(page["targetId"], "the page")
            reply = await session.send(
                "Runtime.evaluate", {"expression": "6 * 7", "returnByValue": True}
            )
            assert reply["result"]["value"] == 42
            await session.close()
        finally:
            await conn.close()
    finally:
        os.killpg(process.pid, 9)
        await process.wait()
