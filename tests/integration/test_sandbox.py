"""The private desktop, with real processes: it starts, isolates, runs commands, and leaves
nothing behind."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import shutil
import signal
import statistics
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from computer_helpers import process_alive
from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus
from Xlib import X
from Xlib.display import Display

from actui.backends.linux.sandbox import TOKEN_VAR, Sandbox, SandboxError, tagged_pids
from actui.backends.linux.sandbox_cli import run_sandboxed

pytestmark = pytest.mark.integration

ZENITY = ["zenity", "--info", "--text=a"]


def _exists(path: Path) -> bool:
    return path.exists()


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _desktop_pids(sandbox: Sandbox) -> set[int]:
    return tagged_pids(sandbox.env[TOKEN_VAR])


def _window_manager_and_clients(display: str) -> tuple[bool, int]:
    """Whether a WM runs on ``display`` and how many client windows it manages."""
    conn = Display(display)
    try:
        root = conn.screen().root
        wm = root.get_full_property(conn.intern_atom("_NET_SUPPORTING_WM_CHECK"), X.AnyPropertyType)
        clients = root.get_full_property(conn.intern_atom("_NET_CLIENT_LIST"), X.AnyPropertyType)
        return wm is not None, len(clients.value) if clients else 0
    finally:
        conn.close()


async def _call(
    address: str,
    dest: str,
    path: str,
    iface: str,
    member: str,
    signature: str = "",
    body: list[object] | None = None,
) -> list[Any]:
    bus = await MessageBus(bus_address=address).connect()
    try:
        reply = await asyncio.wait_for(
            bus.call(
                Message(
                    destination=dest,
                    path=path,
                    interface=iface,
                    member=member,
                    signature=signature,
                    body=body or [],
                )
            ),
            5,
        )
    finally:
        bus.disconnect()
    assert reply is not None and reply.message_type != MessageType.ERROR, reply
    return list(reply.body)


async def _registered_apps(sandbox: Sandbox) -> list[Any]:
    (apps,) = await _call(
        sandbox.env["AT_SPI_BUS_ADDRESS"],
        "org.a11y.atspi.Registry",
        "/org/a11y/atspi/accessible/root",
        "org.a11y.atspi.Accessible",
        "GetChildren",
    )
    assert isinstance(apps, list)
    return apps


async def test_sandbox_starts_a_working_desktop_and_stops_cleanly() -> None:
    async with Sandbox() as sandbox:
        env = sandbox.env
        assert env["DISPLAY"] == sandbox.display
        assert "WAYLAND_DISPLAY" not in env
        # the host's GTK modules never leak in; GTK 2's bridge is the sandbox's own
        assert env["GTK_MODULES"] == "gail:atk-bridge"
        assert env["XDG_SESSION_TYPE"] == "x11" and env["GSK_RENDERER"] == "cairo"
        home = Path(env["HOME"])
        assert _exists(home) and home.parent == Path(env["XDG_RUNTIME_DIR"])
        assert Path(env["XDG_CONFIG_HOME"]).parent == home
        assert await asyncio.to_thread(_window_manager_and_clients, sandbox.display) == (True, 0)
        (a11y,) = await _call(
            env["DBUS_SESSION_BUS_ADDRESS"],
            "org.a11y.Bus",
            "/org/a11y/bus",
            "org.a11y.Bus",
            "GetAddress",
        )
        assert a11y == env["AT_SPI_BUS_ADDRESS"]
        (enabled,) = await _call(
            env["DBUS_SESSION_BUS_ADDRESS"],
            "org.a11y.Bus",
            "/org/a11y/bus",
            "org.freedesktop.DBus.Properties",
            "Get",
            "ss",
            ["org.a11y.Status", "IsEnabled"],
        )
        assert enabled.value is True
        assert await _registered_apps(sandbox) == []
        pids = _desktop_pids(sandbox)
        runtime_dir = Path(env["XDG_RUNTIME_DIR"])
        number = sandbox.display[1:]
    assert 0 < sandbox.startup_s < 10
    assert len(pids) >= 6  # Xvfb, session bus, launcher, a11y bus, registry, openbox
    assert [pid for pid in pids if process_alive(pid)] == []
    assert not _exists(runtime_dir)
    assert not _exists(Path(f"/tmp/.X{number}-lock"))


async def test_no_process_survives_when_the_body_raises() -> None:
    pids: set[int] = set()
    a11y_bus: list[int] = []
    with pytest.raises(RuntimeError, match="body failed"):
        async with Sandbox() as sandbox:
            zenity = await sandbox.launch(ZENITY)
            await sandbox.wait_for_app(zenity.pid)
            # A process the caller starts itself with the sandbox env, and its grandchild.
            shell = await asyncio.create_subprocess_exec(
                "sh",
                "-c",
                "sleep 300 & echo $!; exec sleep 300",
                env=sandbox.env,
                stdout=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
            assert shell.stdout is not None
            grandchild = int(await asyncio.wait_for(shell.stdout.readline(), 10))
            pids = _desktop_pids(sandbox) | {zenity.pid, shell.pid, grandchild}
            a11y_bus = [pid for pid in pids if "accessibility.conf" in _cmdline(pid)]
            raise RuntimeError("body failed")
    assert a11y_bus, "the a11y bus daemon (the launcher's child) was not among the pids"
    assert [pid for pid in pids if process_alive(pid)] == []


async def test_no_process_survives_when_the_body_is_cancelled() -> None:
    started: asyncio.Future[set[int]] = asyncio.get_running_loop().create_future()

    async def body() -> None:
        async with Sandbox() as sandbox:
            await sandbox.launch(ZENITY)
            started.set_result(_desktop_pids(sandbox))
            await asyncio.sleep(3600)

    task = asyncio.create_task(body())
    pids = await asyncio.wait_for(started, 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert pids and [pid for pid in pids if process_alive(pid)] == []


_HARD_KILLED_OWNER = """
import asyncio
from actui.backends.linux.sandbox import TOKEN_VAR, Sandbox

async def main():
    sandbox = await Sandbox().__aenter__()
    zenity = await sandbox.launch(["zenity", "--info", "--text=a"])
    await sandbox.wait_for_app(zenity.pid)
    print(sandbox.env[TOKEN_VAR], sandbox.env["XDG_RUNTIME_DIR"], flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _still_running_after(pids: set[int], timeout: float) -> set[int]:
    """Wait on pidfds until every pid has exited or ``timeout`` passes; return the rest."""
    fds = {}
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            fds[os.pidfd_open(pid)] = pid
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout
    running = set(fds)
    try:
        while running and time.monotonic() < deadline:
            for fd, _ in poller.poll(max(0.0, deadline - time.monotonic()) * 1000):
                running.discard(fd)
                poller.unregister(fd)
        return {fds[fd] for fd in running}
    finally:
        for fd in fds:
            os.close(fd)


async def test_no_process_survives_when_the_owner_is_killed_without_teardown() -> None:
    owner = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _HARD_KILLED_OWNER,
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert owner.stdout is not None
    pids: set[int] = set()
    runtime_dir = ""
    try:
        line = await asyncio.wait_for(owner.stdout.readline(), 30)
        token, runtime_dir = line.decode().split()
        pids = tagged_pids(token)
        assert len(pids) >= 7  # the desktop and zenity
        owner.kill()
        await owner.wait()
        assert await asyncio.to_thread(_still_running_after, pids, 10) == set()
    finally:
        if owner.returncode is None:
            owner.kill()
            await owner.wait()
        for pid in pids:  # only if the assertion failed: leave nothing behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if runtime_dir:  # no teardown ran to remove it
            shutil.rmtree(runtime_dir, ignore_errors=True)


@pytest.fixture
async def two_sandboxes() -> AsyncIterator[tuple[Sandbox, Sandbox]]:
    async with AsyncExitStack() as stack:
        first, second = Sandbox(), Sandbox()
        # Started at the same moment, so both race for the same first free display.
        await asyncio.gather(stack.enter_async_context(first), stack.enter_async_context(second))
        yield first, second


async def test_two_sandboxes_at_once_are_isolated(two_sandboxes: tuple[Sandbox, Sandbox]) -> None:
    first, second = two_sandboxes
    for key in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR"):
        assert first.env[key] != second.env[key], key
    zenity = await first.launch(ZENITY)
    await first.wait_for_app(zenity.pid, timeout=20)
    assert len(await _registered_apps(first)) == 1
    assert await _registered_apps(second) == []
    with pytest.raises(TimeoutError):
        await second.wait_for_app(zenity.pid, timeout=0.5)
    assert await asyncio.to_thread(_window_manager_and_clients, first.display) == (True, 1)
    assert await asyncio.to_thread(_window_manager_and_clients, second.display) == (True, 0)


@pytest.mark.asyncio(loop_scope="module")
async def test_wait_for_app_finds_an_app_started_through_a_wrapper(
    module_sandbox: Sandbox,
) -> None:
    wrapper = await module_sandbox.launch(["sh", "-c", "zenity --info --text=wrapped; true"])
    await module_sandbox.wait_for_app(wrapper.pid, timeout=20)


@pytest.mark.asyncio(loop_scope="module")
async def test_wait_for_app_times_out_naming_a_bogus_pid(module_sandbox: Sandbox) -> None:
    with pytest.raises(TimeoutError, match=r"pid 999999 .* within 0.5 s"):
        await module_sandbox.wait_for_app(999999, timeout=0.5)


async def test_wait_for_app_fails_at_once_when_the_app_exits(sandbox: Sandbox) -> None:
    quitter = await sandbox.launch(["sh", "-c", "exit 4"])
    with pytest.raises(SandboxError, match="exited with code 4"):
        await sandbox.wait_for_app(quitter.pid, timeout=20)


async def test_run_sandboxed_returns_the_failing_commands_exit_code() -> None:
    assert await run_sandboxed(["sh", "-c", "exit 3"]) == 3


async def test_run_sandboxed_reports_a_missing_command_as_127() -> None:
    assert await run_sandboxed(["/nonexistent/command"]) == 127


_PROBE = """
import asyncio, json, os, sys
from dbus_fast import Message
from dbus_fast.aio import MessageBus
from Xlib import X
from Xlib.display import Display

async def main():
    conn = Display()  # DISPLAY from the environment
    wm = conn.screen().root.get_full_property(
        conn.intern_atom("_NET_SUPPORTING_WM_CHECK"), X.AnyPropertyType) is not None
    session = await MessageBus().connect()  # DBUS_SESSION_BUS_ADDRESS from the environment
    reply = await session.call(Message(destination="org.a11y.Bus", path="/org/a11y/bus",
                                       interface="org.a11y.Bus", member="GetAddress"))
    a11y = await MessageBus(bus_address=reply.body[0]).connect()
    apps = await a11y.call(Message(destination="org.a11y.atspi.Registry",
                                   path="/org/a11y/atspi/accessible/root",
                                   interface="org.a11y.atspi.Accessible", member="GetChildren"))
    json.dump({"display": os.environ["DISPLAY"], "wm": wm, "apps": len(apps.body[0]),
               "bus": os.environ["DBUS_SESSION_BUS_ADDRESS"]}, open(sys.argv[1], "w"))
    sys.exit(5)

asyncio.run(main())
"""


def test_sandbox_main_runs_command_on_the_desktop_with_its_apps(tmp_path: Path) -> None:
    from actui.backends.linux.sandbox_cli import sandbox_main

    out = tmp_path / "seen.json"
    code = sandbox_main(
        [
            "run",
            "--app",
            "zenity --info --text='hello there'",
            "--",
            sys.executable,
            "-c",
            _PROBE,
            str(out),
        ]
    )
    assert code == 5
    seen = json.loads(out.read_text())
    assert seen["display"].startswith(":") and seen["bus"].startswith("unix:")
    assert seen["wm"] is True
    assert seen["apps"] == 1  # the --app zenity, up before COMMAND started


@pytest.mark.parametrize(("sig", "expected"), [(signal.SIGTERM, 143), (signal.SIGINT, 143)])
async def test_signal_to_sandbox_run_tears_everything_down(
    sig: signal.Signals, expected: int
) -> None:
    """SIGINT to the runner alone (not its group) still stops COMMAND, with SIGTERM."""
    runner = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import sys; from actui.backends.linux.sandbox_cli import sandbox_main; "
        "sys.exit(sandbox_main(sys.argv[1:]))",
        "run",
        "--",
        "sh",
        "-c",
        f'echo "${TOKEN_VAR}"; exec sleep 300',
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert runner.stdout is not None
    try:
        token = (await asyncio.wait_for(runner.stdout.readline(), 30)).decode().strip()
        pids = tagged_pids(token)
        assert len(pids) >= 7  # the desktop and COMMAND
        runner.send_signal(sig)
        assert await asyncio.wait_for(runner.wait(), 15) == expected
        assert [pid for pid in pids if process_alive(pid)] == []
    finally:
        if runner.returncode is None:
            os.killpg(runner.pid, signal.SIGKILL)
            await runner.wait()


async def test_sandbox_startup_median_is_under_five_seconds() -> None:
    times = []
    for _ in range(3):
        async with Sandbox() as sandbox:
            times.append(sandbox.startup_s)
    median = statistics.median(times)
    print(f"sandbox start-up: median {median:.3f} s of {[round(t, 3) for t in times]}")
    assert median < 5


def _run_cli(*argv: str) -> tuple[int, str]:
    """``actui sandbox run …`` as a separate process: its exit code and its stderr."""
    import subprocess

    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from actui.server.cli import main; sys.exit(main(sys.argv[1:]))",
            "sandbox",
            "run",
            *argv,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    return done.returncode, done.stderr


def test_sandbox_run_with_an_app_that_cannot_run_is_one_clear_line() -> None:
    code, err = _run_cli("--app", "nosuchapp --flag", "--", "true")
    assert code == 127
    expected = "actui sandbox: --app 'nosuchapp --flag': cannot run nosuchapp: command not found"
    assert err.strip() == expected
    assert "Traceback" not in err


def test_sandbox_run_keeps_an_apps_output_and_reports_its_death(tmp_path: Path) -> None:
    """The app prints and shows a window; COMMAND crashes it, then reads the app's log."""
    seen = tmp_path / "log.txt"
    app = "sh -c 'echo ready to crash; echo going down >&2; exec zenity --info --text=hi'"
    command = (
        'pid=$(basename "$ACTUI_SANDBOX_APPS"/[0-9]*.json .json); kill -SEGV "$pid"; '
        f'sleep 2; cat "$ACTUI_SANDBOX_APPS"/sh-*.log > {seen}'
    )
    code, err = _run_cli("--app", app, "--", "sh", "-c", command)
    assert code == 0, err
    assert seen.read_text().split("\n")[:2] == ["ready to crash", "going down"]
    report = next(line for line in err.splitlines() if "killed" in line)
    assert "was killed by signal SIGSEGV" in report and "/apps/sh-" in report, err
    assert "going down" in err  # the end of its output, kept past the teardown
    assert "Traceback" not in err
