"""mousepad driven like an agent through ``ToolBox``: type a document, open Save As with
ctrl+s, name the file in the dialog and confirm (Save button or Enter); the file on disk
holds the typed text.

GTK 3's file chooser enables Save only 150 ms after the last edit of the name and
silently ignores Save or Enter while it is disabled, so naming the file and confirming
in one act_ui call proves that a press, and a physical Enter, wait for Save to enable.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from computer_helpers import (
    executed,
    inspected_of,
    matches_of,
    paired_root,
    state_id_of,
    windows_of,
)

from actui.backends.linux.sandbox import Sandbox
from actui.results.tool_result import ToolResult
from actui.results.typed import Execution, StepTrace
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Editor:
    computer: ToolBox
    pid: int
    home: Path


@dataclass
class SaveAs:
    state: str
    name: str
    save: str


async def _refs(computer: ToolBox, state: str, **query: str) -> list[str]:
    found = await computer.call("search_ui", {"stateId": state, **query})
    assert not found.is_error, found.text
    return [match.ref for match in matches_of(found)]


async def _shown(computer: ToolBox, state: str, refs: list[str]) -> str:
    """The one of ``refs`` on screen: a hidden tab's document or the chooser's hidden
    folder-name entry match the same search."""
    shown = []
    for ref in refs:
        inspected = await computer.call("inspect_ui", {"stateId": state, "ref": ref})
        if "showing" in inspected_of(inspected).states:
            shown.append(ref)
    assert len(shown) == 1, shown
    return shown[0]


async def _act(
    computer: ToolBox, state: str, *actions: dict[str, Any]
) -> tuple[Execution, ToolResult]:
    """An act that must not fail: its typed execution, and the result it came in."""
    act = await computer.call("act_ui", {"stateId": state, "actions": list(actions)})
    assert not act.is_error, act.text
    return executed(act), act


async def _save_as(editor: Editor, text: str, *, new_tab: bool = False) -> SaveAs:
    """Type ``text`` into the document (a new tab's if asked), press ctrl+s, observe the
    Save As dialog."""
    computer = editor.computer
    window = await paired_root(computer, pid=editor.pid, title="Mousepad")
    state = state_id_of(await computer.call("observe_ui", {"root": window.ref}))
    if new_tab:
        _, opened = await _act(computer, state, {"action": "keypress", "keys": ["ctrl", "n"]})
        state = state_id_of(opened)
    document = await _shown(computer, state, await _refs(computer, state, role="textbox"))
    typed, _ = await _act(
        computer,
        state,
        {"action": "typeText", "ref": document, "text": text},
        {"action": "keypress", "ref": document, "keys": ["ctrl", "s"]},
    )
    assert typed.steps[0].outcome == "worked", typed
    dialog = await paired_root(computer, pid=editor.pid, title="Save As")
    state = state_id_of(await computer.call("observe_ui", {"root": dialog.ref}))
    name = await _shown(computer, state, await _refs(computer, state, role="textbox"))
    (save,) = await _refs(computer, state, text="Save", role="button")
    return SaveAs(state, name, save)


def _content(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


async def _saved(computer: ToolBox, path: Path, text: str) -> None:
    """``path`` holds ``text`` (mousepad writes once the dialog has closed) and the
    Save As dialog is gone."""
    for _ in range(200):
        if _content(path) == text:
            break
        await asyncio.sleep(0.05)
    assert _content(path) == text
    roots = await computer.call("find_roots")
    titles = [window.title for window in windows_of(roots)]
    assert "Save As" not in titles and any(path.name in title for title in titles), titles


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def editor(module_sandbox: Sandbox) -> AsyncIterator[Editor]:
    process = await module_sandbox.launch(["mousepad"])
    await module_sandbox.wait_for_app(process.pid)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        yield Editor(computer, process.pid, Path(module_sandbox.env["HOME"]))
    finally:
        await computer.close()


async def _refused_then_saved(
    editor: Editor, text: str, attempt: dict[str, Any], name: str, *, new_tab: bool
) -> StepTrace:
    """Type ``text`` and open Save As; ``attempt`` on the still disabled Save is refused,
    nothing is saved; naming the file and pressing Save then saves ``text``. The refused
    step's trace."""
    dialog = await _save_as(editor, text, new_tab=new_tab)
    refused, result = await _act(editor.computer, dialog.state, {**attempt, "ref": dialog.save})
    (step,) = refused.steps
    assert step.outcome == "didnt" and "disabled" in step.reason, step
    assert not list(editor.home.glob(f"{Path(name).stem}*"))

    path = editor.home / name
    act, _ = await _act(
        editor.computer,
        state_id_of(result),
        {"action": "setText", "ref": dialog.name, "text": str(path)},
        {"action": "press", "ref": dialog.save},
    )
    assert [done.outcome for done in act.steps] == ["worked", "worked"], act
    await _saved(editor.computer, path, text)
    return step


async def test_save_is_reported_disabled_until_named_then_saves_the_typed_text(
    editor: Editor,
) -> None:
    text = "Dear diary,\nsaved with the Save button.\n"
    await _refused_then_saved(editor, text, {"action": "press"}, "diary.txt", new_tab=False)


async def test_a_name_typed_and_confirmed_with_enter_saves_the_typed_text(editor: Editor) -> None:
    text = "Second page,\nsaved with Enter.\n"
    dialog = await _save_as(editor, text, new_tab=True)
    path = editor.home / "second.txt"
    act, _ = await _act(
        editor.computer,
        dialog.state,
        {"action": "typeText", "ref": dialog.name, "text": str(path)},
        {"action": "keypress", "ref": dialog.name, "keys": ["Return"]},
    )
    assert act.steps[1].delivery == "hid", act
    await _saved(editor.computer, path, text)


async def test_a_physical_click_on_the_disabled_save_is_refused_before_any_input(
    editor: Editor,
) -> None:
    text = "Third page,\nnever double-clicked.\n"
    double = {"action": "click", "clickCount": 2}
    step = await _refused_then_saved(editor, text, double, "third.txt", new_tab=True)
    assert step.mechanism == "none", "nothing was clicked"
