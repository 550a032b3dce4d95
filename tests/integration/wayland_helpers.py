"""What the Wayland desktop modules share: waiting for an app's window as the compositor
lists it, the app's survival, and a dialog's exit with its output."""

from __future__ import annotations

import asyncio
from typing import Any

from computer_helpers import assert_alive

from actui.api import Computer, Observation


async def window(computer: Computer, pid: int, *, focused: bool = False) -> Observation:
    """The app's window once the compositor lists it (paired: it has a window id), and with
    ``focused`` once it has the focus and a place (a frame: gnome-shell's windows are placed
    only while focused)."""
    async with asyncio.timeout(20):
        while True:
            roots = await computer.find_roots(pid=pid)
            root = roots.first.root if roots else None
            ready = root is not None and bool(root.window_id)
            if ready and (not focused or (root.is_focused and root.frame is not None)):
                return await computer.observe(roots.first)
            await asyncio.sleep(0.05)


async def survived(computer: Computer, pid: int) -> None:
    """The app still runs and answers: a fresh look at its window succeeds."""
    assert_alive(pid)
    await window(computer, pid)
    assert_alive(pid)


async def ended_with(process: Any, code: int) -> str:
    """What the process printed, once it exited with ``code``."""
    out, _ = await asyncio.wait_for(process.communicate(), 15)
    assert process.returncode == code, f"exited with {process.returncode}, not {code}"
    return bytes(out or b"").decode()
