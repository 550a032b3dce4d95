"""How a process ended: its wait status from this machine's real /proc, or a sandbox record."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

from actui.backends import exit_records
from actui.backends.base import ProcessExit
from actui.backends.exits import from_returncode, process_exit
from actui.backends.procfs import liveness


def _zombie(argv: list[str]) -> subprocess.Popen[bytes]:
    """A child that ended and is not reaped yet (Popen reaps only when asked)."""
    child = subprocess.Popen(argv)
    deadline = time.monotonic() + 10
    while liveness(child.pid).running and time.monotonic() < deadline:
        time.sleep(0.01)
    return child


def test_a_running_process_has_not_exited() -> None:
    child = subprocess.Popen(["sleep", "5"])
    try:
        assert asyncio.run(process_exit(child.pid, None)) is None
    finally:
        child.kill()
        child.wait()


def test_a_segfaulted_zombie_reports_its_signal() -> None:
    child = _zombie(["sh", "-c", "kill -SEGV $$"])
    try:
        ended = asyncio.run(process_exit(child.pid, None))
        assert ended == ProcessExit(child.pid, signal="SIGSEGV")
        assert ended.describe() == "was killed by signal SIGSEGV"
    finally:
        child.wait()


def test_a_zombies_exit_code_is_read() -> None:
    child = _zombie(["sh", "-c", "exit 3"])
    try:
        assert asyncio.run(process_exit(child.pid, None)) == ProcessExit(child.pid, code=3)
    finally:
        child.wait()


def test_a_reaped_sandbox_child_is_told_by_its_record(tmp_path: Path) -> None:
    child = subprocess.Popen(["sh", "-c", "kill -KILL $$"])
    child.wait()  # reaped: /proc no longer knows
    log = str(tmp_path / "sh-1.log")
    exit_records.write(tmp_path, exit_records.AppRecord(child.pid, "sh", log, child.returncode))
    ended = asyncio.run(process_exit(child.pid, tmp_path))
    assert ended == ProcessExit(child.pid, signal="SIGKILL", log=log)
    assert ended.describe() == f"was killed by signal SIGKILL; its output is in {log}"


def test_a_reaped_stranger_has_exited_with_no_known_status(tmp_path: Path) -> None:
    child = subprocess.Popen(["true"])
    child.wait()
    ended = asyncio.run(process_exit(child.pid, tmp_path))
    assert ended == ProcessExit(child.pid)
    assert ended.describe() == "exited (its exit status is not known)"


def test_return_codes_map_to_signals_and_codes() -> None:
    assert from_returncode(7, -signal.SIGTERM) == ProcessExit(7, signal="SIGTERM")
    assert from_returncode(7, 4) == ProcessExit(7, code=4)
    assert from_returncode(7, 4).describe() == "exited with code 4"


def test_a_record_round_trips_and_a_missing_one_is_none(tmp_path: Path) -> None:
    record = exit_records.AppRecord(os.getpid(), "app", "/x.log")
    exit_records.write(tmp_path, record)
    assert exit_records.read(tmp_path, os.getpid()) == record
    assert exit_records.read(tmp_path, 1) is None


def test_a_request_to_end_is_not_a_crash_and_says_so() -> None:
    """A window manager's close may end an app with SIGTERM: named like a closed window."""
    for asked in ("SIGTERM", "SIGINT", "SIGHUP"):
        ended = ProcessExit(7, signal=asked)
        assert not ended.crashed
        assert ended.describe() == f"ended on signal {asked} (a request to end)"
    for crash in ("SIGKILL", "SIGSEGV", "SIGABRT"):
        assert ProcessExit(7, signal=crash).crashed
    assert not ProcessExit(7, code=1).crashed and not ProcessExit(7).crashed
