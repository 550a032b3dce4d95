"""How a launched browser's process ended, as its death notice words it."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any, cast

import pytest

from actui.backends.cdp.launch import BrowserProcess


async def _ended(args: list[str], sig: signal.Signals | None = None) -> BrowserProcess:
    process = await asyncio.create_subprocess_exec(*args)
    nowhere = Path("/nonexistent")
    browser = BrowserProcess(process, nowhere, cast(Any, None), cast(Any, None), nowhere)
    assert browser.ending == ""  # still running
    if sig is not None:
        process.send_signal(sig)
    await process.wait()
    return browser


@pytest.mark.asyncio
async def test_a_killed_process_names_its_signal() -> None:
    browser = await _ended(["sleep", "30"], signal.SIGKILL)
    assert not browser.alive and browser.ending == "was killed by signal SIGKILL"


@pytest.mark.asyncio
async def test_an_exited_process_names_its_code() -> None:
    browser = await _ended(["sh", "-c", "sleep 0.2; exit 3"])
    assert browser.ending == "exited with code 3"
