"""LibreOffice Calc: two numbers entered and the sheet saved under a new name, recorded once
through the Python API and replayed by ``actui replay`` from a fresh process with other
numbers and another file name given by ``--var``.

Each entry is checked by the cell's own value, which Calc's cell shows once the entry is
committed (typing goes to the cell's editor, ``backends/atspi/cell_editor.py``); the save
by its dialog opening and closing. The oracle is the saved file's cells; Calc must still
be alive and answering.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import assert_alive
from replay_run import replayed_whole, script_ran
from test_corpus_libreoffice import EMPTY_BOOK

from actui.api import Computer, Expect, keypress
from actui.api import Observation as Look
from actui.backends.linux.sandbox import Sandbox
from actui.tools.workflow import Workflow, load

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOOK = "book.fods"
TITLE = f"{BOOK} - LibreOffice Calc"
ODF = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
}


@dataclass
class Recording:
    path: Path
    workflow: Workflow
    folder: Path
    pid: int


def _env(sandbox: Sandbox) -> dict[str, str]:
    return {**sandbox.env, "ACTUI_HEADLESS": "0"}  # Calc takes typed keys only


async def _book_window(computer: Computer, sandbox: Sandbox, folder: Path) -> Look:
    """Calc showing an empty ``book.fods`` in ``folder`` (a running Calc opens it in a new
    window), observed."""
    (folder / BOOK).write_text(EMPTY_BOOK)
    await sandbox.launch(["soffice", "--calc", "--norestore", "--nologo", str(folder / BOOK)])
    async with asyncio.timeout(90):  # a cold LibreOffice start takes seconds
        while True:
            shown = [r for r in await computer.find_roots(app="soffice") if r.title == TITLE]
            if shown:
                return await computer.observe(shown[0], mode="semantic")
            await asyncio.sleep(0.25)


def _cells(saved: Path) -> list[str] | None:
    """The values of the first column of the saved sheet, read from the file itself (None
    before it is written)."""
    if not saved.exists():
        return None
    rows = ET.parse(saved).getroot().iter(f"{{{ODF['table']}}}table-row")
    values = []
    for row in rows:
        cell = row.find("table:table-cell", ODF)
        value = None if cell is None else cell.get(f"{{{ODF['office']}}}value")
        if value is not None:
            values.append(value)
    return values


async def _saved(path: Path) -> list[str] | None:
    for _ in range(100):
        if (cells := _cells(path)) is not None:
            return cells
        await asyncio.sleep(0.1)
    return None


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def recording(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Recording]:
    directory, folder = tmp_path_factory.mktemp("workflows"), tmp_path_factory.mktemp("sheets")
    async with Computer(env=_env(module_sandbox), record=directory) as computer:
        sheet = await _book_window(computer, module_sandbox, folder)
        pid = sheet.root.pid
        for address, number in (("A1", "120"), ("A2", "345")):
            cell = sheet.one("cell", address)
            entered = await sheet.act(
                cell.type_text(number), keypress("Return"), expect=Expect(ref=cell, value=number)
            )
            assert entered.raise_for_outcome().state is not None
            sheet = entered.state
        opened = await sheet.act(
            keypress("ctrl", "shift", "s"), expect=Expect(text="Save", role="dialog")
        )
        opened.raise_for_outcome()
        dialog = await computer.observe(
            await computer.wait_for_window(app="soffice", kind="dialog", title="Save"),
            mode="semantic",
        )
        (name,) = [e for e in dialog.search(role="textbox") if "showing" in e.states]
        save = dialog.one("button", "Save")
        # no expect: the dialog closing is the recorded effect
        (
            await dialog.act(name.set_text(str(folder / "totals.fods")), save.press())
        ).raise_for_outcome()
        assert computer.recording is not None
        path = computer.recording
    assert await _saved(folder / "totals.fods") == ["120", "345"]
    assert_alive(pid)
    yield Recording(path, load(path), folder, pid)


async def test_the_entries_are_recorded_with_the_cells_values_as_their_checks(
    recording: Recording,
) -> None:
    workflow = recording.workflow
    assert not workflow.leftOut and len(workflow.steps) == 4, workflow
    first, second, _, _ = workflow.steps
    for step, variable in ((first, "a1"), (second, "a2")):
        assert step.expect is not None and step.expect.target is not None
        assert (step.expect.target.name, step.expect.value) == (
            variable.upper(),
            f"{{{{{variable}}}}}",
        )
        assert step.recorded.check == "verified"
    defaults = {v.name: v.default for v in workflow.variables}
    assert defaults["a1"] == "120" and defaults["a2"] == "345"


async def test_the_entry_and_save_replay_with_new_numbers_and_file_name(
    module_sandbox: Sandbox, recording: Recording
) -> None:
    (file_var,) = [v.name for v in recording.workflow.variables if str(v.default).endswith(".fods")]
    target = recording.folder / "replayed.fods"
    async with Computer(env=_env(module_sandbox)) as computer:
        await _book_window(computer, module_sandbox, recording.folder)
        given = ["--var", "a1=77", "--var", "a2=0.5", "--var", f"{file_var}={target}"]
        await replayed_whole(_env(module_sandbox), recording.path, *given, steps=4)
        assert await _saved(target) == ["77", "0.5"]
        assert_alive(recording.pid)
        titles = [r.title for r in await computer.find_roots(app="soffice")]
        assert "replayed.fods - LibreOffice Calc" in titles, titles


async def test_the_python_script_of_the_recording_enters_and_saves_what_it_is_given(
    module_sandbox: Sandbox, recording: Recording, tmp_path: Path
) -> None:
    (file_var,) = [v.name for v in recording.workflow.variables if str(v.default).endswith(".fods")]
    target = recording.folder / "scripted.fods"
    async with Computer(env=_env(module_sandbox)) as computer:
        await _book_window(computer, module_sandbox, recording.folder)
        given = ("a1=64", "a2=1000", f"{file_var}={target}")
        await script_ran(_env(module_sandbox), recording.path, tmp_path / "entry.py", *given)
        assert await _saved(target) == ["64", "1000"]
        assert_alive(recording.pid)
        titles = [r.title for r in await computer.find_roots(app="soffice")]
        assert "scripted.fods - LibreOffice Calc" in titles, titles
