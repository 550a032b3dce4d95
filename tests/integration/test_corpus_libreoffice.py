"""LibreOffice Calc (VCL over its GTK 3 plugin) is never killed or wedged by a look.

Its sheet is a table that manages its own descendants and claims 2^31 cells;
asking for all of them grew soffice from 0.5 to 2.2 GB and no observation
ever returned. actui reads such a container as a window onto its data (its
size, and the cells on screen), so observing Calc returns and says the
sheet's size and shown range, soffice's memory stays put, and Calc keeps
answering. A cell off screen is found by its address, reading that cell alone.
The task an agent would do works end to end: find A1, enter 3, 4,
5 and their sum below, save; a headless soffice reads the file back. Closed
menus are left unread, and a search reads them on demand.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import (
    assert_alive,
    call_alive,
    found_of,
    matches_of,
    observation_of,
    state_id_of,
    windows_of,
)

from actui.backends.atspi import AtspiBackend
from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.reader import ACCESSIBLE, IFACE_PREFIX
from actui.backends.base import RawNode
from actui.backends.linux.sandbox import Sandbox
from actui.outline.windows import window_text
from actui.results.typed import RootView
from actui.runtime.reaching import SheetCell, Unopened
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")
GROWTH_MB = 100
FIELDS = ("Name", "Description", "ChildCount")


@dataclass
class Calc:
    computer: ToolBox
    pid: int
    root: str
    book: Path


EMPTY_BOOK = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.2"
 office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
 <office:body><office:spreadsheet><table:table table:name="Sheet1">
  <table:table-row><table:table-cell/></table:table-row>
 </table:table></office:spreadsheet></office:body>
</office:document>
"""
"""A flat ODF spreadsheet with one empty sheet: saved in place, without a dialog."""


def _rss_mb(pid: int) -> float:
    """Resident memory of Calc's process (the one behind its window: other desktops on the
    machine may run soffice too)."""
    found = re.search(r"^VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(found.group(1)) / 1024 if found else 0.0


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def calc(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Calc]:
    book = tmp_path_factory.mktemp("calc") / "book.fods"
    book.write_text(EMPTY_BOOK)
    await module_sandbox.launch(["soffice", "--calc", "--norestore", "--nologo", str(book)])
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        windows: tuple[RootView, ...] = ()
        for _ in range(240):  # a cold LibreOffice start takes seconds
            windows = windows_of(await computer.call("find_roots", {"text": "book.fods"}))
            if windows:
                break
            await asyncio.sleep(0.25)
        assert windows, "LibreOffice Calc showed no window"
        yield Calc(computer, windows[0].pid, windows[0].ref, book)
    finally:
        await computer.close()


async def test_observing_calc_returns_and_leaves_its_memory_and_answers_alone(calc: Calc) -> None:
    await asyncio.sleep(2)  # let the start-up settle before the baseline
    before = _rss_mb(calc.pid)
    observed = await call_alive(calc.computer, calc.pid, "observe_ui", {"root": calc.root})
    state = state_id_of(observed)
    sheet = await call_alive(
        calc.computer, calc.pid, "search_ui", {"stateId": state, "role": "table"}
    )
    assert matches_of(sheet), observed.text
    ref = matches_of(sheet)[0].ref
    (window,) = [w.window for w in observation_of(observed).windows if w.ref == ref]
    assert (window.rows, window.columns) == (1_048_576, 16_384), window
    line = window_text(window)  # the size, then the shown range
    assert line.startswith("1,048,576 rows × 16,384 columns; showing A1:"), line
    assert line in observed.text
    cell = await call_alive(
        calc.computer, calc.pid, "search_ui", {"stateId": state, "text": "A1", "role": "cell"}
    )
    assert matches_of(cell)[0].label == "A1", cell.text
    far = await call_alive(
        calc.computer, calc.pid, "search_ui", {"stateId": state, "text": "Z200", "role": "cell"}
    )
    assert [m.label for m in matches_of(far) if m.reason == "exact"] == ["Z200"], far.text
    (named,) = [each for each in found_of(far).unread if isinstance(each, SheetCell)]
    assert named.read, far.text
    grown = calc.computer.state(found_of(far).state_id).outline
    read = {n.ref for n in grown} - {n.ref for n in calc.computer.state(state).outline}
    assert [grown.nodes[ref].name for ref in read] == ["Z200"], "one cell read, by its address"
    again = await call_alive(calc.computer, calc.pid, "observe_ui", {"root": calc.root})
    assert observation_of(again).node_count == observation_of(observed).node_count
    assert _rss_mb(calc.pid) - before < GROWTH_MB
    assert_alive(calc.pid)
    roots = await call_alive(calc.computer, calc.pid, "find_roots", {"pid": calc.pid})
    assert windows_of(roots), "Calc still answers for its window"


async def test_search_ui_finds_an_item_of_a_closed_menu_by_reading_it_on_demand(
    calc: Calc,
) -> None:
    before = _rss_mb(calc.pid)
    observed = await call_alive(calc.computer, calc.pid, "observe_ui", {"root": calc.root})
    state = state_id_of(observed)
    assert re.search(r'menu "Format" \(not shown; \d+ items unread\)', observed.text), observed.text
    assert '"Cells..."' not in observed.text, "a closed menu's items were read"
    found = await call_alive(
        calc.computer, calc.pid, "search_ui", {"stateId": state, "text": "Cells..."}
    )
    exact = [m for m in matches_of(found) if m.reason == "exact"]
    assert exact and exact[0].role == "menuitem", found.text
    assert "Format" in exact[0].path, exact[0]
    searched = found_of(found)
    assert searched.base_state_id == state and searched.state_id != state
    (hidden,) = [each for each in searched.unread if isinstance(each, Unopened)]
    assert hidden.read >= 1 and hidden.left and hidden.matched, hidden
    # searching again would meet the match at once: what is left is opened by expand_ui
    assert "then met an exact match" in found.text and "expand_ui" in found.text, found.text
    stored = calc.computer.state(state).outline
    assert not any(n.name == "Cells..." for n in stored), "the stored state stayed as it was"
    assert _rss_mb(calc.pid) - before < GROWTH_MB
    assert_alive(calc.pid)
    roots = await call_alive(calc.computer, calc.pid, "find_roots", {"pid": calc.pid})
    assert windows_of(roots), "Calc still answers for its window"


def _cells(node: RawNode) -> list[RawNode]:
    found = [node] if node.raw_role == "table cell" else []
    return found + [cell for child in node.children for cell in _cells(child)]


async def test_shown_cells_have_the_names_and_extents_libreoffice_reports(
    calc: Calc, module_sandbox: Sandbox
) -> None:
    """A look names a shown cell after its address and places it by its row and column
    instead of asking each cell: every cell read says what LibreOffice says of it (its
    screen extents moved by the window's origin, as every element's are)."""
    backend, bus = AtspiBackend(module_sandbox.env), AtspiBus(module_sandbox.env)
    try:
        (root, *_) = await backend.list_roots(pid=calc.pid)
        cells = _cells((await backend.snapshot(root, max_nodes=4096, max_depth=64)).tree)
        assert len(cells) > 100, len(cells)
        shifts = set()
        for cell in cells:
            at = Address.parse(cell.native_id)
            props = await bus.get_many(at.bus, at.path, ACCESSIBLE, FIELDS)
            (extents,) = await bus.call(
                at.bus, at.path, IFACE_PREFIX + "Component", "GetExtents", "u", (0,)
            )
            x, y, w, h = extents
            said = (props["Name"], props["Description"], props["ChildCount"], w, h)
            assert cell.rect is not None, cell
            assert said == (cell.name, "", 0, cell.rect.w, cell.rect.h), (said, cell)
            shifts.add((cell.rect.x - x, cell.rect.y - y))
        # a snapshot's rects are the screen's moved by the window's origin, one for all
        assert len(shifts) == 1, shifts
    finally:
        await bus.close()
        await backend.close()
    assert_alive(calc.pid)


async def _csv_of(book: Path) -> list[str]:
    """The sheet as CSV, converted by a headless soffice of its own (a separate profile, so
    the running Calc is not asked)."""
    out = book.parent / "csv"
    profile = (book.parent / "profile").as_uri()
    converter = await asyncio.create_subprocess_exec(
        "soffice", f"-env:UserInstallation={profile}", "--headless", "--convert-to", "csv",
        "--outdir", str(out), str(book),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    async with asyncio.timeout(90):
        await converter.wait()
    return (out / "book.csv").read_text().split()


async def test_entering_three_numbers_and_their_sum_is_saved_and_reads_back(calc: Calc) -> None:
    await asyncio.sleep(1)
    before = _rss_mb(calc.pid)
    observed = await call_alive(calc.computer, calc.pid, "observe_ui", {"root": calc.root})
    state = state_id_of(observed)
    cells = []
    for name in ("A1", "A2", "A3", "A4"):
        found = await call_alive(
            calc.computer, calc.pid, "search_ui", {"stateId": state, "text": name, "role": "cell"}
        )
        cells += [m.ref for m in matches_of(found) if m.label == name]
    assert len(cells) == 4, cells
    entries = zip(cells, ("3", "4", "5", "=SUM(A1:A3)"), strict=True)
    entered = await call_alive(
        calc.computer,
        calc.pid,
        "act_ui",
        {
            "stateId": state,
            "actions": [
                *(
                    step
                    for ref, text in entries
                    for step in (
                        {"action": "click", "ref": ref},
                        {"action": "typeText", "text": text},
                        {"action": "keypress", "keys": ["Return"]},
                    )
                ),
                {"action": "keypress", "keys": ["ctrl", "s"]},
            ],
        },
    )
    assert not entered.is_error, entered.text
    await asyncio.sleep(2)
    assert await _csv_of(calc.book) == ["3", "4", "5", "12"]
    assert _rss_mb(calc.pid) - before < GROWTH_MB
    assert_alive(calc.pid)
    roots = await call_alive(calc.computer, calc.pid, "find_roots", {"pid": calc.pid})
    assert windows_of(roots), "Calc still answers for its window"
