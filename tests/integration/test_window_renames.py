"""A window renamed just after it maps (as Evince renames "Document Viewer" to the file's
name) is listed under its new title, and keeps the one ``@r`` ref it was first given
(tests/apps/gtk3_renames.py, through the Python API; alive after every call).

Two causes of a stale or doubled root are covered: a rename that arrived while the
application's roots were first being read was dropped (the listing kept the title it had
read; Evince kept "Document Viewer" in 4 of 8 launches), and a window listed in the moment
before its tree could be read (an X11 stand-in) got a second ref once it could.
The fixture is started a few times, renaming after different delays, so the rename falls
before, during and after the first listings."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import assert_alive

from actui import api
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

APP = Path(__file__).parents[1] / "apps" / "gtk3_renames.py"
DELAYS_MS = (0, 60, 150, 400)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[api.Computer]:
    async with api.Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"}) as session:
        yield session


@pytest.mark.parametrize("delay_ms", DELAYS_MS)
async def test_a_window_renamed_after_mapping_is_listed_by_its_new_name_under_one_ref(
    module_sandbox: Sandbox, computer: api.Computer, delay_ms: int
) -> None:
    title = f"report-{delay_ms}.pdf"
    process = await module_sandbox.launch(
        ["/usr/bin/python3", str(APP), str(delay_ms), title], stdout=asyncio.subprocess.PIPE
    )
    try:
        refs: set[str] = set()
        seen: list[str] = []
        began = time.monotonic()
        while time.monotonic() - began < 10:
            roots = await computer.find_roots(pid=process.pid)
            assert_alive(process.pid)
            refs |= {r.ref for r in roots}
            seen += [r.title for r in roots if not seen or seen[-1] != r.title]
            if any(r.title == title for r in roots):
                break
            await asyncio.sleep(0.03)
        assert seen and seen[-1] == title, seen
        assert len(refs) == 1, (refs, seen)
        look = await computer.observe(refs.pop(), mode="semantic")
        assert_alive(process.pid)
        assert "A page of the document" in look.text, look.text
    finally:
        process.kill()
        await process.wait()
