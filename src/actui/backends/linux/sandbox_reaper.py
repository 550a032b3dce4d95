"""Finishing a sandbox's teardown when its owner dies first (SIGKILL, a crash, ``os._exit``).

The owner starts this file as a script (stdlib only, so it starts fast and imports nothing
of actui) with the read end of a lifeline pipe as its stdin, and keeps the write end. The
kernel closes that end however the owner ends; on EOF this script stops every process of the
sandbox (SIGTERM and SIGCONT, a grace period, SIGKILL until none is left) and removes the run
dir, where everything the sandbox's processes wrote lives (``TMPDIR`` points inside it). After
a clean teardown nothing is left and it exits at once. It must not start anything.

Which processes are the sandbox's is :func:`members`' to say, for the owner's teardown and
this script alike.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import sys
import time
from pathlib import Path

TOKEN_VAR = "ACTUI_SANDBOX_ID"
GRACE_S = 2.0
KILL_ROUNDS = 5
"""SIGKILL rounds at most: each meets only what forked while the one before was sent."""


def _processes() -> dict[int, tuple[int, int]]:
    """Every live process (zombies excluded): its parent and its session."""
    found: dict[int, tuple[int, int]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            found[int(proc.name)] = (int(fields[1]), int(fields[3]))
    return found


def _tagged(pid: int, entry: bytes) -> bool:
    try:
        return entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


def tagged_pids(token: str) -> set[int]:
    """The live processes whose environment still carries this sandbox token (zombies excluded)."""
    entry = f"{TOKEN_VAR}={token}".encode()
    return {pid for pid in _processes() if _tagged(pid, entry)}


def members(token: str, sessions: set[int]) -> set[int]:
    """Every live process of the sandbox, whatever it did to its own memory.

    The token in a process's environment marks it only while that memory is left alone:
    Chromium writes its process titles over it. So a process also belongs when a member is
    its ancestor, or when it is in a session a member leads. A session outlives its leader
    (Chromium's renderers keep the session of a browser process already ended), so the
    sessions found are added to ``sessions``, which the caller keeps from one round of
    signals to the next. A session's number cannot be reused while a process is in it.
    """
    table = _processes()
    entry = f"{TOKEN_VAR}={token}".encode()
    found = {pid for pid in table if _tagged(pid, entry)}
    while True:
        sessions.update(pid for pid in found if table[pid][1] == pid)
        more = {
            pid for pid, (ppid, sid) in table.items() if ppid in found or sid in sessions
        } - found
        if not more:
            return found - {os.getpid()}
        found |= more


def reap(token: str, rundir: Path, *more: Path) -> None:
    """Stop the sandbox's processes, then delete its run dir (and its compositor's)."""
    sessions: set[int] = set()
    pids = members(token, sessions)
    _signal(pids, signal.SIGTERM, signal.SIGCONT)  # a stopped process acts on SIGTERM too
    _wait_gone(pids, GRACE_S)
    for _ in range(KILL_ROUNDS):
        pids = members(token, sessions)
        if not pids:
            break
        _signal(pids, signal.SIGKILL)
        _wait_gone(pids, GRACE_S)
    for made in (rundir, *more):
        shutil.rmtree(made, ignore_errors=True)


def _signal(pids: set[int], *sigs: signal.Signals) -> None:
    for sig in sigs:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)


def _wait_gone(pids: set[int], timeout_s: float) -> None:
    """Wait on pidfds until every pid has exited or the timeout passes."""
    poller = select.poll()
    fds: set[int] = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            fd = os.pidfd_open(pid)
            fds.add(fd)
            poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout_s
    try:
        waiting = set(fds)
        while waiting and (remaining := deadline - time.monotonic()) > 0:
            for fd, _ in poller.poll(remaining * 1000):
                waiting.discard(fd)
                poller.unregister(fd)
    finally:
        for fd in fds:
            os.close(fd)


def main(argv: list[str]) -> int:
    """``sandbox_reaper.py TOKEN RUNDIR [DIR]...``, the lifeline on stdin."""
    token, rundir, more = argv[1], Path(argv[2]), [Path(a) for a in argv[3:]]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's ^C is the owner's to handle
    while os.read(0, 4096):
        pass
    reap(token, rundir, *more)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
