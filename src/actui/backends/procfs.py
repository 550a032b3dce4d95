"""What Linux's /proc says about processes: which ones an application started
lately, and whether one still runs or how it ended.

A launcher (xfce4-appfinder, a file manager) answers a press by starting a
process whose window appears a second later, long after the launcher itself
went quiet. Knowing that a process was started tells the runtime to keep
waiting for that window. A process that ended and was not yet reaped (a
zombie) still shows its wait status, which tells a crash from a clean exit.
Pure reading of /proc; it knows nothing of windows.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

PROC = "/proc"


PF_EXITING = 0x4
"""The kernel's per-task flag (``flags``, field 9 of ``stat``) of a process on its way out."""


@dataclass(frozen=True)
class Liveness:
    """A process as /proc shows it now.

    ``running`` and not ``exiting``: alive. ``wait_status`` (as ``waitpid``
    reports it) only for a zombie; a process gone from /proc has neither.
    """

    running: bool
    exiting: bool = False
    wait_status: int | None = None


def liveness(pid: int) -> Liveness:
    """Whether ``pid`` runs, is exiting, is a zombie (with its status) or is gone."""
    try:
        with open(f"{PROC}/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return Liveness(running=False)
    fields = _fields(stat)
    if fields[0] in (b"Z", b"X"):
        # exit_code is field 52 (Linux 3.5 and later); fields here start at field 3
        status = int(fields[49]) if len(fields) > 49 else None
        return Liveness(running=False, wait_status=status)
    return Liveness(running=True, exiting=bool(int(fields[6]) & PF_EXITING))


def _fields(stat: bytes) -> list[bytes]:
    """``stat``'s fields from the third (state) on: the name may hold spaces and parentheses."""
    return stat[stat.rfind(b")") + 2 :].split()


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
        fields = _fields(stat)
        if fields[0] == b"Z":
            continue
        table[int(entry)] = _Process(int(fields[1]), int(fields[3]), int(fields[19]) / ticks)
    return table
