"""In a session with ``org.a11y.Status.IsEnabled`` off, actui switches it on and back off.

Chromium started without ``--force-renderer-accessibility`` builds its page's
tree only once the flag is on, as in a person's own desktop session.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from computer_helpers import (
    matches_of,
    observation_of,
    process_alive,
    state_id_of,
    windows_of,
)
from dbus_fast.aio import MessageBus

from actui.backends.atspi.status import read_enabled
from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

BUTTONS = "".join(f"<button>Button {i}</button>" for i in range(40))
PAGE = f"data:text/html,<title>Many</title><h1>Many buttons</h1>{BUTTONS}"


async def _flag(desktop: Sandbox) -> bool | None:
    session = await MessageBus(bus_address=desktop.env["DBUS_SESSION_BUS_ADDRESS"]).connect()
    try:
        return await read_enabled(session)
    finally:
        session.disconnect()


async def test_actui_switches_accessibility_on_for_chromium_and_off_again(
    tmp_path: Path,
) -> None:
    async with Sandbox(accessibility_on=False) as desktop:
        assert await _flag(desktop) is False
        browser = await desktop.launch(
            [
                "chromium", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", PAGE,
            ]
        )  # fmt: skip
        computer = ToolBox(env=desktop.env)
        try:
            await computer.call("find_roots", {})
            assert await _flag(desktop) is True, "actui switched accessibility on"
            nodes, matches = 0, ()
            async with asyncio.timeout(60):
                # the browser's own UI comes first; the page's tree follows
                while not matches:
                    await asyncio.sleep(0.5)
                    roots = await computer.call("find_roots", {"text": "Many"})
                    windows = windows_of(roots)
                    if not windows:
                        continue
                    observed = await computer.call("observe_ui", {"root": windows[0].ref})
                    nodes = observation_of(observed).node_count
                    found = await computer.call(
                        "search_ui", {"stateId": state_id_of(observed), "text": "Button 39"}
                    )
                    matches = matches_of(found)
            assert nodes > 50
            assert process_alive(browser.pid)
        finally:
            await computer.close()
        assert await _flag(desktop) is False, "and back off, as it found it"
        assert process_alive(browser.pid)


async def test_a_flag_already_on_is_left_on() -> None:
    async with Sandbox() as desktop:
        assert await _flag(desktop) is True
        computer = ToolBox(env=desktop.env)
        try:
            await computer.call("find_roots", {})
        finally:
            await computer.close()
        assert await _flag(desktop) is True
