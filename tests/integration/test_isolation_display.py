"""A dead X display is named as such, on every tool, and ends the waits on it.

Each test kills the Xvfb of its own private desktop mid-session. The errors
must say the display is gone and what to do (a new desktop), not blame the
accessibility registry or bus, which die or fail oddly with it, nor send the
caller back to find_roots; a wait blocked on events must end at once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import Any

from computer_helpers import (
    assert_alive,
    desktop_pids,
    entry_dialog,
    matches_of,
    paired_root,
    state_id_of,
)

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox


async def _dialog(sandbox: Sandbox) -> tuple[asyncio.subprocess.Process, ToolBox, dict[str, Any]]:
    """A zenity entry, observed: its pid, the computer, and the refs an agent holds."""
    app = await entry_dialog(sandbox, "Display test")
    computer = ToolBox(env=sandbox.env)
    root = (await paired_root(computer, pid=app.pid)).ref
    seen = await computer.call("observe_ui", {"root": root})
    assert not seen.is_error, seen.text
    state = state_id_of(seen)
    found = await computer.call("search_ui", {"stateId": state, "role": "text"})
    return (
        app,
        computer,
        {"root": root, "state": state, "field": matches_of(found)[0].ref},
    )


def _xvfb(sandbox: Sandbox) -> int:
    (pid,) = desktop_pids(sandbox, b"Xvfb")
    return pid


def _assert_display_gone(sandbox: Sandbox, tool: str, result: Any) -> None:
    text = result.text
    assert result.is_error, f"{tool}: {text}"
    assert f"the X display {sandbox.display} is gone" in text, f"{tool}: {text}"
    assert "new desktop" in text, f"{tool}: {text}"
    for wrong in (
        "Registry",
        "find_roots again",
        "Run find_roots",
        "Traceback",
        "accessibility bus",
    ):
        assert wrong not in text, f"{tool} blames or suggests {wrong!r}: {text}"


async def test_every_tool_names_the_dead_display(sandbox: Sandbox) -> None:
    app, computer, held = await _dialog(sandbox)
    try:
        os.kill(_xvfb(sandbox), signal.SIGKILL)
        await asyncio.wait_for(app.wait(), 10)  # the app goes with its display
        calls = {
            "find_roots": {},
            "observe_ui": {"root": held["root"]},
            "act_ui": {
                "stateId": held["state"],
                "actions": [{"action": "setText", "ref": held["field"], "text": "late"}],
            },
            "wait_for": {"stateId": held["state"], "text": "late", "timeoutMs": 2000},
        }
        for tool, args in calls.items():
            _assert_display_gone(sandbox, tool, await computer.call(tool, args))
    finally:
        await computer.close()


async def test_a_wait_on_events_ends_when_its_display_dies(sandbox: Sandbox) -> None:
    app, computer, held = await _dialog(sandbox)
    try:
        waiting = asyncio.ensure_future(
            computer.call(
                "wait_for", {"stateId": held["state"], "text": "never shown", "timeoutMs": 20000}
            )
        )
        await asyncio.sleep(1.0)
        assert not waiting.done(), "the condition never holds: the wait must still be running"
        # stopped, the app can neither exit nor send anything: only the display's end
        # can end this wait before its timeout
        app.send_signal(signal.SIGSTOP)
        killed = time.perf_counter()
        os.kill(_xvfb(sandbox), signal.SIGKILL)
        waited = await asyncio.wait_for(waiting, 25)
        took = time.perf_counter() - killed
        print(f"the wait ended {1000 * took:.0f} ms after the display died")
        _assert_display_gone(sandbox, "wait_for", waited)
        assert took < 2.0, f"the wait ended {took:.1f} s after the display died"
        assert_alive(app.pid)  # still there, stopped: its exit did not end the wait
    finally:
        app.send_signal(signal.SIGCONT)
        await computer.close()
