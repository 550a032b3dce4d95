"""featherpad (Qt 5.15) driven like an agent through ``ToolBox``: write two lines of
non-ASCII text into an existing empty file, save with ctrl+s, and the file's bytes on
disk are exactly that text; featherpad is alive after every tool call.

The text is typed with ``typeText`` (``EditableText.InsertText``): Qt takes the length in
UTF-16 units, and the UTF-8 byte count actui once sent padded non-ASCII text with NULs
(8 after this text) in the saved file.

Qt 5.15 dies (SIGSEGV) of ``Properties.GetAll`` on any interface, the call the first
``find_roots`` used to send (``backends/atspi/toolkits.py``), so this module is the
regression test of that: it fails at its first tool call if actui sends it again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import (
    assert_alive,
    call_alive,
    executed,
    inspected_of,
    matches_of,
    paired_root,
    state_id_of,
    windows_of,
)

from actui.backends.linux.sandbox import Sandbox
from actui.results.observations import ElementText
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = "Grüße, 東京\nsecond line ✓"


@dataclass
class Editor:
    computer: ToolBox
    pid: int
    path: Path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def editor(module_sandbox: Sandbox) -> AsyncIterator[Editor]:
    path = Path(module_sandbox.env["HOME"]) / "notes.txt"
    path.write_bytes(b"")
    process = await module_sandbox.launch(["featherpad", str(path)])
    await module_sandbox.wait_for_app(process.pid)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        yield Editor(computer, process.pid, path)
    finally:
        await computer.close()


async def _document(computer: ToolBox, pid: int, state: str) -> str:
    """The document's text view: the one multi-line textbox (the search and replace
    fields of featherpad's hidden panels are textboxes too)."""
    found = await call_alive(computer, pid, "search_ui", {"stateId": state, "role": "textbox"})
    documents = []
    for match in matches_of(found):
        ref = match.ref
        inspected = await call_alive(computer, pid, "inspect_ui", {"stateId": state, "ref": ref})
        if "multi_line" in inspected_of(inspected).states:
            documents.append(ref)
    assert len(documents) == 1, found.text
    return documents[0]


async def test_typed_non_ascii_lines_saved_with_ctrl_s_are_the_file_bytes(editor: Editor) -> None:
    computer, pid = editor.computer, editor.pid
    window = await paired_root(computer, pid=pid, title="notes.txt")
    assert_alive(pid)
    assert window.root.toolkit.startswith("Qt 5"), window
    observed = await call_alive(computer, pid, "observe_ui", {"root": window.ref})
    state = state_id_of(observed)
    document = await _document(computer, pid, state)

    typed = await call_alive(
        computer,
        pid,
        "act_ui",
        {"stateId": state, "actions": [{"action": "typeText", "ref": document, "text": TEXT}]},
    )
    (step,) = executed(typed).steps
    assert step.outcome == "worked", typed.text
    read = await call_alive(
        computer, pid, "read_text", {"stateId": state_id_of(typed), "ref": document}
    )
    assert isinstance(read.value, ElementText) and TEXT in read.value.text, read.text

    saved = await call_alive(
        computer,
        pid,
        "act_ui",
        {
            "stateId": state_id_of(typed),
            "actions": [{"action": "keypress", "ref": document, "keys": ["ctrl", "s"]}],
        },
    )
    assert executed(saved).steps[0].outcome != "didnt", saved.text
    for _ in range(200):
        if editor.path.read_bytes():
            break
        await asyncio.sleep(0.05)
    # featherpad ends a saved file with a newline (its default setting appendEmptyLine)
    assert editor.path.read_bytes() == (TEXT + "\n").encode(), editor.path.read_bytes()

    roots = await call_alive(computer, pid, "find_roots", {"pid": pid})
    titles = [w.title for w in windows_of(roots)]
    assert any("notes.txt" in title for title in titles), titles
