"""AT-SPI backend against ``zenity --entry``: set the entry, press OK, read zenity's answer."""

from __future__ import annotations

import asyncio
import time

import pytest
from atspi_helpers import find, launch_app, root_of, snap

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionRequest
from actui.backends.linux.sandbox import Sandbox
from actui.errors import TargetGone


async def test_entry_set_text_then_ok_prints_the_text_and_the_dialog_is_gone(
    sandbox: Sandbox,
) -> None:
    process = await launch_app(
        sandbox, ["zenity", "--entry", "--text=Your name"], stdout=asyncio.subprocess.PIPE
    )
    backend = AtspiBackend(sandbox.env)
    try:
        root = await root_of(backend, process.pid)
        snapshot = await snap(backend, root)
        entry = find(snapshot, lambda n: n.raw_role == "text" and "setText" in n.caps)
        ok = find(snapshot, lambda n: n.raw_role == "push button" and n.name == "OK")
        written = await backend.act(
            ActionRequest(
                kind="setText", root=root, policy="background", target=entry.native_id,
                text="Ada Lovelace",
            )
        )  # fmt: skip
        assert written.outcome == "worked", written
        assert (await backend.read_text(root, entry.native_id, 0, 100)).text == "Ada Lovelace"
        pressed = await backend.act(
            ActionRequest(kind="press", root=root, policy="background", target=ok.native_id)
        )
        assert pressed.outcome == "worked", pressed
        assert process.stdout is not None
        out = await asyncio.wait_for(process.stdout.read(), 10)
        assert out.decode().strip() == "Ada Lovelace"
        await asyncio.wait_for(process.wait(), 10)
        started = time.perf_counter()
        with pytest.raises(TargetGone):
            await snap(backend, root)
        assert time.perf_counter() - started < 5
    finally:
        await backend.close()
