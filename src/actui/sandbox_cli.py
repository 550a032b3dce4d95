"""``actui sandbox run [--app CMD]... -- COMMAND...``: a command on a private desktop.

Owns the command line: starting the apps, running COMMAND with the sandbox's
environment, returning its exit code, and turning SIGINT/SIGTERM into a clean
teardown. The desktop itself is :mod:`actui.sandbox`'s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shlex
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from actui.sandbox import STOP_GRACE_S, Sandbox, SandboxError


async def run_sandboxed(command: Sequence[str], apps: Sequence[str] = ()) -> int:
    """Run COMMAND on a fresh private desktop with APPS started; return COMMAND's exit code.

    SIGINT and SIGTERM cancel the run, which tears the desktop down (COMMAND gets SIGTERM and
    the grace period like every other process); the result is then COMMAND's own exit code if
    it has one, else 128 + the signal number, as a shell reports it.
    """
    if not command:
        raise ValueError("run_sandboxed needs a command")
    received: list[int] = []
    process: asyncio.subprocess.Process | None = None
    with _cancel_on_signals(received):
        try:
            async with Sandbox() as sandbox:
                launched = [await sandbox.launch(shlex.split(app)) for app in apps]
                await asyncio.gather(
                    *(
                        _await_app(sandbox, app, proc)
                        for app, proc in zip(apps, launched, strict=True)
                    )
                )
                try:
                    process = await asyncio.create_subprocess_exec(*command, env=sandbox.env)
                except OSError as error:
                    print(f"actui sandbox: cannot run {command[0]}: {error}", file=sys.stderr)
                    return 127
                await process.wait()
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


async def _await_app(sandbox: Sandbox, app: str, process: asyncio.subprocess.Process) -> None:
    """Give COMMAND a desktop whose apps are up; an app that is not is reported, not fatal."""
    try:
        await sandbox.wait_for_app(process.pid)
    except (TimeoutError, SandboxError) as error:
        print(f"actui sandbox: --app {app!r}: {error}", file=sys.stderr)


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
        "command",
        nargs="+",
        metavar="COMMAND",
        help="the command to run, after `--`, with DISPLAY and the buses set",
    )
    args = parser.parse_args(argv)
    return asyncio.run(run_sandboxed(args.command, args.app))
