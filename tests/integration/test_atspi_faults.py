"""Faults: a hung app times out clearly, a killed app is gone, and others keep working."""

from __future__ import annotations

import asyncio
import signal
import time

import pytest
from atspi_helpers import launch_app, root_of, snap

from actui.backends.atspi import AtspiBackend
from actui.errors import CallTimeout, TargetGone
from actui.sandbox import Sandbox

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
        await asyncio.sleep(0.3)  # the cold walk takes seconds
        assert not walk.done()
        process.kill()
        started = time.perf_counter()
        with pytest.raises(TargetGone, match="exited while its window"):
            await walk
        assert time.perf_counter() - started < 5
    finally:
        await backend.close()
