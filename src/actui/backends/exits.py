"""How a desktop application's process ended: from /proc, or from the sandbox's records.

A window that vanishes may have been closed, or its application may have
crashed; an agent must be told which. A process not yet reaped still shows
its wait status in /proc; one the sandbox started (and asyncio reaped at
once) has its status in the sandbox's exit record. A process on its way out
is given a moment to finish, and a record a moment to be written, so a crash
seen a few milliseconds early is still reported as one. Nothing here knows
about windows.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from actui.backends import exit_records
from actui.backends.base import ProcessExit
from actui.backends.procfs import liveness
from actui.deadlines import Deadline

SETTLE_S = 1.0
"""How long an exiting process, or a sandbox child's missing record, is waited for."""
POLL_S = 0.05


async def process_exit(pid: int, records: Path | None) -> ProcessExit | None:
    """How ``pid`` ended; None while it runs. ``records``: the sandbox's exit records, if any."""
    if pid <= 0:
        return None
    deadline = Deadline(SETTLE_S)
    while True:
        now = liveness(pid)
        record = exit_records.read(records, pid) if records is not None else None
        log = record.log if record is not None else ""
        if now.wait_status is not None:
            return _from_wait_status(pid, now.wait_status, log)
        if record is not None and record.returncode is not None:
            return from_returncode(pid, record.returncode, log)
        if now.running and not now.exiting:
            return None
        # on its way out, or reaped by the sandbox whose record is on its way
        if not deadline.expired and (now.exiting or record is not None):
            await deadline.pause(POLL_S)
            continue
        return None if now.running else ProcessExit(pid, log=log)


def _from_wait_status(pid: int, status: int, log: str) -> ProcessExit:
    if os.WIFSIGNALED(status):
        return ProcessExit(pid, signal=_signal_name(os.WTERMSIG(status)), log=log)
    return ProcessExit(pid, code=os.WEXITSTATUS(status), log=log)


def from_returncode(pid: int, returncode: int, log: str = "") -> ProcessExit:
    """From asyncio's (and subprocess's) return code: -N means killed by signal N."""
    if returncode < 0:
        return ProcessExit(pid, signal=_signal_name(-returncode), log=log)
    return ProcessExit(pid, code=returncode, log=log)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
