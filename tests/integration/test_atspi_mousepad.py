"""AT-SPI backend against mousepad: type a document, save it from the menu, and a menu
item that opens a modal dialog (Save As) refused semantically before it can block the app."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from atspi_helpers import find, launch_app, root_of, snap

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionKind, ActionRequest, ActionResult, RawNode, RootInfo, Snapshot
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")
TEXT = "Dear diary,\nactui typed this.\n"


@dataclass
class Editor:
    backend: AtspiBackend
    root: RootInfo
    path: Path

    async def step(self, kind: ActionKind, node: RawNode, text: str = "") -> ActionResult:
        request = ActionRequest(
            kind=kind, root=self.root, policy="background", target=node.native_id, text=text
        )
        return await self.backend.act(request)


def _menu_item(snapshot: Snapshot, label: str) -> RawNode:
    # mousepad pads its menu item names with spaces
    return find(snapshot, lambda n: n.raw_role == "menu item" and n.name.strip() == label)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def editor(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Editor]:
    home = tmp_path_factory.mktemp("mousepad-home")
    path = home / "note.txt"
    path.write_text("")
    # A private home: mousepad otherwise restores (and asks about) earlier sessions.
    private = [f"HOME={home}", f"XDG_CONFIG_HOME={home}/config", f"XDG_DATA_HOME={home}/data"]
    process = await launch_app(module_sandbox, ["env", *private, "mousepad", str(path)])
    backend = AtspiBackend(module_sandbox.env, call_timeout_s=1.0)
    try:
        yield Editor(backend, await root_of(backend, process.pid), path)
    finally:
        await backend.close()


async def test_typed_text_saved_from_the_file_menu_is_on_disk(editor: Editor) -> None:
    snapshot = await snap(editor.backend, editor.root)
    document = find(snapshot, lambda n: n.raw_role == "text" and "typeText" in n.caps)
    typed = await editor.step("typeText", document, TEXT)
    assert typed.outcome == "worked", typed
    assert (await editor.backend.read_text(editor.root, document.native_id, 0, 100)).text == TEXT
    saved = await editor.step("press", _menu_item(snapshot, "Save"))
    assert saved.outcome == "worked", saved
    # the press is observed after the app answers again, i.e. after the save ran
    assert editor.path.read_text() == TEXT


async def test_a_menu_item_opening_a_dialog_is_refused_before_anything_is_sent(
    editor: Editor,
) -> None:
    """GTK 3 would run Save As's dialog inside the AT-SPI call, leaving the app unable to
    answer: a semantic press of a closed menu's "Save As..." sends nothing, and the app
    still answers."""
    snapshot = await snap(editor.backend, editor.root)
    started = time.perf_counter()
    result = await editor.step("press", _menu_item(snapshot, "Save As..."))
    assert (result.outcome, result.mechanism) == ("didnt", "none"), result
    assert result.blocked == "menu_closed", "the advice to open the menu is the boundary's"
    assert "menu is closed" in result.reason
    assert time.perf_counter() - started < 5
    assert (await snap(editor.backend, editor.root)).tree.children, "the app still answers"
