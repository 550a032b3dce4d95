"""featherpad (Qt 5) with its find/replace dock closed, driven through the Python API: what
a person cannot see is not what an agent is handed first.

The dock's fields exist, neither visible nor showing. Before, ``search_ui`` by the
capability ``typeText`` ranked ``textbox "To be replaced"`` first, above the focused editor,
the first view listed it, and typing into it said ``worked`` with nothing on screen. Now the
editor comes first and takes the text (saved with ctrl+s, the file on disk is the oracle),
the dock's fields are listed ``[hidden]`` after it, a condition does not count them, and a
step that types into one says it went to a hidden element. featherpad is alive after
every call.
"""

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
from actui.tools.actions import HIDDEN_TARGET

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = "typed where a person looks"


@dataclass
class Editor:
    computer: api.Computer
    pid: int
    path: Path

    async def look(self) -> api.Observation:
        window = await paired_root(self.computer.tools, pid=self.pid, title="notes.txt")
        look = await self.computer.observe(window, mode="semantic")
        assert_alive(self.pid)
        return look


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def editor(module_sandbox: Sandbox) -> AsyncIterator[Editor]:
    path = Path(module_sandbox.env["HOME"]) / "notes.txt"
    path.write_bytes(b"")
    process = await module_sandbox.launch(["featherpad", str(path)])
    await module_sandbox.wait_for_app(process.pid)
    async with api.Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"}) as computer:
        yield Editor(computer, process.pid, path)


async def test_the_editor_not_the_closed_dock_is_found_first_and_takes_the_text(
    editor: Editor,
) -> None:
    look = await editor.look()
    assert "To be replaced" not in look.text, look.text
    typeable = look.search(capability="typeText")
    first = typeable.first
    assert "multi_line" in first.states and "hidden" not in first.states, typeable
    hidden = [m for m in typeable if "hidden" in m.states]
    assert {m.label for m in hidden} >= {"To be replaced", "Replacing text"}, typeable
    assert list(typeable).index(hidden[0]) > list(typeable).index(first)
    waited = await look.wait_for(api.Expect(text="To be replaced", timeout_ms=300))
    assert_alive(editor.pid)
    assert not waited.found, waited.text

    done = await look.act(first.type_text(TEXT), api.keypress("ctrl", "s"))
    assert_alive(editor.pid)
    assert done.steps[0].outcome == "worked", done.text
    for _ in range(200):
        if editor.path.read_bytes():
            break
        await asyncio.sleep(0.05)
    assert editor.path.read_text() == TEXT + "\n"  # featherpad ends a file with a newline


async def test_typing_into_a_hidden_field_says_so(editor: Editor) -> None:
    look = await editor.look()
    field = look.search("Replacing text", role="textbox").first
    assert "hidden" in field.states
    done = await look.act(field.set_text("nobody sees this"))
    assert_alive(editor.pid)
    (step,) = done.steps
    assert step.outcome == "worked" and HIDDEN_TARGET in step.reason, done.text
    assert HIDDEN_TARGET in done.text, done.text
    assert editor.path.read_text() == TEXT + "\n", "the document is untouched"
