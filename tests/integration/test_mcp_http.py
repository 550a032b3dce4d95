"""``actui mcp --http --desktop-per-session`` through the official MCP client over HTTP.

One server per module, started as a user would start it; every session gets a
private desktop with its own zenity, and the test counts what is left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import pytest_asyncio
from computer_helpers import process_alive
from mcp.client.session import ClientSession
from mcp_client import PROBE_APP, http_session
from mcp_client import call as _call
from mcp_client import probe_window as _probe_window

pytestmark = pytest.mark.asyncio(loop_scope="module")
TOKEN = "integration-test-token"
APP = PROBE_APP
CAP = 2


@dataclass
class Server:
    process: asyncio.subprocess.Process
    base: str
    tmp: Path  # the server's TMPDIR: its desktops' run dirs are made there

    def leftovers(self) -> list[str]:
        return sorted(p.name for p in self.tmp.iterdir())

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    async def health(self) -> dict[str, Any]:
        async with httpx2.AsyncClient(timeout=10) as http:
            response = await http.get(f"{self.base}/health")
        assert response.status_code == 200
        return dict(response.json())

    async def open_desktops(self) -> int:
        return int((await self.health())["desktops"]["open"])


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid``, from /proc's parent links."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


@asynccontextmanager
async def serving(
    tmp: Path, *flags: str, desktop: Mapping[str, str] | None = None
) -> AsyncIterator[Server]:
    """``actui mcp --http --desktop-per-session FLAGS…`` started as a user would, on any port,
    its desktops' run dirs in ``tmp``; terminated at the end. Given the environment of a
    ``desktop``, it serves that one desktop to every session instead."""
    env = {**(desktop or os.environ), "ACTUI_MCP_TOKEN": TOKEN, "TMPDIR": str(tmp)}
    per_session = [] if desktop else ["--desktop-per-session"]
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "actui.server.cli", "mcp", "--http", "--port", "0",
        *per_session, *flags, env=env, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    async with asyncio.timeout(30):
        line = (await process.stderr.readline()).decode()
    found = re.search(r"(http://127\.0\.0\.1:\d+)/mcp", line)
    assert found, line
    yield Server(process, found.group(1), tmp)
    if process.returncode is None:
        process.terminate()
        async with asyncio.timeout(30):
            await process.wait()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[Server]:
    tmp = Path(tempfile.mkdtemp(prefix="h-"))  # short: the run dirs' sockets fit below it
    try:
        async with serving(tmp, "--max-desktops", str(CAP), "--app", APP) as started:
            yield started
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _session(server: Server, token: str = TOKEN) -> AbstractAsyncContextManager[ClientSession]:
    return http_session(server.url, token)


async def _answer_probe(session: ClientSession, phrase: str) -> tuple[str, int]:
    """Fill zenity's entry and press OK; returns the state id used and zenity's pid."""
    window = await _probe_window(session)
    state = await _call(session, "observe_ui", {"root": window["windowRef"]})
    entry = await _call(session, "search_ui", {"stateId": state["stateId"], "role": "textbox"})
    ok = await _call(session, "search_ui", {"stateId": state["stateId"], "text": "OK"})
    act = await _call(
        session,
        "act_ui",
        {
            "stateId": state["stateId"],
            "actions": [{"action": "setText", "ref": entry["matches"][0]["ref"], "text": phrase}],
            "expect": {"ref": entry["matches"][0]["ref"], "value": phrase},
        },
    )
    assert act["outcome"] == "worked", act
    await _call(
        session,
        "act_ui",
        {
            "stateId": act["stateId"],
            "actions": [{"action": "press", "ref": ok["matches"][0]["ref"]}],
        },
    )
    await _eventually(
        lambda: not process_alive(int(window["pid"])), "zenity exits when OK is pressed"
    )
    return str(state["stateId"]), int(window["pid"])


async def _eventually(check: Callable[[], Awaitable[bool] | bool], what: str) -> None:
    for _ in range(300):
        done = check()
        if done if isinstance(done, bool) else await done:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within 30 s: {what}")


async def _no_desktops(server: Server) -> bool:
    return await server.open_desktops() == 0 and not _descendants(server.process.pid)


async def test_the_port_named_in_the_start_up_line_already_accepts_connections(
    tmp_path: Path,
) -> None:
    """A client connects the moment it reads the line (as CI's did): it must not be refused."""
    async with serving(tmp_path, "--max-desktops", "1") as started:
        host, port = started.base.removeprefix("http://").rsplit(":", 1)
        _, writer = await asyncio.open_connection(host, int(port))
        writer.close()
        await writer.wait_closed()
        assert (await started.health())["desktops"]["open"] == 0
        assert started.process.returncode is None


async def test_a_missing_or_wrong_token_is_refused_and_nothing_starts(server: Server) -> None:
    async with httpx2.AsyncClient(timeout=10) as http:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        bare = await http.post(server.url, json=initialize)
        wrong = await http.post(
            server.url, json=initialize, headers={"Authorization": "Bearer nope"}
        )
    assert (bare.status_code, wrong.status_code) == (401, 401)
    assert wrong.headers["www-authenticate"].startswith("Bearer")
    with pytest.raises(Exception):  # noqa: B017 (the client's own error type for a 401)
        async with _session(server, token="nope"):
            pass
    assert await server.open_desktops() == 0


async def test_a_request_of_100000_actions_is_refused_unparsed_and_starts_nothing(
    server: Server,
) -> None:
    steps = [{"action": "press", "ref": "@e1"}] * 100_000
    arguments = {"name": "act_ui", "arguments": {"stateId": "s1", "actions": steps}}
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": arguments}
    async with httpx2.AsyncClient(timeout=10) as http:
        started = time.monotonic()
        refused = await http.post(
            server.url,
            json=body,
            headers={"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"},
        )
        took = time.monotonic() - started
    assert refused.status_code == 400
    assert refused.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "request refused unparsed: it holds more than 20 actions, and act_ui "
            "takes at most 20 per call. Send the steps over several act_ui calls.",
        },
    }
    assert took < 2, f"refusing took {took:.1f} s"
    assert await server.open_desktops() == 0


async def test_two_sessions_get_their_own_desktops_and_both_finish_a_zenity_task(
    server: Server,
) -> None:
    async with _session(server) as first, _session(server) as second:
        first_window, second_window = await asyncio.gather(
            _probe_window(first), _probe_window(second)
        )
        assert first_window["pid"] != second_window["pid"], "each desktop runs its own zenity"
        assert await server.open_desktops() == 2
        first_state, first_pid = await _answer_probe(first, "first desktop")
        # the first zenity is gone; the second session's zenity is untouched by it
        assert (await _call(first, "find_roots", {"text": "Probe"}))["windows"] == []
        assert (await _probe_window(second))["pid"] == second_window["pid"]
        # a state of one session means nothing in the other
        foreign = await second.call_tool("search_ui", {"stateId": first_state, "text": "OK"})
        assert foreign.is_error
        _, second_pid = await _answer_probe(second, "second desktop")
        assert first_pid != second_pid
    # the clients ended their sessions: their desktops and every process of them go
    await _eventually(lambda: _no_desktops(server), "the ended sessions' desktops are gone")
    assert server.leftovers() == []


async def test_the_desktop_cap_refuses_one_session_too_many(server: Server) -> None:
    async with _session(server), _session(server):
        assert await server.open_desktops() == CAP
        async with httpx2.AsyncClient(timeout=10) as http:
            refused = await http.post(
                server.url,
                json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
        assert refused.status_code == 503
        assert "--max-desktops" in refused.json()["message"]
    await _eventually(lambda: _no_desktops(server), "the ended sessions' desktops are gone")


async def test_sigterm_stops_the_server_and_tears_every_desktop_down(server: Server) -> None:
    opened = asyncio.Event()
    hold = asyncio.Event()

    async def client() -> None:
        async with _session(server) as session:
            await _probe_window(session)
            opened.set()
            await hold.wait()

    task = asyncio.create_task(client())
    async with asyncio.timeout(60):
        await opened.wait()
    children = _descendants(server.process.pid)
    assert children, "the session's desktop runs below the server"
    assert server.leftovers(), "and has its run dir"
    server.process.terminate()
    async with asyncio.timeout(30):
        code = await server.process.wait()
    hold.set()
    with contextlib.suppress(Exception):  # the server is gone: ending the session fails
        await task
    assert code == 0
    assert [pid for pid in children if process_alive(pid)] == []
    assert server.leftovers() == []
