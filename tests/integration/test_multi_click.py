"""A triple-click is a triple-click: on a Tk entry (tests/apps/tk_entry.py, reached in
visual mode as Tk has no AT-SPI bridge) ``click`` with ``clickCount: 3`` selects the whole
line, every time; the entry's own report of its selection is the oracle, and Tk is alive
after every call.

Each press and release used to be preceded by X round trips (the active window, the
window under the point); on a loaded machine they stretched the clicks past the
double-click time, and the word alone was selected (2 of 6 runs)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import assert_alive, paired_root

from actui import api
from actui.backends.linux.sandbox import Sandbox
from actui.runtime.imaging import scale_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

APP = Path(__file__).parents[1] / "apps" / "tk_entry.py"
LINE = "alpha beta gamma delta"
ROUNDS = 3


@dataclass
class Tk:
    computer: api.Computer
    process: asyncio.subprocess.Process

    async def selected(self) -> str:
        """What the entry says the last click selected."""
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), 10)
        text = line.decode().rstrip("\n")
        assert text.startswith("selected="), text
        return text.removeprefix("selected=")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tk(module_sandbox: Sandbox) -> AsyncIterator[Tk]:
    process = await module_sandbox.launch(
        ["/usr/bin/python3", str(APP)], stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    assert (await asyncio.wait_for(process.stdout.readline(), 20)).strip() == b"ready"
    async with api.Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"}) as computer:
        yield Tk(computer, process)


async def test_a_triple_click_selects_the_line_and_a_double_click_a_word(tk: Tk) -> None:
    pid = tk.process.pid
    window = await paired_root(tk.computer.tools, pid=pid, title="Tk entry")
    look = await tk.computer.observe(window, mode="visual")
    assert_alive(pid)
    frame = look.state.root.frame
    assert frame is not None
    scale = scale_of(look.state)
    x, y = frame.w * scale / 2, frame.h * scale / 2  # the entry fills the window
    # a first single click activates the window and selects nothing
    done = await look.act(api.click_at(x, y))
    assert_alive(pid)
    assert await tk.selected() == ""
    assert done.state is not None
    look = done.state
    await asyncio.sleep(0.6)
    for _ in range(ROUNDS):
        done = await look.act(api.click_at(x, y, count=3))
        assert_alive(pid)
        assert done.steps[0].outcome != "didnt", done.text
        assert await tk.selected() == LINE
        assert done.state is not None
        look = done.state
        await asyncio.sleep(0.6)  # past the double-click time: the next click starts anew
    done = await look.act(api.click_at(x, y, count=2))
    assert_alive(pid)
    assert await tk.selected() in LINE.split()
