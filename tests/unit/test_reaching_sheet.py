"""A search of a spreadsheet's unread cells reads the one cell its text names, and no other.

The backend is a small model of LibreOffice Calc, not a mock of AT-SPI: a
window with a closed menu (read only when asked) and a sheet of 1,048,576 ×
16,384 cells showing A1:O17, whose cells are named after their address
whatever they hold, as LibreOffice names them. ``find_in_rows`` records every
cell it was asked for and keeps those whose name the query accepts.
"""

from __future__ import annotations

import asyncio
import time

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import (
    ActionRequest,
    ActionResult,
    Backend,
    RawNode,
    Rect,
    RootInfo,
    RowQuery,
    Snapshot,
    TextSlice,
    Window,
    cell_name,
)
from actui.outline.conditions import UiCondition
from actui.outline.model import Outline
from actui.outline.search import search
from actui.runtime.reaching import ConditionReach, SheetCell, Unopened, named_cell, search_unread
from actui.runtime.store import State
from actui.runtime.waiting import observed_outline

ROOT = RootInfo("calc/1", 9, "soffice", "Calc", "window", "frame", frame=Rect(0, 0, 900, 600))
ROWS, COLUMNS = 1_048_576, 16_384
SHOWN_ROWS, SHOWN_COLUMNS = range(17), range(15)
addresses = st.tuples(st.integers(0, ROWS - 1), st.integers(0, COLUMNS - 1))
unread = addresses.filter(lambda at: at[0] not in SHOWN_ROWS or at[1] not in SHOWN_COLUMNS)
"""Cells a look did not read (search_ui reads on demand only when none read matched)."""


class CalcModel(Backend):
    """A sheet whose cells are named after their address, and (``menu``) a closed menu."""

    def __init__(self, menu: bool = True) -> None:
        self.menu = menu
        self.asked: list[tuple[int, int]] = []
        self.queries: list[RowQuery] = []
        self.opened: list[str] = []

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        return [ROOT]

    def _cell(self, row: int, column: int) -> RawNode:
        return RawNode(f"cell/{row}/{column}", "table cell", name=cell_name(row, column))

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        shown = tuple(self._cell(r, c) for r in SHOWN_ROWS for c in SHOWN_COLUMNS)
        window = Window(2**31 - 1, ROWS, COLUMNS, 0, SHOWN_ROWS[-1], 0, SHOWN_COLUMNS[-1], True)
        sheet = RawNode("sheet", "table", name="Sheet1", window=window, children=shown)
        menus = (RawNode("menu/format", "menu", name="Format", unread=3),) if self.menu else ()
        tree = RawNode("win", "frame", name="Calc", children=(*menus, sheet))
        return Snapshot(root=ROOT, tree=tree, captured_at=time.time(), node_count=3 + len(shown))

    async def read_below(self, root: RootInfo, node_id: str, budget_s: float) -> RawNode:
        self.opened.append(node_id)
        item = RawNode(f"{node_id}/cells", "menu item", name="Cells...")
        return RawNode(node_id, "menu", name="Format", children=(item,))

    async def find_in_rows(self, root: RootInfo, query: RowQuery) -> list[RawNode]:
        self.queries.append(query)
        asked = [(r, c) for r in query.rows for c in query.columns]
        self.asked += asked
        return [self._cell(r, c) for r, c in asked if query.accepts(cell_name(r, c))][: query.limit]

    async def act(self, request: ActionRequest) -> ActionResult:
        raise AssertionError("a search acts on nothing")

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        raise AssertionError("a search reads names, not texts")

    async def close(self) -> None:
        return None


async def _state(app: CalcModel) -> State:
    snapshot = await app.snapshot(ROOT, max_nodes=4096, max_depth=64)
    return State("s1", "calc", 1, "@r1", ROOT, observed_outline(snapshot, None), time.time())


async def _searched(app: CalcModel, text: str) -> tuple[Outline, list[object]]:
    successor, reached = await search_unread(app, await _state(app), text, 1, 1.0)
    return successor.outline, list(reached)


async def test_a_cells_address_reads_that_cell_alone_first_and_search_finds_it_exactly() -> None:
    app = CalcModel()
    outline, reached = await _searched(app, "Z200")
    assert app.asked == [(199, 25)], "one cell, and none of the thousands around it"
    assert not app.opened, "the named cell met the search: the closed menu stays unread"
    (hit,) = [m for m in search(outline, text="Z200").matches if m.reason == "exact"]
    assert hit.label == "Z200" and hit.role == "cell"
    (said,) = [r for r in reached if isinstance(r, SheetCell)]
    assert said.note("s2") == f"{said.node.ref} table: read cell Z200, which the text names."


async def test_a_text_naming_no_cell_reads_no_cell_and_says_how_to_reach_one() -> None:
    for text in ("A", "20", "Z", "Total", "Item 250", "A1 total", "$Z$200", "Z0"):
        app = CalcModel()
        _, reached = await _searched(app, text)
        assert app.asked == [], text
        assert app.opened == ["menu/format"], "a closed menu is still read for the text"
        (said,) = [r for r in reached if isinstance(r, SheetCell)]
        note = said.note("s2")
        assert "not searched" in note and "cell's address" in note and "scroll" in note, note
        assert any(isinstance(r, Unopened) for r in reached), reached


async def test_an_address_beyond_the_sheet_reads_nothing_and_says_there_is_no_such_cell() -> None:
    app = CalcModel(menu=False)
    _, reached = await _searched(app, "XFE1")  # column 16,385
    assert app.asked == []
    (said,) = reached
    assert isinstance(said, SheetCell) and said.note("s2").endswith("has no cell XFE1.")


@given(unread, st.sampled_from([str.upper, str.lower, lambda t: f"  {t.title()} "]))
def test_any_cells_address_in_any_case_reads_exactly_that_cell(
    at: tuple[int, int], spelled: object
) -> None:
    assert callable(spelled)
    app = CalcModel(menu=False)
    outline, _ = asyncio.run(_searched(app, spelled(cell_name(*at))))
    assert app.asked == [at]
    assert cell_name(*at) in {n.name for n in outline}


@given(unread, st.lists(addresses, max_size=20))
def test_the_cell_asked_for_is_kept_only_under_its_own_name_never_a_neighbours(
    at: tuple[int, int], others: list[tuple[int, int]]
) -> None:
    """Prefix and substring of an address (Z20 of Z200, Z200 of Z2000 and AZ200) is no hit."""
    app = CalcModel(menu=False)
    asyncio.run(_searched(app, cell_name(*at)))
    (query,) = app.queries
    row, column = at
    near = [(row * 10 + 9, column), (row // 10, column), (row, column + 26), *others]
    names = {cell_name(r, c) for r, c in near if (r, c) != at and r < ROWS and c < COLUMNS}
    assert query.accepts(cell_name(*at)) and query.limit == 1
    assert not any(query.accepts(name) for name in names), names


@given(st.text(max_size=12))
def test_only_a_spreadsheet_address_names_a_cell(text: str) -> None:
    cell = named_cell(text)
    if cell is not None:
        assert cell_name(*cell) == text.strip().upper()


async def test_a_wait_reads_a_sheet_only_for_a_text_naming_one_of_its_cells() -> None:
    app = CalcModel(menu=False)
    base = (await _state(app)).outline
    assert ConditionReach(app, UiCondition(text="Z200", timeout_ms=500), base, 1.0).wanted(base)
    total = UiCondition(text="Total", timeout_ms=500)
    assert not ConditionReach(app, total, base, 1.0).wanted(base), "no name could match"
