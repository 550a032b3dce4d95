"""LibreOffice Calc's dialogs set what the saved spreadsheet keeps.

Format › Rows › Height... (a submenu's command) opens "Row Height", whose spin field takes
0.75″ and Return closes it (a key judged by the focus it moved): the saved file's row
style says ``style:row-height="0.75in"`` (Calc's default row is 0.178in). Tools ›
Options... switches its tree to LibreOffice Calc › View, where "Zero values" is cleared:
the saved file's view settings say ``ShowZeroValues`` false (true before). The book is a
flat ODF spreadsheet, saved in place by ctrl+s with no question; its XML is the oracle.
Calc starts once for the module; every call is followed by the check that it still runs.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from computer_helpers import assert_alive
from office import Office, start, written
from test_corpus_libreoffice import EMPTY_BOOK

from actui.api import keypress
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def calc(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Office]:
    book = tmp_path_factory.mktemp("calc") / "book.fods"
    book.write_text(EMPTY_BOOK)
    async with start(module_sandbox, "calc", book) as office:
        yield office


async def _saved(calc: Office, found: re.Pattern[str]) -> re.Match[str]:
    """ctrl+s in the book's window, then the saved XML's first match of ``found``."""
    look = await calc.look()
    await calc.run(look, keypress("ctrl", "s"))
    book = calc.folder / calc.title
    await written(lambda: found.search(book.read_text()) is not None)
    match = found.search(book.read_text())
    assert match is not None
    return match


async def test_a_submenu_commands_spin_field_sets_the_saved_row_height(calc: Office) -> None:
    look = await calc.look()
    await calc.menu(look, "Format", "Rows", "Height...")
    dialog = await calc.look("Row Height")
    (height,) = dialog.search("Height:", role="spinbutton")
    assert height.value != "0.75″", dialog.text
    dialog = await calc.run(dialog, height.set_text("0.75″"))
    # Return takes the dialog's default button (OK): the key is judged where it went,
    # the focused field, which left with its dialog
    done = await dialog.act(keypress("Return"))
    assert_alive(calc.pid)
    (key,) = done.steps
    assert done.outcome == "worked" and "focus" in key.reason, done.text
    await _saved(calc, re.compile(r'style:row-height="0\.75in"'))


async def test_a_setting_on_a_switched_options_page_is_saved(calc: Office) -> None:
    await calc.clear_option("LibreOffice Calc", "View", "Zero values")
    found = re.compile(r'config:name="ShowZeroValues" config:type="boolean">(\w+)<')
    assert (await _saved(calc, found)).group(1) == "false"
    await calc.look()
