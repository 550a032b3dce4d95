"""LibreOffice Impress's dialogs set what the saved presentation keeps.

View › Zoom › Zoom... (a submenu's command) opens "Zoom & View Layout", whose spin field
takes 200 %: the saved view settings say ``ZoomOnPage`` false, and the view's visible
width shrank by the zoom's factor (from the fitted zoom the field read before).
Tools › Options... switches its tree to LibreOffice Impress › Grid, where "Snap to grid"
is cleared: the saved settings say ``IsSnapToGrid`` false (true before). The deck is a
flat ODF presentation saved in place by ctrl+s; its XML is the oracle. Impress starts
once for the module; every call is followed by the check that it still runs.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from office import Office, start, written

from actui.api import keypress
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

EMPTY_DECK = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" office:version="1.2"
 office:mimetype="application/vnd.oasis.opendocument.presentation">
 <office:body><office:presentation>
  <draw:page draw:name="page1"/>
 </office:presentation></office:body>
</office:document>
"""
"""A flat ODF presentation with one empty slide."""
WIDTHS = re.compile(r'config:name="VisibleAreaWidth" config:type="int">(\d+)<')


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def impress(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Office]:
    deck = tmp_path_factory.mktemp("impress") / "deck.fodp"
    deck.write_text(EMPTY_DECK)
    async with start(module_sandbox, "impress", deck) as office:
        yield office


async def _saved(impress: Office, setting: str) -> tuple[str, list[int]]:
    """ctrl+s in the deck's window; the saved ``setting``'s value and the visible widths."""
    deck = impress.folder / impress.title
    before = deck.stat().st_mtime_ns
    look = await impress.look()
    await impress.run(look, keypress("ctrl", "s"))
    await written(lambda: deck.stat().st_mtime_ns != before and setting in deck.read_text())
    text = deck.read_text()
    found = re.search(rf'config:name="{setting}" config:type="boolean">(\w+)<', text)
    assert found is not None, setting
    return found.group(1), [int(w) for w in WIDTHS.findall(text)]


async def test_a_submenu_commands_spin_field_sets_the_saved_zoom(impress: Office) -> None:
    on_page, widths = await _saved(impress, "ZoomOnPage")
    assert on_page == "true"
    look = await impress.look()
    await impress.menu(look, "View", "Zoom", "Zoom...")
    dialog = await impress.look("Zoom & View Layout")
    (spin,) = dialog.search("Variable", role="spinbutton")
    fitted = int(spin.value.rstrip("%"))
    dialog = await impress.run(dialog, spin.set_text("200%"))
    (ok,) = dialog.search("OK", role="button")
    await impress.last(dialog, ok.press())
    on_page, zoomed = await _saved(impress, "ZoomOnPage")
    assert on_page == "false"
    ((was, now),) = [(a, b) for a, b in zip(widths, zoomed, strict=True) if a != b]
    assert was / now == pytest.approx(200 / fitted, rel=0.15), (widths, zoomed, fitted)


async def test_a_setting_on_a_switched_options_page_is_saved(impress: Office) -> None:
    await impress.clear_option("LibreOffice Impress", "Grid", "Snap to grid")
    snapping, _ = await _saved(impress, "IsSnapToGrid")
    assert snapping == "false"
    await impress.look()
