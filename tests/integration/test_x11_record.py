"""The X RECORD input monitor: an independent witness of synthetic input."""

from __future__ import annotations

import asyncio

import pytest

from actui.backends.base import ActionRequest, RootInfo
from actui.backends.linux.sandbox import Sandbox
from actui.backends.x11.input import X11Input
from actui.backends.x11.record import InputMonitor
from actui.backends.x11.session import X11Session
from actui.errors import CoordinateBlocked


async def test_the_monitor_sees_xtest_clicks_and_nothing_while_idle_or_refused(
    sandbox: Sandbox,
) -> None:
    process = await sandbox.launch(["zenity", "--info", "--title", "Witness", "--text", "hi"])
    session = X11Session(sandbox.display)
    try:
        window = None
        for _ in range(200):
            window = next((w for w in await session.windows() if w.pid == process.pid), None)
            if window is not None and window.is_active:
                break
            await asyncio.sleep(0.05)
        assert window is not None
        root = RootInfo(
            native_id="w",
            pid=process.pid,
            app_name="zenity",
            title="Witness",
            kind="dialog",
            raw_role="dialog",
        )
        x11 = X11Input(session)
        async with InputMonitor(sandbox.display) as monitor:
            assert await monitor.settle(0.2) == []
            with pytest.raises(CoordinateBlocked):
                await x11.deliver(
                    ActionRequest("click", root, "ax_only", point=window.frame.center),
                    window.window_id,
                )
            assert await monitor.settle(0.1) == []
            await x11.deliver(
                ActionRequest("moveMouse", root, "default", point=window.frame.center),
                window.window_id,
            )
            await x11.deliver(
                ActionRequest("keypress", root, "default", keys=("shift",)), window.window_id
            )
            seen = await monitor.settle(0.1)
        assert [e.type for e in seen] == ["motion", "key_press", "key_release"]
        assert (seen[0].root_x, seen[0].root_y) == window.frame.center
    finally:
        await session.close()
