"""Thunar (GTK 3 file manager), a real app none of us wrote, driven like an agent through
``ToolBox``: a click on a file selects it and opens nothing (list and icon views), F2
renames the clicked file, the menu item File > Create Folder... opens a dialog that stays
reachable and creates the folder, and a select that nothing can do is refused. The
oracles are the files on disk and what Thunar itself shows; after every tool call
Thunar's pid must still be alive.
"""

from __future__ import annotations

import asyncio
import json
import os
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
from actui.outline.model import Node
from actui.results.tool_result import ToolResult
from actui.results.typed import Execution, StepTrace
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")
FILES = ("notes.txt", "report.md", "todo.txt")
TITLE = "files - Thunar"


def assert_alive(pid: int) -> None:
    """The process exists and is not a zombie (the shared helper will replace this)."""
    os.kill(pid, 0)
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    assert state != "Z", f"{pid} has exited"


@dataclass
class Thunar:
    computer: ToolBox
    pid: int
    folder: Path

    async def call(self, tool: str, args: dict[str, Any]) -> ToolResult:
        result = await self.computer.call(tool, args)
        assert_alive(self.pid)
        assert not result.is_error, result.text
        return result

    async def act(self, state: str, *actions: dict[str, Any]) -> tuple[Execution, ToolResult]:
        """The typed execution of an act that must not fail, and the result it came in."""
        acted = await self.call("act_ui", {"stateId": state, "actions": list(actions)})
        return executed(acted), acted

    async def observe(self, title: str = TITLE, mode: str = "semantic") -> str:
        window = await paired_root(self.computer, pid=self.pid, title=title)
        assert_alive(self.pid)
        observed = await self.call("observe_ui", {"root": window.ref, "mode": mode})
        return state_id_of(observed)

    async def ref(self, state: str, **query: str) -> str:
        found = await self.call("search_ui", {"stateId": state, **query})
        exact = [m for m in matches_of(found) if m.label == query.get("text")]
        return (exact or matches_of(found))[0].ref

    async def target(self, state: str, ref: str) -> Node:
        return inspected_of(await self.call("inspect_ui", {"stateId": state, "ref": ref}))

    async def windows(self) -> list[str]:
        """The titles of every window on the desktop (a launched viewer would show here)."""
        listed = await self.call("find_roots", {})
        return [w.title for w in windows_of(listed)]

    async def view(self, item: str) -> str:
        """Switch the folder view from the View menu (semantic presses); the new state."""
        state = await self.observe()
        _, opened = await self.act(
            state, {"action": "press", "ref": await self.ref(state, text="View", role="menu")}
        )
        menu = state_id_of(opened)
        _, chosen = await self.act(
            menu, {"action": "press", "ref": await self.ref(menu, text=item)}
        )
        return state_id_of(chosen)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def thunar(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Thunar]:
    home = tmp_path_factory.mktemp("thunar-home")
    folder = home / "files"
    (folder / "Reports 2026").mkdir(parents=True)
    for name in FILES:
        (folder / name).write_text(f"{name}\n")
    private = [
        f"HOME={home}",
        f"XDG_CONFIG_HOME={home}/.config",
        f"XDG_DATA_HOME={home}/.local/share",
        f"XDG_CACHE_HOME={home}/.cache",
    ]
    process = await module_sandbox.launch(["env", *private, "thunar", str(folder)])
    await module_sandbox.wait_for_app(process.pid)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        yield Thunar(computer, process.pid, folder)
    finally:
        await computer.close()
    assert_alive(process.pid)


async def _selected_by_click(thunar: Thunar, name: str) -> tuple[StepTrace, ToolResult]:
    """Click the name cell of ``name`` in the list view; the click's trace, its result."""
    state = await thunar.view("List View")
    cell = await thunar.ref(state, text=name, role="cell")
    trace, acted = await thunar.act(state, {"action": "click", "ref": cell})
    (step,) = trace.steps
    assert (step.action, step.outcome) == ("click", "worked"), step
    assert "selected" in (await thunar.target(state_id_of(acted), cell)).states, json.dumps(
        [step.to_wire(), acted.details], default=str
    )
    return step, acted


async def test_select_where_nothing_can_select_is_refused_before_anything_is_sent(
    thunar: Thunar,
) -> None:
    """The toolbar's Home button cannot be selected; its press would leave the folder."""
    state = await thunar.observe()
    home = await thunar.ref(state, text="Home", role="button")
    trace, _ = await thunar.act(state, {"action": "select", "ref": home})
    (step,) = trace.steps
    assert (step.outcome, step.mechanism) == ("didnt", "none"), step
    assert "cannot be selected" in step.reason
    assert TITLE in await thunar.windows(), "the folder shown is unchanged"


async def test_a_click_on_a_file_row_selects_it_and_opens_nothing(thunar: Thunar) -> None:
    step, acted = await _selected_by_click(thunar, "notes.txt")
    assert step.delivery == "ax" and "DoAction" not in step.mechanism, step
    status = await thunar.ref(state_id_of(acted), role="statusbar")
    assert '"notes.txt"' in (await thunar.target(state_id_of(acted), status)).name
    await asyncio.sleep(1.0)  # a viewer launched by an open would have a window by now
    assert await thunar.windows() == [TITLE], "nothing was opened"


async def test_select_on_a_file_row_selects_it_through_the_table(thunar: Thunar) -> None:
    """GTK 3 refuses Selection.SelectChild on a table of four columns; the row is
    selected through the Table interface, never by the cell's activate (open)."""
    state = await thunar.view("List View")
    cell = await thunar.ref(state, text="report.md", role="cell")
    trace, acted = await thunar.act(state, {"action": "select", "ref": cell})
    (step,) = trace.steps
    assert (step.outcome, step.mechanism) == ("worked", "Table.AddRowSelection"), step
    assert "selected" in (await thunar.target(state_id_of(acted), cell)).states
    await asyncio.sleep(1.0)
    assert await thunar.windows() == [TITLE], "nothing was opened"


async def test_f2_renames_the_file_selected_by_a_click(thunar: Thunar) -> None:
    _, acted = await _selected_by_click(thunar, "todo.txt")
    pressed, _ = await thunar.act(state_id_of(acted), {"action": "keypress", "keys": ["F2"]})
    assert pressed.steps[0].delivery == "hid"
    dialog = await thunar.observe(title='Rename "todo.txt"')
    entry = await thunar.ref(dialog, role="textbox")
    await thunar.act(
        dialog,
        {"action": "setText", "ref": entry, "text": "renamed.txt"},
        {"action": "keypress", "ref": entry, "keys": ["Return"]},
    )
    renamed = thunar.folder / "renamed.txt"
    for _ in range(100):
        if renamed.exists():
            break
        await asyncio.sleep(0.05)
    assert renamed.read_text() == "todo.txt\n" and not (thunar.folder / "todo.txt").exists()
    assert await thunar.windows() == [TITLE]


async def test_a_click_on_an_icon_selects_it_and_opens_nothing(thunar: Thunar) -> None:
    """Thunar's icon view exposes no accessible items: the file is found by OCR in the
    visual outline and clicked for real; its status bar (read over AT-SPI) names it."""
    await thunar.view("Icon View")
    state = await thunar.observe(mode="visual")
    found = await thunar.call("search_ui", {"stateId": state, "text": "report.md"})
    labels = [m.ref for m in matches_of(found) if m.label == "report.md"]
    assert len(labels) == 1, found.details
    (label,) = labels
    assert (await thunar.target(state, label)).picture_only is True
    trace, acted = await thunar.act(state, {"action": "click", "ref": label})
    (step,) = trace.steps
    assert step.delivery == "hid", step
    status = await thunar.ref(state_id_of(acted), role="statusbar")
    assert '"report.md"' in (await thunar.target(state_id_of(acted), status)).name
    await asyncio.sleep(1.0)
    assert await thunar.windows() == [TITLE], "nothing was opened"


async def _press_create_folder(thunar: Thunar) -> StepTrace:
    """Open the File menu and press Create Folder... (both by ref); the press's trace."""
    state = await thunar.observe()
    menu = await thunar.ref(state, text="File", role="menu")
    _, opened = await thunar.act(state, {"action": "press", "ref": menu})
    item = await thunar.ref(state_id_of(opened), text="Create Folder...", role="menuitem")
    trace, _ = await thunar.act(state_id_of(opened), {"action": "press", "ref": item})
    (step,) = trace.steps
    return step


async def test_create_folder_from_the_file_menu_keeps_thunar_reachable(thunar: Thunar) -> None:
    """GTK 3 would run the dialog inside the accessibility call: the item is clicked for
    real instead, so the dialog is listed, driven semantically, and the folder made."""
    step = await _press_create_folder(thunar)
    assert step.escalation_reason == "foreground_required", step
    assert step.delivery == "hid", json.dumps(step.to_wire())
    dialog = await thunar.observe(title="Create New Folder")
    entry = await thunar.ref(dialog, role="textbox")
    create = await thunar.ref(dialog, text="Create", role="button")
    made, _ = await thunar.act(
        dialog,
        {"action": "setText", "ref": entry, "text": "From The Menu"},
        {"action": "press", "ref": create},
    )
    assert [s.outcome for s in made.steps] == ["worked", "worked"], made
    assert (thunar.folder / "From The Menu").is_dir()
    assert await thunar.windows() == [TITLE]
    assert await thunar.observe(), "Thunar still answers"


async def test_headless_create_folder_is_refused_and_thunar_keeps_answering(
    thunar: Thunar, module_sandbox: Sandbox
) -> None:
    """Without physical input the dialog cannot be opened safely: nothing is sent."""
    headless = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        step = await _press_create_folder(Thunar(headless, thunar.pid, thunar.folder))
        assert step.outcome == "didnt" and step.error is not None, step
        assert step.error.code == "coordinate_blocked", step
    finally:
        await headless.close()
    assert await thunar.observe(), "Thunar still answers"
