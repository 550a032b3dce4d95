"""Toolkits whose AT-SPI bridge loads only when asked (``backends/linux/bridges.py``):
GTK 2 (gmrun) and Java Swing through the ATK wrapper (tests/apps/SwingForm.java on
Debian's OpenJDK), each started once on the module's private desktop, driven through the
Python API, and alive after every call.

Before the sandbox set ``GTK_MODULES`` and ``JAVA_TOOL_OPTIONS``, both windows were
``accessibility: none``. The Swing form is also the test of a press judged on the whole
result: the wrapper's button reads the same after Register, while the status label it
relabels is in the result's diff; the press said ``unknown … nothing observable changed``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import assert_alive

from actui import api
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

SWING = Path(__file__).parents[1] / "apps" / "SwingForm.java"


@dataclass
class App:
    computer: api.Computer
    process: asyncio.subprocess.Process

    async def window(self, title: str, timeout_s: float = 30.0) -> api.Observation:
        """A semantic look at the app's window titled ``title`` once its tree is readable."""
        async with asyncio.timeout(timeout_s):
            while True:
                roots = await self.computer.find_roots(pid=self.process.pid)
                assert_alive(self.process.pid)
                for root in roots:
                    if title in root.title and root.root.accessibility == "full":
                        return await self.computer.observe(root, mode="semantic")
                await asyncio.sleep(0.2)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[api.Computer]:
    async with api.Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"}) as session:
        yield session


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def gmrun(module_sandbox: Sandbox, computer: api.Computer) -> AsyncIterator[App]:
    process = await module_sandbox.launch(["gmrun"])
    await module_sandbox.wait_for_app(process.pid)
    yield App(computer, process)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def swing(module_sandbox: Sandbox, computer: api.Computer) -> AsyncIterator[App]:
    process = await module_sandbox.launch(["java", str(SWING)], stdout=asyncio.subprocess.PIPE)
    await module_sandbox.wait_for_app(process.pid)
    yield App(computer, process)


async def test_a_gtk2_app_has_a_tree_and_takes_typed_text(gmrun: App) -> None:
    look = await gmrun.window("Execute program")
    assert look.root.root.toolkit.startswith("GAIL 2"), look.root  # GTK 2's bridge
    box = look.search("Run program:", role="textbox").first
    done = await look.act(box.type_text("xterm -version"))
    assert_alive(gmrun.process.pid)
    assert done.outcome == "worked", done.text
    assert done.state is not None
    assert await done.state.read_text(box) == "xterm -version"
    assert_alive(gmrun.process.pid)


async def test_a_swing_form_is_read_and_its_press_is_judged_by_the_whole_result(
    swing: App,
) -> None:
    look = await swing.window("Swing form")
    name = look.search("Name:", role="textbox").first
    register = look.search("Register", role="button").first
    done = await look.act(name.type_text("Ann"), register.press())
    assert_alive(swing.process.pid)
    assert swing.process.stdout is not None
    line = await asyncio.wait_for(swing.process.stdout.readline(), 10)
    assert line.decode().strip() == "registered=Ann", line
    assert [s.outcome for s in done.steps] == ["worked", "worked"], done.text
    assert done.outcome == "worked", done.text
    assert done.state is not None
    assert done.state.search("Registered Ann", role="label").first
    assert_alive(swing.process.pid)
