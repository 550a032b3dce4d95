"""galculator (GTK 3, a real calculator none of us wrote): 12 × 3 = through its buttons.

Every key is a GTK toggle button pressed semantically (AT-SPI ``Click``); the oracle is
the calculator's own display, read back with read_text from a fresh observation. The app
gets a private HOME (the sandbox's), so no saved mode or paper view changes how it starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from computer_helpers import (
    executed,
    matches_of,
    paired_root,
    process_alive,
    state_id_of,
    text_of,
    windows_of,
)

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Calc:
    computer: ToolBox
    app: asyncio.subprocess.Process
    root: str


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def calc(module_sandbox: Sandbox) -> AsyncIterator[Calc]:
    app = await module_sandbox.launch(["galculator"])
    await module_sandbox.wait_for_app(app.pid)
    computer = ToolBox(env=module_sandbox.env)
    root = await paired_root(computer, pid=app.pid)
    yield Calc(computer, app, root.ref)
    await computer.close()


async def _key(calc: Calc, state: str, label: str) -> str:
    found = await calc.computer.call(
        "search_ui", {"stateId": state, "text": label, "role": "toggle"}
    )
    exact = [m for m in matches_of(found) if m.label == label]
    assert len(exact) == 1, (label, found.text)
    return exact[0].ref


async def _display(calc: Calc) -> str:
    """The display's text, from a fresh observation of the window."""
    seen = await calc.computer.call("observe_ui", {"root": calc.root, "mode": "semantic"})
    assert not seen.is_error, seen.text
    state = state_id_of(seen)
    found = await calc.computer.call("search_ui", {"stateId": state, "role": "textbox"})
    shown = []
    for match in matches_of(found):
        if "Formula" in match.label:
            continue  # the formula entry of the other mode, not the display
        text = await calc.computer.call("read_text", {"stateId": state, "ref": match.ref})
        assert not text.is_error, text.text
        shown.append(text_of(text).strip())
    assert shown, found.text
    return shown[0]


async def test_twelve_times_three_is_thirty_six_on_the_display(calc: Calc) -> None:
    seen = await calc.computer.call("observe_ui", {"root": calc.root, "mode": "semantic"})
    assert not seen.is_error, seen.text
    state = state_id_of(seen)
    keys = [await _key(calc, state, label) for label in ("1", "2", "*", "3", "=")]
    acted = await calc.computer.call(
        "act_ui",
        {"stateId": state, "actions": [{"action": "press", "ref": ref} for ref in keys]},
    )
    assert not acted.is_error, acted.text
    assert executed(acted).stopped_at is None, acted.text
    assert await _display(calc) == "36"
    assert process_alive(calc.app.pid)
    again = await calc.computer.call("find_roots", {"pid": calc.app.pid})
    assert not again.is_error and windows_of(again), again.text
