"""Helpers for integration tests that drive ``Computer`` like an agent does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from actui.session import ToolResult
from actui.tools import Computer


async def paired_root(
    computer: Computer, *, pid: int | None = None, title: str = "", timeout_s: float = 20.0
) -> dict[str, Any]:
    """The first root (of ``pid``, with ``title`` in its title) once it has its X window.

    AT-SPI can list a window before the window manager has mapped it, and
    physical input and captures need the X window, so wait for the pairing;
    an app ``pid`` that dies meanwhile fails at once, not at the timeout.
    """
    query: dict[str, Any] = {"pid": pid} if pid else {"text": title}
    async with asyncio.timeout(timeout_s):
        while True:
            found = await computer.call("find_roots", query)
            if pid:
                assert_alive(pid)
            for window in found.details.get("windows", []):
                if window["windowId"] and title in window["windowTitle"]:
                    return dict(window)
            await asyncio.sleep(0.05)


def process_alive(pid: int) -> bool:
    """Running or stopped, but not exited (a zombie has exited; this PID 1 never reaps)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def assert_alive(pid: int) -> None:
    """The process ``pid`` still runs: it exists and is not a zombie (dead, not yet reaped)."""
    assert process_alive(pid), f"process {pid} is gone: it exited, was killed or died"


async def call_alive(
    computer: Computer, pid: int, tool: str, args: dict[str, Any] | None = None
) -> ToolResult:
    """One tool call that must succeed, with the app ``pid`` alive after it."""
    result = await computer.call(tool, args or {})
    assert_alive(pid)
    assert not result.is_error, result.text
    return result
