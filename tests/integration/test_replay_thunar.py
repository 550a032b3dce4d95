"""Thunar's rename, recorded once through the Python API (click a file's row and press
F2; type the new name into the rename dialog and press Rename) and replayed by ``actui
replay`` from a fresh process, the new name given by ``--var``. The files in the folder
the test made are the oracle; Thunar must still be alive and answering after each run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import assert_alive
from replay_run import replayed_whole, script_ran
from test_corpus_thunar import TITLE, Thunar, thunar  # noqa: F401 (the module's Thunar)

from actui.api import Computer, Expect, keypress
from actui.backends.linux.sandbox import Sandbox
from actui.tools.workflow import Workflow, load

pytestmark = pytest.mark.asyncio(loop_scope="module")

RENAMED = 'Rename "todo.txt"'


@dataclass
class Recording:
    path: Path
    workflow: Workflow


def _env(sandbox: Sandbox) -> dict[str, str]:
    return {**sandbox.env, "ACTUI_HEADLESS": "0"}  # F2 is a key a person presses


async def _only(folder: Path, name: str) -> None:
    """``name`` holds todo.txt's text and todo.txt is gone (Thunar renames at once)."""
    for _ in range(100):
        if (folder / name).exists() and not (folder / "todo.txt").exists():
            break
        await asyncio.sleep(0.05)
    assert (folder / name).read_text() == "todo.txt\n"
    assert not (folder / "todo.txt").exists()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def recording(
    thunar: Thunar,  # noqa: F811 (the fixture imported above)
    module_sandbox: Sandbox,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[Recording]:
    directory = tmp_path_factory.mktemp("workflows")
    await thunar.view("List View")  # how this person keeps Thunar: not part of the work
    async with Computer(env=_env(module_sandbox), record=directory) as computer:
        (window,) = [r for r in await computer.find_roots(pid=thunar.pid) if r.title == TITLE]
        state = await computer.observe(window)
        todo = state.one("cell", "todo.txt")
        opened = await state.act(
            todo.click(), keypress("F2"), expect=Expect(text=RENAMED, role="dialog")
        )
        opened.raise_for_outcome()
        dialog = await computer.observe(
            await computer.wait_for_window(app=window.app, kind="dialog", title=RENAMED)
        )
        entry = dialog.search(role="textbox").first
        rename = dialog.one("button", "Rename")
        # no expect: the dialog closing is the recorded effect
        (await dialog.act(entry.set_text("renamed.txt"), rename.press())).raise_for_outcome()
        assert computer.recording is not None
        path = computer.recording
    await _only(thunar.folder, "renamed.txt")
    assert_alive(thunar.pid)
    yield Recording(path, load(path))


async def test_the_rename_replays_from_a_fresh_process_to_the_name_given_by_var(
    thunar: Thunar,  # noqa: F811
    module_sandbox: Sandbox,
    recording: Recording,
) -> None:
    workflow = recording.workflow
    assert len(workflow.steps) == 2 and not workflow.leftOut, workflow
    (name,) = [v.name for v in workflow.variables if v.default == "renamed.txt"]
    assert workflow.steps[1].expect is not None and workflow.steps[1].expect.until == "absent"
    (thunar.folder / "todo.txt").write_text("todo.txt\n")  # the file to rename, again
    given = ("--var", f"{name}=minutes.txt")
    await replayed_whole(_env(module_sandbox), recording.path, *given, steps=2)
    await _only(thunar.folder, "minutes.txt")
    assert (thunar.folder / "renamed.txt").read_text() == "todo.txt\n", "the other is untouched"
    assert_alive(thunar.pid)
    assert await thunar.windows() == [TITLE], "Thunar answers, its rename dialog closed"


async def test_the_python_script_of_the_recording_renames_to_the_name_it_is_given(
    thunar: Thunar,  # noqa: F811
    module_sandbox: Sandbox,
    recording: Recording,
    tmp_path: Path,
) -> None:
    (name,) = [v.name for v in recording.workflow.variables if v.default == "renamed.txt"]
    (thunar.folder / "todo.txt").write_text("todo.txt\n")
    script = tmp_path / "rename.py"
    await script_ran(_env(module_sandbox), recording.path, script, f"{name}=agenda.txt")
    await _only(thunar.folder, "agenda.txt")
    assert_alive(thunar.pid)
    assert await thunar.windows() == [TITLE], "Thunar answers, its rename dialog closed"
