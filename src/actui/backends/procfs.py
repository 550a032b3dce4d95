"""Which processes an application started lately, read from Linux's /proc.

A launcher (xfce4-appfinder, a file manager) answers a press by starting a
process whose window appears a second later, long after the launcher itself
went quiet. Knowing that a process was started tells the runtime to keep
waiting for that window. Pure reading of /proc; it knows nothing of windows.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

PROC = "/proc"


@dataclass(frozen=True)
class _Process:
    ppid: int
    session: int
    started_s: float
    """Seconds after boot (the boot clock, as /proc counts)."""


def boot_seconds(monotonic_s: float) -> float:
    """A ``time.monotonic()`` reading on the boot clock /proc uses (they differ by suspends)."""
    return monotonic_s + time.clock_gettime(time.CLOCK_BOOTTIME) - time.monotonic()


def started_by(pid: int, since_monotonic_s: float) -> list[int]:
    """Live processes started at or after the time given that ``pid`` started.

    Its descendants, and the members of the session it leads (a launcher that
    double-forks leaves no parent link, but its session stays).
    """
    # /proc counts start times in whole clock ticks, rounded down
    since = boot_seconds(since_monotonic_s) - 1 / os.sysconf("SC_CLK_TCK")
    table = _processes()
    me = table.get(pid)
    leads = me is not None and me.session == pid
    found = []
    for other, proc in table.items():
        if other == pid or proc.started_s < since:
            continue
        if (leads and proc.session == pid) or _descends(other, pid, table):
            found.append(other)
    return sorted(found)


def _descends(child: int, ancestor: int, table: dict[int, _Process]) -> bool:
    seen = set()
    current = table.get(child)
    while current is not None and current.ppid not in seen:
        if current.ppid == ancestor:
            return True
        seen.add(current.ppid)
        current = table.get(current.ppid)
    return False


def _processes() -> dict[int, _Process]:
    ticks = os.sysconf("SC_CLK_TCK")
    table: dict[int, _Process] = {}
    for entry in os.listdir(PROC):
        if not entry.isdigit():
            continue
        try:
            with open(f"{PROC}/{entry}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue  # exited meanwhile
        # the name may hold spaces and parentheses: fields follow the last ")"
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields[0] == b"Z":
            continue
        table[int(entry)] = _Process(int(fields[1]), int(fields[3]), int(fields[19]) / ticks)
    return table
