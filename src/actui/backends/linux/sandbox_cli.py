"""``actui sandbox run [--app CMD]... -- COMMAND...``: a command on a private desktop.

Owns the command line: starting the apps, running COMMAND with the sandbox's
environment, returning its exit code, and turning SIGINT/SIGTERM into a clean
teardown. A command that cannot run is one line on stderr and exit code 127,
before any desktop starts; an app that ends while COMMAND runs is reported on
stderr with how it ended and the end of its output (its log lives in the
sandbox's runtime directory, which the teardown removes). The desktop itself
is :mod:`actui.backends.linux.sandbox`'s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shlex
import shutil
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from actui.backends.exits import from_returncode
from actui.backends.linux.sandbox import STOP_GRACE_S, Compositor, Sandbox, SandboxError


async def run_sandboxed(
    command: Sequence[str], apps: Sequence[str] = (), *, wayland: bool | Compositor = False
) -> int:
    """Run COMMAND on a fresh private desktop with APPS started; return COMMAND's exit code.

    SIGINT and SIGTERM cancel the run, which tears the desktop down (COMMAND gets SIGTERM and
    the grace period like every other process); the result is then COMMAND's own exit code if
    it has one, else 128 + the signal number, as a shell reports it.
    """
    if not command:
        raise ValueError("run_sandboxed needs a command")
    try:
        argvs = [_app_argv(app) for app in apps]
        if shutil.which(command[0]) is None:
            raise ValueError(f"COMMAND: cannot run {command[0]}: command not found")
    except ValueError as error:
        print(f"actui sandbox: {error}", file=sys.stderr)
        return 127
    received: list[int] = []
    process: asyncio.subprocess.Process | None = None
    with _cancel_on_signals(received):
        try:
            async with Sandbox(wayland=wayland) as sandbox:
                launched = []
                for app, argv in zip(apps, argvs, strict=True):
                    try:
                        launched.append(await sandbox.launch(argv))
                    except OSError as error:
                        print(f"actui sandbox: --app {app!r}: {_cannot(error)}", file=sys.stderr)
                        return 127
                await asyncio.gather(
                    *(
                        _await_app(sandbox, app, proc)
                        for app, proc in zip(apps, launched, strict=True)
                    )
                )
                watchers = [
                    asyncio.ensure_future(_report_exit(sandbox, app, proc))
                    for app, proc in zip(apps, launched, strict=True)
                    if proc.returncode is None  # one that ended already was reported
                ]
                try:
                    process = await asyncio.create_subprocess_exec(*command, env=sandbox.env)
                    await process.wait()
                except OSError as error:
                    print(f"actui sandbox: COMMAND: {_cannot(error)}", file=sys.stderr)
                    return 127
                finally:
                    for watcher in watchers:  # the teardown's kills are not deaths to report
                        watcher.cancel()
        except asyncio.CancelledError:
            if not received:
                raise
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()  # the cancellation was ours, and it is handled
        if process is not None:  # after a kill in teardown its status may still be on the way
            with contextlib.suppress(TimeoutError):
                return _exit_code(await asyncio.wait_for(process.wait(), STOP_GRACE_S))
    return 128 + received[0]


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


def _app_argv(app: str) -> list[str]:
    """An ``--app`` command line split as a shell would; ValueError naming it when it cannot be."""
    try:
        argv = shlex.split(app)
    except ValueError as error:
        raise ValueError(f"--app {app!r}: {error}") from None
    if not argv:
        raise ValueError(f"--app {app!r}: an empty command line")
    if shutil.which(argv[0]) is None:
        raise ValueError(f"--app {app!r}: cannot run {argv[0]}: command not found")
    return argv


def _cannot(error: OSError) -> str:
    return f"cannot run {error.filename or 'it'}: {error.strerror or error}"


async def _await_app(sandbox: Sandbox, app: str, process: asyncio.subprocess.Process) -> None:
    """Give COMMAND a desktop whose apps are up; an app that is not is reported, not fatal.

    Up means a window on AT-SPI, or a managed window for an app without accessibility.
    """
    try:
        await sandbox.wait_for_app(process.pid, x11=True)
    except (TimeoutError, SandboxError) as error:
        print(f"actui sandbox: --app {app!r}: {error}", file=sys.stderr)


async def _report_exit(sandbox: Sandbox, app: str, process: asyncio.subprocess.Process) -> None:
    """Say on stderr how an app ended while COMMAND ran, with the end of its output."""
    code = await process.wait()
    log = sandbox.log_of(process)
    ended = from_returncode(process.pid, code, str(log) if log else "").describe()
    tail = _tail(log) if log else ""
    print(
        f"actui sandbox: --app {app!r} (pid {process.pid}) {ended}"
        + (f"\n--- its last output ---\n{tail}" if tail else ""),
        file=sys.stderr,
        flush=True,
    )


def _tail(log: Path, lines: int = 10) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return ""


@contextlib.contextmanager
def _cancel_on_signals(received: list[int]) -> Iterator[None]:
    """Turn SIGINT/SIGTERM into cancellation of the current task, so teardown runs."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    installed: list[tuple[signal.Signals, Callable[..., Any] | int | None]] = []

    def on_signal(sig: signal.Signals) -> None:
        received.append(sig)
        if task is not None:
            task.cancel()

    for sig in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(sig)
        try:
            loop.add_signal_handler(sig, on_signal, sig)
        except (RuntimeError, ValueError):  # not the main thread: cancellation still tears down
            continue
        installed.append((sig, previous))
    try:
        yield
    finally:
        for sig, previous in installed:
            loop.remove_signal_handler(sig)
            signal.signal(sig, previous)


def sandbox_main(argv: list[str]) -> int:
    """``actui sandbox run [--app CMD]... -- COMMAND...``; returns COMMAND's exit code."""
    parser = argparse.ArgumentParser(
        prog="actui sandbox", description="Run a command on a private virtual desktop."
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    run = verbs.add_parser(
        "run", help="start a private desktop, run COMMAND in it, tear it down when COMMAND exits"
    )
    run.add_argument(
        "--app",
        action="append",
        default=[],
        metavar="CMD",
        help="an app to start first (a shell-quoted command line); repeatable",
    )
    run.add_argument(
        "--wayland",
        nargs="?",
        const="sway",
        choices=("sway", "gnome"),
        help="a headless Wayland compositor instead of Xvfb, sway unless `--wayland=gnome` "
        "(gnome-shell): apps start as native Wayland clients",
    )
    run.add_argument(
        "command",
        nargs="+",
        metavar="COMMAND",
        help="the command to run, after `--`, with DISPLAY (or WAYLAND_DISPLAY) and the buses set",
    )
    args = parser.parse_args(argv)
    try:
        return asyncio.run(run_sandboxed(args.command, args.app, wayland=args.wayland or False))
    except SandboxError as error:
        print(f"actui sandbox: {error}", file=sys.stderr)
        return 1
