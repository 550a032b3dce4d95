"""A running wait_for ends promptly when the accessibility bus dies, instead of waiting
out its timeout on events that can no longer come."""

from __future__ import annotations

import asyncio
import os
import signal
import time

from atspi_helpers import launch_app
from computer_helpers import desktop_pids, state_id_of, windows_of

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox


async def test_a_wait_is_woken_when_the_accessibility_bus_dies(sandbox: Sandbox) -> None:
    dialog = await launch_app(sandbox, ["zenity", "--entry", "--text=waiting"])
    computer = ToolBox(env=sandbox.env)
    try:
        listed = await computer.call("find_roots", {"pid": dialog.pid})
        window = windows_of(listed)[0].ref
        observed = await computer.call("observe_ui", {"root": window})
        assert not observed.is_error, observed.text
        state = state_id_of(observed)
        waiting = asyncio.ensure_future(
            computer.call(
                "wait_for", {"stateId": state, "text": "never shown here", "timeoutMs": 20000}
            )
        )
        await asyncio.sleep(1.0)
        assert not waiting.done(), "the condition never holds: the wait must still be running"
        (bus,) = desktop_pids(sandbox, b"accessibility.conf")
        killed = time.perf_counter()
        os.kill(bus, signal.SIGKILL)
        waited = await asyncio.wait_for(waiting, 10.0)
        took = time.perf_counter() - killed
        assert waited.is_error and "accessibility bus went away" in waited.text, waited.text
        assert took < 2.0, f"the wait ended {took:.1f} s after the bus died"
        assert dialog.returncode is None, "the app itself lives on"
    finally:
        await computer.close()
