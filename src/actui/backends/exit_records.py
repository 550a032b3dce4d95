"""Exit records: how a sandbox tells the tools inside it that an app it started ended, and how.

Only a process's parent learns its exit status, and asyncio reaps the apps a
sandbox starts the moment they end, so the status would be lost to everyone
else. The sandbox therefore writes one small JSON file per app it launches
(its name, its output log, and once it ended, its return code) into the
directory named by :data:`RECORDS_VAR`, and the desktop backend reads them to
say "killed by SIGSEGV" where it would otherwise only see a window vanish.
This module owns that format; it knows nothing of windows or tools.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

RECORDS_VAR = "ACTUI_SANDBOX_APPS"
"""The environment variable naming the directory of a sandbox's exit records."""


@dataclass(frozen=True)
class AppRecord:
    """One app the sandbox started. ``returncode`` as asyncio reports it (-N: signal N)."""

    pid: int
    name: str
    log: str
    returncode: int | None = None


def write(directory: Path, record: AppRecord) -> None:
    """Write (or replace) the record atomically: a reader never sees half of it."""
    final = directory / f"{record.pid}.json"
    partial = directory / f".{record.pid}.json.tmp"
    body = {"pid": record.pid, "name": record.name, "log": record.log}
    if record.returncode is not None:
        body["returncode"] = record.returncode
    partial.write_text(json.dumps(body))
    os.replace(partial, final)


def read(directory: Path, pid: int) -> AppRecord | None:
    """The record of ``pid``, or None when the sandbox did not start it (or it is unreadable)."""
    try:
        body = json.loads((directory / f"{pid}.json").read_text())
        code = body.get("returncode")
        return AppRecord(
            pid=int(body["pid"]),
            name=str(body.get("name", "")),
            log=str(body.get("log", "")),
            returncode=int(code) if code is not None else None,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
