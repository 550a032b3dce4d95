"""Finishing a sandbox's teardown when its owner dies first (SIGKILL, a crash, ``os._exit``).

The owner starts this file as a script (stdlib only, so it starts fast and imports nothing
of actui) with the read end of a lifeline pipe as its stdin, and keeps the write end. The
kernel closes that end however the owner ends; on EOF this script signals every process still
carrying the sandbox's token (SIGTERM, a grace period, SIGKILL) and removes the run dir,
where everything the sandbox's processes wrote lives (``TMPDIR`` points inside it). After a
clean teardown nothing is left and it exits at once. It must not start anything.
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


def tagged_pids(token: str) -> set[int]:
    """The live processes whose environment carries this sandbox token (zombies excluded)."""
    entry = f"{TOKEN_VAR}={token}".encode()
    found: set[int] = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if entry in environ.split(b"\0"):
            found.add(int(proc.name))
    return found


def reap(token: str, rundir: Path, *more: Path) -> None:
    """Stop the sandbox's processes, then delete its run dir (and its compositor's)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = tagged_pids(token) - {os.getpid()}
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        _wait_gone(pids, GRACE_S)
    for made in (rundir, *more):
        shutil.rmtree(made, ignore_errors=True)


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
