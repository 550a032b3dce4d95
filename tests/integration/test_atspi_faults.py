"""Faults: a hung app times out clearly, a killed app is gone, the accessibility bus going
away is said as such, and others keep working."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from atspi_helpers import launch_app, root_of, snap
from computer_helpers import matches_of, roots_of, state_id_of, windows_of

from actui.backends.atspi import AtspiBackend
from actui.backends.atspi.bus import DEFAULT_CALL_TIMEOUT_S
from actui.backends.linux.sandbox import Sandbox, tagged_pids
from actui.errors import CallTimeout, TargetGone
from actui.tools.dispatch import ToolBox

CALL_TIMEOUT_S = 1.0


async def test_a_stopped_app_times_out_clearly_while_another_app_still_answers(
    sandbox: Sandbox,
) -> None:
    hung = await launch_app(sandbox, ["zenity", "--entry", "--text=hung"])
    alive = await launch_app(sandbox, ["zenity", "--info", "--text=alive"])
    backend = AtspiBackend(sandbox.env, call_timeout_s=CALL_TIMEOUT_S)
    try:
        hung_root = await root_of(backend, hung.pid)
        alive_root = await root_of(backend, alive.pid)
        await snap(backend, hung_root)
        hung.send_signal(signal.SIGSTOP)
        try:
            started = time.perf_counter()
            with pytest.raises(CallTimeout, match=r"did not answer .* within 1 s"):
                await snap(backend, hung_root)
            assert time.perf_counter() - started < CALL_TIMEOUT_S + 1.0
            snapshot = await snap(backend, alive_root)
            assert snapshot.node_count > 3
            listed = await backend.list_roots()
            assert alive.pid in {r.pid for r in listed}
            stopped = [r for r in listed if r.pid == hung.pid]
            assert [r.native_id for r in stopped] == [hung_root.native_id], (
                "a stopped app's window is still there: not answering is not closing"
            )
        finally:
            hung.send_signal(signal.SIGCONT)
        assert (await snap(backend, hung_root)).node_count > 3, "answers again once resumed"
    finally:
        await backend.close()


async def test_an_app_killed_mid_snapshot_is_reported_gone_not_half_read(
    sandbox: Sandbox,
) -> None:
    process = await launch_app(sandbox, ["gtk4-widget-factory"])
    backend = AtspiBackend(sandbox.env)
    try:
        root = await root_of(backend, process.pid)
        walk = asyncio.create_task(snap(backend, root))
        await asyncio.sleep(0.1)  # the cold walk takes over half a second
        assert not walk.done()
        process.kill()
        started = time.perf_counter()
        with pytest.raises(TargetGone, match="exited while its window"):
            await walk
        assert time.perf_counter() - started < 5
    finally:
        await backend.close()


async def test_the_accessibility_bus_going_away_is_said_and_the_session_keeps_serving(
    sandbox: Sandbox,
) -> None:
    dialog = await launch_app(sandbox, ["zenity", "--entry", "--text=bus"])
    computer = ToolBox(env=sandbox.env)
    try:
        listed = await computer.call("find_roots", {"pid": dialog.pid})
        window = windows_of(listed)[0].ref
        observed = await computer.call("observe_ui", {"root": window})
        state = state_id_of(observed)
        token = sandbox.env["ACTUI_SANDBOX_ID"]
        (bus,) = [pid for pid in tagged_pids(token) if b"accessibility.conf" in _cmdline(pid)]
        os.kill(bus, signal.SIGKILL)

        started = time.perf_counter()
        again = await computer.call("observe_ui", {"root": window})
        assert again.is_error and "accessibility bus went away" in again.text, again.text
        assert time.perf_counter() - started < DEFAULT_CALL_TIMEOUT_S + 1.0
        # listed again once the bus is back, or an error while it is not: either says why
        roots = await computer.call("find_roots", {})
        assert "accessibility bus went away" in roots.text, roots.text
        assert roots.is_error or roots_of(roots).notices, roots.text
        # what was already observed is still there to search and inspect
        found = await computer.call("search_ui", {"stateId": state, "role": "textbox"})
        assert not found.is_error and matches_of(found), found.text
    finally:
        await computer.close()


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read()
    except OSError:
        return b""
