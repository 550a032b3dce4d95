"""Nothing left behind: no process, no file, however a session ends.

Each test points the processes it starts at a fresh temp dir (``TMPDIR``), config home and
home, so a leftover is anything found there afterwards: a browser profile, a singleton dir,
a crash database, stored output, a sandbox's run dir. Short paths: Chromium aborts when its
singleton socket's path does not fit a socket address.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from procs import argv, command_name, display_locked, tree

from actui.backends.cdp import CdpBackend
from actui.backends.linux.sandbox import tagged_pids

PAGE = "data:text/html,<title>teardown</title><button>Press me</button>"
BIG_OUTPUT = "'x'.repeat(200000)"  # above the visible cap: the rest goes to the output store
GONE_WITHIN_S = 10.0


@dataclass(frozen=True)
class Places:
    """Where a run under test may write: all empty at the start."""

    tmp: Path
    config: Path
    home: Path

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env.update(TMPDIR=str(self.tmp), XDG_CONFIG_HOME=str(self.config), HOME=str(self.home))
        env.pop("DISPLAY", None)
        return env

    def leftovers(self) -> list[Path]:
        return sorted(p for top in (self.tmp, self.config, self.home) for p in top.rglob("*"))


@pytest.fixture
def places() -> Iterator[Places]:
    base = Path(tempfile.mkdtemp(prefix="t-"))
    dirs = Places(base / "t", base / "c", base / "h")
    for path in (dirs.tmp, dirs.config, dirs.home):
        path.mkdir()
    yield dirs
    shutil.rmtree(base, ignore_errors=True)


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            alive.add(pid)
    return alive


async def _until(check: Any, what: str, timeout_s: float = GONE_WITHIN_S) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"{what} within {timeout_s:g} s")
        await asyncio.sleep(0.1)


# -- the browser --------------------------------------------------------------------------


async def test_a_clean_launch_and_close_leaves_nothing(places: Places) -> None:
    backend = CdpBackend(env=places.env())
    root = await backend.launch(PAGE)
    browser = backend.browser_process
    assert browser is not None
    assert browser.profile.parent == places.tmp
    pids = tree(browser.process.pid)
    snapshot = await backend.snapshot(root, max_nodes=50, max_depth=8)
    assert "Press me" in repr(snapshot.tree)
    await backend.close()
    assert browser.process.returncode == 0  # it closed when asked (Browser.close), unkilled
    assert _alive(pids) == set()
    assert places.leftovers() == []


async def test_a_browser_that_must_be_killed_leaves_nothing(places: Places) -> None:
    backend = CdpBackend(env=places.env())
    await backend.launch(PAGE)
    browser = backend.browser_process
    assert browser is not None and any(browser.temp.iterdir()), "its singleton socket's dir"
    pids = tree(browser.process.pid)
    os.kill(browser.process.pid, signal.SIGSTOP)  # Browser.close will never be answered
    await backend.close()
    assert browser.process.returncode == -signal.SIGKILL
    assert _alive(pids) == set()
    assert not browser.temp.exists()
    assert places.leftovers() == []


# -- actui mcp ----------------------------------------------------------------------------


class RawMcp:
    """Newline-delimited JSON-RPC to a server's stdin/stdout, for tests that signal its pid."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._ids = 0

    @classmethod
    async def start(cls, argv: list[str], env: dict[str, str]) -> RawMcp:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
            limit=16 * 1024 * 1024,
        )
        mcp = cls(process)
        await mcp.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "teardown-test", "version": "0"},
            },
        )
        await mcp.notify("notifications/initialized")
        return mcp

    async def notify(self, method: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        await self.process.stdin.drain()

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self._ids += 1
        message = {"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params}
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), 60)
            assert line, "the server closed stdout"
            reply = json.loads(line)
            if reply.get("id") == self._ids:
                assert "result" in reply, reply
                return dict(reply["result"])

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.request("tools/call", {"name": tool, "arguments": arguments})
        assert not result.get("isError"), result
        return dict(result["structuredContent"])

    async def open_browser_with_stored_output(self) -> None:
        launched = await self.call("launch_browser", {"url": PAGE})
        evaluated = await self.call(
            "evaluate_browser", {"stateId": launched["stateId"], "expression": BIG_OUTPUT}
        )
        assert evaluated  # the tool answered; its long value went to the output store


@pytest.fixture
async def server(places: Places) -> AsyncIterator[RawMcp]:
    mcp = await RawMcp.start([sys.executable, "-m", "actui.server.cli", "mcp"], places.env())
    yield mcp
    if mcp.process.returncode is None:
        mcp.process.kill()
        await mcp.process.wait()


def _made_in(places: Places) -> set[str]:
    """What the run made in its temp dir, by kind (names without their random tails)."""
    return {
        path.name.rstrip("_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for path in places.tmp.iterdir()
    }


async def test_sigterm_to_actui_mcp_closes_the_browser_and_removes_its_dirs(
    places: Places, server: RawMcp
) -> None:
    await server.open_browser_with_stored_output()
    assert {"actui-chromium-", "actui-output-"} <= _made_in(places)
    pids = tree(server.process.pid) - {server.process.pid}
    assert pids
    server.process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(server.process.wait(), 30) == -signal.SIGTERM
    assert _alive(pids) == set()
    assert places.leftovers() == []


# -- actui sandbox run --------------------------------------------------------------------

SANDBOX = [sys.executable, "-m", "actui.server.cli", "sandbox", "run"]


@pytest.mark.parametrize(
    ("flags", "display_var", "display_names"),
    [
        ((), "DISPLAY", {"Xvfb", "openbox"}),
        (("--wayland",), "WAYLAND_DISPLAY", {"sway"}),
        (("--wayland=gnome",), "WAYLAND_DISPLAY", {"gnome-shell", "dconf-service"}),
    ],
    ids=["x11", "wayland", "gnome"],
)
async def test_killing_the_sandbox_owner_stops_its_desktop_and_removes_its_run_dir(
    places: Places, flags: tuple[str, ...], display_var: str, display_names: set[str]
) -> None:
    marker = places.tmp.parent / "inside"
    owner = await asyncio.create_subprocess_exec(
        *SANDBOX,
        *flags,
        "--app",
        "zenity --info --text=hello",
        "--",
        "sh",
        "-c",
        f'echo "$ACTUI_SANDBOX_ID ${display_var}" > {marker}; exec sleep 300',
        env=places.env(),
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await _until(lambda: marker.exists() and marker.read_text().strip(), "no sandbox", 60)
        token, display = marker.read_text().split()
        pids = tree(owner.pid) - {owner.pid}
        pids |= tagged_pids(token)  # gnome-shell's bus-activated helpers are not children
        names = {command_name(pid) for pid in pids}
        assert display_names | {"dbus-daemon", "zenity", "sleep"} <= names, names
        assert _made_in(places) == {"actui-sandbox-"}
        owner.kill()
        await owner.wait()
        await _until(lambda: not _alive(pids) and not tagged_pids(token), "processes remain")
        await _until(lambda: places.leftovers() == [], "the run dir remains")
        if flags:  # the compositor's runtime dir (sway's, or the run dir) goes too
            await _until(lambda: not Path(display).parent.exists(), "sway's runtime dir remains")
        else:
            assert not display_locked(display)
    finally:
        if owner.returncode is None:
            owner.kill()
            await owner.wait()


async def test_killing_the_client_inside_a_sandbox_leaves_nothing(places: Places) -> None:
    client = [sys.executable, "-m", "actui.server.cli", "mcp"]
    owner = await RawMcp.start([*SANDBOX, "--", *client], places.env())
    try:
        await owner.open_browser_with_stored_output()
        everything = tree(owner.process.pid)
        clients = [pid for pid in everything if argv(pid) == client]
        assert len(clients) == 1, clients
        assert any(command_name(pid).startswith("chrom") for pid in everything)
        os.kill(clients[0], signal.SIGKILL)
        assert await asyncio.wait_for(owner.process.wait(), 30) == 128 + signal.SIGKILL
        assert _alive(everything) == set()
        assert places.leftovers() == []
    finally:
        if owner.process.returncode is None:
            owner.process.kill()
            await owner.process.wait()


def _mentioning(text: str) -> set[int]:
    """The processes whose command line holds ``text`` (Chromium's crash handlers, which
    leave the tree and their session, name the profile inside the run dir)."""
    return {pid for pid in tree(1) if text in " ".join(argv(pid))}


OWNER_KILLS = 10
CLIENT = [sys.executable, "-m", "actui.server.cli", "mcp"]


async def test_killing_the_sandbox_owner_with_a_launched_browser_leaves_nothing_every_time(
    places: Places,
) -> None:
    """Chromium overwrites its environment (its process titles), so it is found by ancestry
    and session; in odd runs the client is stopped first, so only the reaper can end it."""
    for run in range(OWNER_KILLS):
        await _kill_the_owner_of_a_browser(places, run, stop_the_client=run % 2 == 1)


async def _kill_the_owner_of_a_browser(places: Places, run: int, *, stop_the_client: bool) -> None:
    owner = await RawMcp.start([*SANDBOX, "--", *CLIENT], places.env())
    try:
        launched = await owner.call("launch_browser", {"url": PAGE})
        assert launched["stateId"]
        everything = tree(owner.process.pid) | _mentioning(str(places.tmp))
        assert any(command_name(pid).startswith("chrom") for pid in everything)
        if stop_the_client:
            (mcp,) = [pid for pid in everything if argv(pid) == CLIENT]
            os.kill(mcp, signal.SIGSTOP)
        owner.process.kill()
        await owner.process.wait()
        await _until(lambda: not _alive(everything), f"run {run}: processes remain")
        await _until(lambda: places.leftovers() == [], f"run {run}: files remain")
    finally:
        if owner.process.returncode is None:
            owner.process.kill()
            await owner.process.wait()


async def test_a_sandbox_under_a_120_character_tmpdir_launches_a_browser(places: Places) -> None:
    """Sockets under the run dir (the buses', Chromium's singleton) must fit 107 bytes."""
    deep = places.tmp / ("d" * (120 - len(str(places.tmp)) - 1))
    deep.mkdir()
    env = {**places.env(), "TMPDIR": str(deep)}
    owner = await RawMcp.start([*SANDBOX, "--", *CLIENT], env)
    try:
        launched = await owner.call("launch_browser", {"url": PAGE})
        found = await owner.call("search_ui", {"stateId": launched["stateId"], "text": "Press me"})
        assert found["matches"], found
        everything = tree(owner.process.pid) | _mentioning(str(places.tmp))
        assert any(command_name(pid).startswith("chrom") for pid in everything)
        assert owner.process.stdin is not None
        owner.process.stdin.close()
        assert await asyncio.wait_for(owner.process.wait(), 30) == 0
        await _until(lambda: not _alive(everything), "processes remain")
        assert places.leftovers() == [deep]
    finally:
        if owner.process.returncode is None:
            owner.process.kill()
            await owner.process.wait()
