"""gnome-text-editor (GTK 4), a real editor none of us wrote: type a document, open Save As
with ctrl+shift+s, name the file in the dialog, save; the bytes on disk are the typed
text. The Save As dialog is a window the keypress opened, so an ``expect`` on its title
is met there (and says so), and ``gone`` on the dialog's own button holds once it closed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import state_id_of, windows_of
from corpus_helpers import Driven

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = "Grüße aus dem Editor\nzweite Zeile – fin"


@dataclass
class Editor:
    app: Driven
    home: Path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def editor(module_sandbox: Sandbox) -> AsyncIterator[Editor]:
    process = await module_sandbox.launch(["gnome-text-editor", "--standalone"])
    await module_sandbox.wait_for_app(process.pid, timeout=60)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        yield Editor(Driven(computer, process.pid), Path(module_sandbox.env["HOME"]))
    finally:
        await computer.close()


def _content(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


async def _written(path: Path, expected: bytes) -> bytes | None:
    """The file's bytes once they are ``expected`` (the editor writes after the dialog has
    closed), or what it holds after 15 s."""
    for _ in range(300):
        if _content(path) == expected:
            break
        await asyncio.sleep(0.05)
    return _content(path)


async def test_typed_text_saved_as_a_named_file_through_the_dialog(editor: Editor) -> None:
    app = editor.app
    main = await app.window("Text Editor", timeout_s=40)
    state = state_id_of(await app.ok("observe_ui", {"root": main.ref}))
    (document,) = await app.refs(state, role="textbox")
    done = await app.act(
        {
            "stateId": state,
            "actions": [
                {"action": "typeText", "ref": document, "text": TEXT},
                {"action": "keypress", "ref": document, "keys": ["ctrl", "shift", "s"]},
            ],
            # met in the dialog the keypress opens, not in the editor window acted on
            "expect": {"text": "Save As", "timeoutMs": 15_000},
        },
    )
    verification = done.verification
    assert verification is not None and verification.status == "verified", done
    met = verification.where
    assert met is not None and met.held, verification
    assert met.title == "Save As" and met.ref != main.ref, verification
    assert f"check verified in {met.ref}" in app.texts[-1]

    dialog = await app.window("Save As")
    assert dialog.ref == met.ref
    state = state_id_of(await app.ok("observe_ui", {"root": dialog.ref}))
    (name,) = await app.refs(state, text="Name", role="textbox")
    (save,) = await app.refs(state, text="Save", role="button")
    path = editor.home / "grüße.txt"
    saved = await app.act(
        {
            "stateId": state,
            "actions": [
                {"action": "setText", "ref": name, "text": str(path)},
                {"action": "press", "ref": save},
            ],
            "expect": {"ref": save, "gone": True, "timeoutMs": 15_000},
        },
    )
    assert saved.verification is not None, app.texts[-1]
    assert saved.verification.status == "verified", app.texts[-1]
    expected = TEXT.encode() + b"\n"  # the editor ends the last line
    assert await _written(path, expected) == expected
    roots = await app.ok("find_roots", {"pid": app.pid})
    titles = [window.title for window in windows_of(roots)]
    assert "Save As" not in titles and any(path.name in title for title in titles), titles
