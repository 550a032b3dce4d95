"""LibreOffice Writer (VCL over its GTK 3 plugin) driven as a person drives it.

Its page is a ``document text`` that makes its children on demand and holds only
the paragraphs on screen: those are read with their text, typing into the page
goes into the paragraph holding the caret, and a condition on the typed text is
verified. Menus and submenus run their items (Format › Text › Bold, Styles ›
Heading 1), Save As answers the file type and the keep-format question through
their dialogs, and File › Export As › Export as PDF... writes a PDF. The oracles
are the saved files: the .docx's XML (the texts, the bold run, the heading style)
and the PDF's text. LibreOffice starts once for the module; every call is followed
by the check that it still runs, and each test ends with it answering.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import assert_alive
from office import Office, runs, start, written

from actui import api
from actui.api import Element, Expect, Observation, keypress, type_text
from actui.backends.base import TextFormat
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIRST = "Bold words open the letter."
SECOND = "A heading follows"
EMPTY_TEXT = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"
 office:mimetype="application/vnd.oasis.opendocument.text">
 <office:body><office:text><text:p/></office:text></office:body>
</office:document>
"""
"""A flat ODF text with one empty paragraph."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def writer(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Office]:
    letter = tmp_path_factory.mktemp("writer") / "letter.fodt"
    letter.write_text(EMPTY_TEXT)
    async with start(module_sandbox, "writer", letter) as office:
        yield office


def _paragraph(look: Observation, text: str) -> Element:
    (found,) = [e for e in look.search(text) if e.role in ("paragraph", "heading")]
    return found


async def test_typed_paragraphs_formatted_by_menus_are_saved_as_docx_and_pdf(
    writer: Office,
) -> None:
    for _ in range(150):  # the window shows before the document is loaded
        look = await writer.look()
        if pages := look.search(role="document text"):
            break
        await asyncio.sleep(0.2)
    (page,) = pages
    assert "typeText" not in page.capabilities
    # Return is a physical key: the next transaction starts once Writer has taken it (in
    # one transaction the semantic insert that followed could arrive before it)
    look = await writer.run(look, page.type_text(FIRST), keypress("Return"))
    (page,) = look.search(role="document text")
    look = await writer.run(look, page.type_text(SECOND), expect=Expect(text=SECOND))
    assert _paragraph(look, FIRST).value == FIRST, look.text
    # bold: the first paragraph selected with keys, then Format › Text › Bold
    first = _paragraph(look, FIRST)
    look = await writer.run(look, first.click(), keypress("Home"), keypress("shift", "End"))
    look = await writer.menu(look, "Format", "Text", "Bold")
    # a heading: the second paragraph takes Styles › Heading 1 (the click puts the caret
    # there; Home leaves the selection, which Writer's caret placement extends)
    look = await writer.run(look, _paragraph(look, SECOND).click(), keypress("Home"))
    look = await writer.menu(look, "Styles", "Heading 1")
    # the formatting reads back from the text's attributes
    bold = await writer.inspect(look, _paragraph(look, FIRST))
    weights = [int(run.attributes.get("weight", "400")) for run in bold.runs]
    assert weights and min(weights) >= 600, bold  # bold is 600 and above, as in CSS
    assert [(run.start, run.end) for run in bold.runs] == [(0, len(FIRST))], bold
    heading = await writer.inspect(look, _paragraph(look, SECOND))
    assert heading.defaults.get("paragraph-style") == "Heading 1", heading
    # File › Save As...: the type chosen in its dialog, the keep-format question answered
    look = await writer.menu(look, "File", "Save As...")
    docx = writer.folder / "letter.docx"
    dialog = await writer.look("Save")
    kinds = await dialog.find("Word 2007–365 (.docx)")
    dialog = await writer.run(kinds.state, kinds.first.select())
    (name,) = dialog.search("Name:", role="textbox")
    dialog = await writer.run(dialog, name.set_text(str(docx)))
    (save,) = dialog.search("Save", role="button")
    done = await dialog.act(save.press())
    assert done.outcome != "didnt", done.text
    question = await writer.look("Question")
    (keep,) = [e for e in question.search(role="button") if "Word" in e.name]
    await question.act(keep.press())
    assert_alive(writer.pid)
    await written(lambda: docx.exists() and docx.stat().st_size > 0)
    body = _docx_body(docx)
    assert FIRST in body and SECOND in body, body
    assert re.search(r"<w:b/>.*?" + re.escape(FIRST), body), "the first paragraph is bold"
    assert re.search(r'w:pStyle w:val="Heading1".*?' + re.escape(SECOND), body), body
    # File › Export As › Export as PDF...: its options dialog, then the file dialog
    look = await writer.look("letter.docx")
    look = await writer.menu(look, "File", "Export As", "Export as PDF...")
    options = await writer.look("PDF Options")
    (export,) = options.search("Export", role="button")
    await options.act(export.press())
    pdf = writer.folder / "letter.pdf"
    chooser = await writer.look("Export")
    (name,) = chooser.search("Name:", role="textbox")
    chooser = await writer.run(chooser, name.set_text(str(pdf)))
    (save,) = [e for e in chooser.search("Export", role="button") if "is_default" in e.states]
    await chooser.act(save.press())
    await written(lambda: pdf.exists() and bool(_pdf_text(pdf)))
    text = _pdf_text(pdf)
    assert FIRST in text and SECOND in text, text
    await writer.look("letter.docx")


def _docx_body(path: Path) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read("word/document.xml").decode()


def _pdf_text(path: Path) -> str:
    done = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, timeout=30)
    return done.stdout if done.returncode == 0 else ""


async def test_a_submenu_dialogs_spin_field_keeps_what_was_set_and_is_saved(
    writer: Office,
) -> None:
    """View › Zoom › Zoom... opens "Zoom & View Layout"; its spin field, set to 200 %,
    is taken by LibreOffice (which commits a field only on its default action: before,
    the field read 200 % and the view stayed at 100 %), and the saved file says so."""
    look = await writer.look("letter")
    await writer.menu(look, "View", "Zoom", "Zoom...")
    dialog = await writer.look("Zoom & View Layout")
    (variable,) = dialog.search("Variable:", role="radio")
    (spin,) = dialog.search("Variable", role="spinbutton")
    dialog = await writer.run(dialog, variable.click(), spin.set_text("200%"))
    assert dialog.element(spin.ref).value == "200%", dialog.text
    (ok,) = dialog.search("OK", role="button")
    done = await dialog.act(ok.press())
    assert done.outcome == "worked", done.text
    look = await writer.look("letter")
    assert [e for e in look.search("200%") if e.role == "label"], "the status bar's zoom"
    saved = writer.folder / "zoomed.fodt"
    look = await writer.menu(look, "File", "Save As...")
    chooser = await writer.look("Save")
    kinds = await chooser.find("Flat XML ODF Text Document (.fodt)")
    (flat,) = [e for e in kinds if e.role == "menuitem" and e.name.endswith("(.fodt)")]
    chooser = await writer.run(kinds.state, flat.select())
    (name,) = chooser.search("Name:", role="textbox")
    chooser = await writer.run(chooser, name.set_text(str(saved)))
    (save,) = chooser.search("Save", role="button")
    await chooser.act(save.press())
    await written(lambda: saved.exists() and "ZoomFactor" in saved.read_text())
    zoom = re.search(r'config:name="ZoomFactor" config:type="short">(\d+)<', saved.read_text())
    assert zoom and zoom.group(1) == "200", zoom
    await writer.look("zoomed")


async def test_selecting_a_page_in_the_options_tree_switches_the_page(writer: Office) -> None:
    """Tools › Options...: its pages are cells of a tree; select on one used to mark it
    selected while the page stayed (LibreOffice switches when the focus moves to it)."""
    look = await writer.look("zoomed")
    await writer.menu(look, "Tools", "Options...")
    options = await writer.look("Options - LibreOffice")
    assert "User Data" in options.root.title, options.root.title
    (general,) = [e for e in options.search("General", role="cell") if e.name == "General"]
    options = await writer.run(options, general.select())
    switched = await writer.look("Options - LibreOffice - General")
    assert switched.search("Help", role="group") or switched.search(role="checkbox"), switched.text
    (cancel,) = switched.search("Cancel", role="button")
    await switched.act(cancel.press())
    await writer.look("zoomed")


async def test_with_the_foreground_policy_typing_into_the_page_needs_no_click(
    writer: Office, module_sandbox: Sandbox
) -> None:
    """Physical typing on the page's ref first focuses it: the paragraph that holds the
    caret takes the keys (it used to be refused: "the target could not be focused ...
    click it first", also right after a click)."""
    env = {**module_sandbox.env, "ACTUI_HEADLESS": "0", "ACTUI_DELIVERY_POLICY": "foreground"}
    async with api.Computer(env=env) as computer:
        (window,) = [r for r in await computer.find_roots("zoomed") if "zoomed" in r.title]
        look = await computer.observe(window)
        (page,) = look.search(role="document text")
        done = await look.act(page.type_text(" typed by keys"), expect=Expect(text="typed by keys"))
        assert_alive(writer.pid)
        assert done.check == "verified", done.text
        assert [step.delivery for step in done.steps] == ["hid"], done.text


async def test_a_key_press_is_worked_when_its_effect_reads_back_at_the_focus(
    writer: Office,
) -> None:
    """Each key is judged where it went, the focused paragraph: End moves the caret,
    shift+Home selects, ctrl+b turns the selection's bold over, each read back there (every
    ``keypress`` used to say ``unknown``, even when its effect showed)."""
    look = await writer.look("zoomed")
    look = await writer.run(look, _paragraph(look, FIRST).click())  # the caret at its start
    was_bold = _bold(await writer.inspect(look, _paragraph(look, FIRST)))
    for keys, changed in (
        (("End",), "caret or selection"),
        (("shift", "Home"), "caret or selection"),
        (("ctrl", "b"), "formatting"),
    ):
        done = await look.act(keypress(*keys))
        assert_alive(writer.pid)
        (step,) = done.steps
        assert step.outcome == "worked" and changed in step.reason, done.text
        assert done.state is not None, done.text
        look = done.state
    assert _bold(await writer.inspect(look, _paragraph(look, FIRST))) is not was_bold
    # a key whose effect is not at the focus says so: Home where the caret already is
    look = await writer.run(look, keypress("Home"))
    done = await look.act(keypress("Home"))
    assert_alive(writer.pid)
    assert done.outcome == "unknown" and "reads the same" in done.steps[0].reason, done.text


def _bold(shape: TextFormat) -> bool:
    """Whether the whole text is bold (600 and above, as in CSS)."""
    weights = [run.attributes.get("weight") for run in shape.runs] or [None]
    return all(int(w or shape.defaults.get("weight", "400")) >= 600 for w in weights)


async def test_after_a_menu_command_keys_go_to_the_document_and_the_result_says_so(
    writer: Office,
) -> None:
    """Format › Text › Italic run from its menu leaves the keyboard focus in the page
    (LibreOffice announces its root pane taking it, and nothing when the paragraph has it
    again, so typing used to be judged at the pane); the result names the paragraph, and
    the text typed at the focus and ctrl+s after it reach the saved file."""
    look = await writer.look("zoomed")
    look = await writer.menu(look, "Format", "Text")
    (italic,) = [e for e in look.search("Italic") if e.name == "Italic" and runs(e)]
    done = await look.act(italic.click())
    assert_alive(writer.pid)
    assert done.outcome == "worked" and done.execution.focus is not None, done.text
    assert done.execution.focus.role in ("paragraph", "heading"), done.text
    assert f"focus: {done.execution.focus.ref} {done.execution.focus.role}" in done.text
    assert done.state is not None, done.text
    typed = "Typed after Italic"  # autocorrect leaves it as it is
    look = await writer.run(done.state, type_text(typed), expect=Expect(text=typed))
    done = await look.act(keypress("ctrl", "s"))
    assert_alive(writer.pid)
    assert done.outcome != "didnt", done.text
    saved = writer.folder / "zoomed.fodt"
    await written(lambda: typed in saved.read_text())
    await writer.look("zoomed")
