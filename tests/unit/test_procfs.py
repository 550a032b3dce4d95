"""Processes an application started, read from this machine's real /proc."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from actui.backends.procfs import started_by


def test_a_child_started_after_the_mark_is_found_and_one_before_is_not() -> None:
    earlier = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        time.sleep(0.05)
        mark = time.monotonic()
        time.sleep(0.05)  # /proc counts start times in clock ticks
        later = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
        try:
            found = started_by(os.getpid(), mark)
            assert later.pid in found and earlier.pid not in found
        finally:
            later.kill()
            later.wait()
    finally:
        earlier.kill()
        earlier.wait()


def test_a_session_leaders_double_forked_grandchild_is_found() -> None:
    """A launcher that double-forks leaves no parent link; its session remains."""
    mark = time.monotonic()
    leader = subprocess.Popen(
        ["sh", "-c", "(sleep 5 &) ; sleep 5"], start_new_session=True, stdout=subprocess.DEVNULL
    )
    try:
        time.sleep(0.3)
        found = started_by(leader.pid, mark)
        sleepers = [pid for pid in found if _name(pid) == "sleep"]
        assert len(sleepers) == 2, found  # the waited-for one and the orphaned one
        assert any(_parent(pid) != leader.pid for pid in sleepers), "one was reparented"
    finally:
        os.killpg(leader.pid, 9)
        leader.wait()


def _name(pid: int) -> str:
    with open(f"/proc/{pid}/comm") as file:
        return file.read().strip()


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as file:
        stat = file.read()
    return int(stat[stat.rfind(b")") + 2 :].split()[1])
