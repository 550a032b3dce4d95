"""A container too big to list, read as a window onto its data: its size and what is on screen.

A GTK 3 tree view of 100,000 rows has 300,003 children and ``GetChildren``
outlasts any timeout; LibreOffice's sheet claims 2^31 cells and makes an
object for each one asked for (asking for all grew soffice by gigabytes).
Such a container is never enumerated. Its size comes from ``ChildCount`` and
``Table`` (``NRows``, ``NColumns``: one call each); its shown part from its
viewport: ``Component.GetAccessibleAtPoint`` just inside its top-left,
bottom-left and top-right corners (both GTK 3 and LibreOffice answer it in
under a millisecond) gives the first and last shown row and column, and
``Table.GetAccessibleAt`` (a list: ``GetChildAtIndex``) each shown cell.
A point may fall on a column header or a gap; a few points further in are
tried. Row and column of a cell come from its index through the table
(``GetRowAtIndex``); LibreOffice's index overflows past row 131,072, so a
spreadsheet's cells fall back on their names (``A1``). A spreadsheet's shown
cells are asked of the table only once per backend (``kept_cells``): LibreOffice
makes a new object for every ask and never frees it. This module reads; it
does not decide which containers are windows.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AppGone, AtspiBus, CallFailed
from actui.backends.atspi.kept_cells import KeptCells
from actui.backends.atspi.reader import (
    ACCESSIBLE,
    IFACE_PREFIX,
    MAX_ACTIONS,
    Basics,
    basics_of,
    discard,
    read_listed,
    request_actions,
    short_interfaces,
)
from actui.backends.atspi.tables import role_name, state_names
from actui.backends.base import Window, cell_address, cell_name
from actui.errors import TargetGone

TABLE = IFACE_PREFIX + "Table"
COMPONENT = IFACE_PREFIX + "Component"
SCREEN = 0
MAX_CHILDREN = 4096
"""A container with more children is not enumerated: no snapshot could hold them, and
``GetChildren`` of 30,000 GTK 3 list cells outlasts the call timeout."""
MAX_WINDOW_CELLS = 2048
"""Shown cells read at most: a big screen's sheet shows about 1,500."""
MAX_SHEET_CELLS = 256
"""Shown spreadsheet cells read at most (the first rows of the view; the rest is read on
demand by ``search_ui``). Each costs three calls; a 1,920 × 1,080 Calc shows 495 of them,
which alone took soffice longer than the 500 ms a cold look may."""
PROBES = 8
"""Points tried from each corner inwards before the corner is given up."""
INSET = 3
"""Pixels inside the container's edge a probe starts at."""
MIN_LINE = 8
"""Pixels a row or column takes at least: bounds what a view can show."""
SPREADSHEET = "document spreadsheet"
"""The role of the parent that makes a table a spreadsheet (its cells are named ``A1``)."""
T = TypeVar("T")


@dataclass(frozen=True)
class CellHint:
    """What a shown cell's table already told: what ``read_basics`` and ``read_details``
    need not ask again.

    ``name`` and ``extents`` are known only for a spreadsheet's cells that
    occupy one grid position each: LibreOffice names a cell after its address
    (``B3``, no description, no children) and lays cells on a grid, so a
    cell's screen extents are its column's x and width and its row's y and
    height (read from the first shown row and column). A merged cell, met at
    several positions, is read in full.
    """

    role: str
    interfaces: frozenset[str]
    name: str | None = None
    extents: tuple[int, int, int, int] | None = None
    """Screen extents (x, y, width, height)."""
    states: frozenset[str] | None = None
    """Read with the cell (a kept one is asked its state to know it is still there)."""
    actions: tuple[str, ...] | None = None
    """The action names of its column's first shown cell, where the table's cells are
    alike by column (:func:`alike_by_column`); None: the cell's own are read."""
    basics: Basics | None = None
    """Its states, name, description and child count, asked with its column's role
    where the cells are alike by column (the walk asked them a round trip later)."""


@dataclass(frozen=True)
class Viewed:
    """The window and the children to read: shown column headers, then shown cells, with
    what is already known of the cells."""

    window: Window
    children: tuple[Address, ...]
    hints: Mapping[Address, CellHint] = field(default_factory=dict)
    extents: tuple[int, int, int, int] | None = None
    """The container's own screen extents, read with its size (None: not placed)."""


DOCUMENT_ROLES = frozenset({"document text", "document presentation", "document frame"})
"""Roles of a document's page, whose children are its paragraphs, headings, list items,
tables and frames."""
MAX_DOCUMENT_CHILDREN = 512
"""A document that manages its descendants with at most this many children lists them:
LibreOffice Writer's page has as children only the paragraphs on screen (15 of a
1,400-paragraph document), made once and kept, so they are read as any children are."""


def is_document(basics: Basics) -> bool:
    """A document page that makes its children on demand but holds only those on screen.

    Read as a window onto its data it showed nothing ("1 item; none shown": its
    paragraphs sit inside its margins, where a probe at its left edge finds none),
    and neither a search nor a condition saw the text an agent typed into it.
    """
    return (
        basics.role in DOCUMENT_ROLES
        and "manages_descendants" in basics.states
        and 0 < basics.child_count <= MAX_DOCUMENT_CHILDREN
    )


def is_windowed(basics: Basics, max_children: int = MAX_CHILDREN) -> bool:
    """Whether the container is read through its viewport instead of its child list.

    Every container that makes its children on demand (``manages_descendants``:
    GTK 3 tree views, LibreOffice's sheet), and any with more than
    ``max_children``. Nothing may ask such a container for all its children:
    a GTK 3 list of 100,000 rows stays busy making 300,003 of them long after
    the call timed out.
    """
    if is_document(basics):
        return False
    return basics.child_count > max_children or (
        "manages_descendants" in basics.states and basics.child_count != 0
    )


def alike_by_column(role: str, toolkit: str, libreoffice: bool = False) -> bool:
    """Whether a windowed table's shown cells are alike by column: a column's cells have
    its first cell's action names, x and width, and a row's cells its first cell's y and
    height, so those are read once per column and per row instead of once per cell.

    GTK 3's tree view makes every cell of a column from that column's renderers, with
    the same three actions ("Expand or contract", "Edit", "Activate", measured on
    ``tests/apps/gtk3_big_list.py``), and places it in its column's x and width and
    its row's y and height. A list only (role ``table``): a tree's (``tree table``)
    cells of the expander column are indented by their depth. LibreOffice names its
    GTK 3 plugin as its toolkit, but its own accessibility code answers, so it is left
    out (its sheets have their own grid: ``CellHint``). A 72-cell look asked 69
    ``GetActions`` and 46 ``GetExtents`` that said nothing new: over a quarter of its
    calls.
    """
    return role == "table" and not libreoffice and toolkit.lower().startswith("gtk 3")


def gtk3_place(index: int, rows: int, columns: int) -> tuple[int, int] | None:
    """(row, column) of a GTK 3 tree view's child ``index`` (None for a column header or
    past the table), as its ``Table.GetRowAtIndex`` and ``GetColumnAtIndex`` answer:
    its children are the ``columns`` headers, then each row's cells, so the row is
    ``index // columns - 1`` and the column ``index % columns`` (the lists of
    ``tests/apps/gtk3_big_list.py`` read either way give the same outline, node for
    node). Two round trips fewer for each corner of its view."""
    if columns <= 0 or index < columns or index >= (rows + 1) * columns:
        return None
    return index // columns - 1, index % columns


class _Reader:
    def __init__(
        self, bus: AtspiBus, at: Address, table: bool, cells: bool, size: tuple[int, int] | None
    ) -> None:
        """``size``: (rows, columns) of a GTK 3 tree view, whose cells' places are
        counted from their index (:func:`gtk3_place`); None: the table is asked."""
        self.bus, self.at, self.table, self.cells, self.size = bus, at, table, cells, size

    async def table_index(self, member: str, index: int) -> int:
        """``Table.<member>(index)``: the row or column of a child index (-1 off the table)."""
        (value,) = await self.bus.call(self.at.bus, self.at.path, TABLE, member, "i", (index,))
        return int(value)

    async def cell_of(self, found: Address) -> tuple[int, int] | None:
        """(row, column) of the element found at a point (a list: (index, 0)); None off a
        cell."""
        if found.is_null or found == self.at:
            return None
        (index,) = await self.bus.call(found.bus, found.path, ACCESSIBLE, "GetIndexInParent")
        index = int(index)
        if not self.table:
            return (index, 0) if index >= 0 else None
        if index < 0:
            if not self.cells:
                return None
            name = await self.bus.get(found.bus, found.path, ACCESSIBLE, "Name")
            return cell_address(str(name))
        if self.size is not None:
            return gtk3_place(index, *self.size)
        row, column = await asyncio.gather(
            self.table_index("GetRowAtIndex", index), self.table_index("GetColumnAtIndex", index)
        )
        return (row, column) if row >= 0 and column >= 0 else None

    async def first_hit(
        self,
        points: Sequence[tuple[int, int]],
        *,
        empty_ends: bool = False,
        together: bool = False,
    ) -> tuple[tuple[int, int], int] | None:
        """The first point's cell that is one, and that point's y.

        The points are asked in waves of 1, 3 and the rest. A point costs a GTK 3
        tree view half a millisecond (it looks through its cells), so all eight at
        once cost the application more than the round trips they saved; a list's
        header takes the first few points from the top. The first point is asked
        alone, as LibreOffice makes an object for every cell asked for; a GTK 3
        list's (``size``) with the next three (``together``: its first point falls on
        its header, so the next three were asked in any case, a round trip later).
        An element met at several points (a column header) is asked its place once,
        and the elements a wave met are asked theirs at once.
        ``empty_ends``: a point with nothing under it (no child, or the container
        itself) ends the search, as the data ends before it (probing inwards from
        the bottom or right edge of a list that does not fill its view: eight
        misses there were eight points asked for nothing).
        """
        tried: set[Address] = set()
        first = 4 if together and self.size is not None else 1
        for wave in (points[:first], points[first:4], points[4:]):
            asked = [
                self.bus.request(
                    self.at.bus, self.at.path, COMPONENT, "GetAccessibleAtPoint", "iiu",
                    (x, y, SCREEN),
                )
                for x, y in wave
            ]  # fmt: skip
            met: list[tuple[Address, int]] = []
            ended = False
            for (_, y), value in zip(wave, await answers(asked), strict=True):
                found = Address.of(value) if value is not None else None
                if found is None or found in tried:
                    continue
                if empty_ends and (found.is_null or found == self.at):
                    ended = True
                    break
                tried.add(found)
                met.append((found, y))
            places = await asyncio.gather(
                *(self.cell_of(found) for found, _ in met), return_exceptions=True
            )
            for (_, y), place in zip(met, places, strict=True):
                if isinstance(place, BaseException):
                    raise place  # as it was met before any cell: the read fails
                if place is not None:
                    return place, y
            if ended:
                return None
        return None


async def read_window(
    bus: AtspiBus,
    at: Address,
    basics: Basics,
    *,
    showing_known: bool = True,
    parent_role: str | None = None,
    kept: KeptCells | None = None,
    by_column: bool = False,
) -> Viewed:
    """The container's size and its shown part (nothing shown when it has no extents, or
    is not ``showing`` where the toolkit says so reliably: GTK 4 never does). A
    spreadsheet's shown cells are taken from ``kept`` where they are, and kept there.

    A container whose cache entry did not count its children (GTK 3's tree views
    say -1) is asked ``ChildCount`` with the first calls. ``parent_role``, when the
    caller already read it, tells a spreadsheet without asking its parent: those two
    calls in a row were the first link of the longest chain of a cold GTK 3 look.
    ``by_column``: its cells are alike by column (:func:`alike_by_column`).
    """
    table = "Table" in basics.interfaces
    placed = "Component" in basics.interfaces
    if showing_known and "showing" not in basics.states:
        placed = False
    # Independent of each other: asked at once (each is a round trip into the app, a few
    # ms each for a GTK 3 list of 100,000 rows).
    counted = basics.child_count >= 0
    cells, size, extents, count = await asyncio.gather(
        in_spreadsheet(bus, at, parent_role) if table else _nothing(False),
        bus.get_many(at.bus, at.path, TABLE, ("NRows", "NColumns")) if table else _nothing({}),
        bus.call(at.bus, at.path, COMPONENT, "GetExtents", "u", (SCREEN,))
        if placed
        else _nothing([(0, 0, 0, 0)]),
        _nothing(basics.child_count)
        if counted
        else bus.get_int(at.bus, at.path, ACCESSIBLE, "ChildCount"),
    )
    window = Window(count=int(count), cells=cells)
    if table:
        window = replace(
            window, rows=int(size.get("NRows", -1)), columns=int(size.get("NColumns", -1))
        )
    left, top, width, height = (int(v) for v in extents[0])
    if width <= 0 or height <= 0:
        return Viewed(window, ())
    box = (left, top, width, height)
    if window.count == 0:
        return Viewed(window, (), extents=box)
    counted_places = None
    rows, columns = window.rows or 0, window.columns or 0
    if by_column and table and not cells and rows > 0 and columns > 0:
        counted_places = (rows, columns)
    reader = _Reader(bus, at, table, cells, counted_places)
    right, bottom = left + width - 1, top + height - 1
    down = [top + INSET + k * max(4, height // 32) for k in range(PROBES)]
    up = [bottom - INSET - k * max(4, height // 32) for k in range(PROBES)]
    # No cell just inside an edge: the data ends before it (rows or columns that do
    # not fill the view), so the rest of the data is shown, as far as the view holds.
    top_hit, bottom_hit = await asyncio.gather(
        reader.first_hit([(left + INSET, y) for y in down], together=True),
        reader.first_hit([(left + INSET, y) for y in up], empty_ends=True),
    )
    if top_hit is None:
        return Viewed(window, (), extents=box)
    first, row_y = top_hit
    ends = (window.rows if table else window.count) or 0
    last_row = bottom_hit[0][0] if bottom_hit is not None else ends - 1
    last_row = min(last_row, first[0] + height // MIN_LINE)
    last_column = first[1]
    if table:
        across = [right - INSET - k * max(4, width // 32) for k in range(PROBES)]
        corner = await reader.first_hit([(x, row_y) for x in across], empty_ends=True)
        last_column = corner[0][1] if corner is not None else (window.columns or 0) - 1
        last_column = min(last_column, first[1] + width // MIN_LINE)
    columns = max(1, last_column - first[1] + 1)
    on_screen = max(1, last_row - first[0] + 1)
    cap = MAX_SHEET_CELLS if cells else MAX_WINDOW_CELLS
    rows = min(on_screen, max(1, cap // columns))
    window = replace(
        window,
        first_row=first[0],
        last_row=first[0] + rows - 1,
        screen_last_row=first[0] + on_screen - 1 if on_screen > rows else -1,
        first_column=first[1],
        last_column=first[1] + columns - 1,
    )
    viewed = await _shown_children(bus, at, window, table, kept, by_column)
    return replace(viewed, extents=box)


async def _nothing(value: T) -> T:
    """``value``, in the place of a call not made."""
    return value


async def in_spreadsheet(bus: AtspiBus, at: Address, parent_role: str | None = None) -> bool:
    """Whether the table is a spreadsheet's sheet (its parent says so: LibreOffice's);
    ``parent_role``, where the caller read it, answers without asking the parent."""
    if parent_role is not None:
        return parent_role == SPREADSHEET
    try:
        parent = Address.of(await bus.get(at.bus, at.path, ACCESSIBLE, "Parent"))
        if parent.is_null:
            return False
        (role,) = await bus.call(parent.bus, parent.path, ACCESSIBLE, "GetRole")
    except CallFailed:
        return False
    return role_name(int(role)) == SPREADSHEET


Identity = tuple[str, frozenset[str]]
"""An element's role and interfaces: what ``read_basics`` need not ask again."""


async def answers(futures: list[asyncio.Future[list[Any]]]) -> list[Any | None]:
    """Each call's first value, None where the toolkit refused it (any other failure, an
    app gone or not answering, is raised as in any other read of a walk)."""
    try:
        bodies = await asyncio.gather(*futures, return_exceptions=True)
    finally:
        discard(futures)
    for body in bodies:
        if isinstance(body, BaseException) and not isinstance(body, CallFailed):
            raise body
    return [None if isinstance(b, BaseException) else b[0] for b in bodies]


def _present(values: list[Any | None]) -> list[Address]:
    found = (Address.of(v) for v in values if v is not None)
    return [a for a in found if not a.is_null]


async def _shown_children(
    bus: AtspiBus,
    at: Address,
    window: Window,
    table: bool,
    kept: KeptCells | None,
    by_column: bool = False,
) -> Viewed:
    """Shown column headers (where the table has them), then shown cells row by row.

    A table's cells of one column share a role and interfaces (GTK 3 makes a
    column's cells from one renderer), so those are read once per column, from
    its first shown cell, not once per cell; a spreadsheet's are all alike
    (LibreOffice's), read once, and it has no column headers (LibreOffice
    answers null for every column), so none are asked. A spreadsheet's cells
    come from ``kept`` where an earlier look was given them (:func:`cells_at`), and
    the new ones are asked their state with their role and extents (the walk would
    ask it after them, one round trip later). Where cells are alike by column
    (``by_column``), the first shown cell of each column is asked its actions with its
    role, and the cells are placed on the grid as a spreadsheet's are.
    """
    rows = range(window.first_row, window.last_row + 1)
    if not table:
        asked = [
            bus.request(at.bus, at.path, ACCESSIBLE, "GetChildAtIndex", "i", (i,)) for i in rows
        ]
        return Viewed(window, tuple(dict.fromkeys(_present(await answers(asked)))))
    columns = range(window.first_column, window.last_column + 1)
    headers = [
        bus.request(at.bus, at.path, TABLE, "GetColumnHeader", "i", (c,))
        for c in (() if window.cells else columns)
    ]
    positions = [(r, c) for r in rows for c in columns]
    try:
        cells, states = await cells_at(bus, at, positions, kept if window.cells else None)
    except BaseException:
        discard(headers)
        raise
    shown_headers = _present(await answers(headers))
    firsts = [cell for cell in cells[: len(columns)] if not cell.is_null]
    if window.cells:
        firsts = firsts[:1]
    # the headers' too, in the same round trip: their reads then need no role call, and
    # their extents are asked with their states (``reader.Ahead``)
    tops = list(dict.fromkeys(h for h in shown_headers if h not in firsts))
    once = Counter(cells)
    # a spreadsheet's new cells are asked their state with the rest, not by the walk after
    fresh = [c for c in once if window.cells and not c.is_null and c not in states]
    by_column = by_column and not window.cells
    # alike by column, the walk finds every shown cell and header read: it asks nothing
    heads = tops if by_column else []
    each = [c for c in once if by_column and not c.is_null] + heads
    found, grid_at, said, acted, read, placed = await asyncio.gather(
        _identities(bus, firsts + tops),
        _grid(bus, cells, len(columns), once) if window.cells or by_column else _nothing(None),
        _states(bus, fresh),
        _actions(bus, firsts + heads if by_column else []),
        _listed(bus, each),
        _extents(bus, heads),
    )
    states.update((c, s) for c, s in zip(fresh, said, strict=True) if s is not None)
    identities = dict(zip(firsts + tops, found, strict=True))
    actions = dict(zip(firsts + heads if by_column else [], acted, strict=True))
    listed = {c: r for c, r in zip(each, read, strict=True) if r is not None}
    hints: dict[Address, CellHint] = {}
    for header, box in zip(tops, placed if by_column else [None] * len(tops), strict=True):
        known = identities[header]
        said_of = listed.get(header)
        if known is not None:
            hints[header] = CellHint(
                *known,
                extents=box,
                actions=actions.get(header),
                basics=basics_of(known, *said_of) if said_of is not None else None,
            )
    shown = Shown(rows, columns, cells, once)
    hints.update(
        cell_hints(
            shown,
            identities,
            grid_at,
            sheet=window.cells,
            states=states,
            actions=actions,
            listed=listed,
        )
    )
    children = dict.fromkeys([*shown_headers, *(cell for cell in cells if not cell.is_null)])
    return Viewed(window, tuple(children), hints)


@dataclass(frozen=True)
class Shown:
    """A table's shown cells, row by row (a null address where there is none), with the
    rows and columns they stand at and how often each cell was met."""

    rows: range
    columns: range
    cells: list[Address]
    once: Counter[Address]


Grid = Callable[[int, int], tuple[int, int, int, int] | None]
"""The screen extents of the shown cell at (row, column) of the shown range (``_grid``)."""


def cell_hints(
    shown: Shown,
    identities: Mapping[Address, Identity | None],
    grid_at: Grid | None,
    *,
    sheet: bool,
    states: Mapping[Address, frozenset[str]],
    actions: Mapping[Address, tuple[str, ...] | None],
    listed: Mapping[Address, Listed] | None = None,
) -> dict[Address, CellHint]:
    """What each shown cell's table already told of it.

    Its role and interfaces are its column's first shown cell's (``identities``;
    a spreadsheet's cells are all alike: the first one's), and so are its actions
    where they were read (``actions``, by that first cell). With a grid, a cell met
    at one position only is placed on it; a spreadsheet's cell is also named after
    its address and given the states read with it. A cell whose states and
    properties were read with the window (``listed``) is given its basics.
    """
    listed = listed or {}
    width = len(shown.columns)
    alike = next(iter(identities.values()), None) if sheet else None
    hints: dict[Address, CellHint] = {}
    for index, cell in enumerate(shown.cells):
        first = shown.cells[index % width]
        known = alike or identities.get(first)
        if cell.is_null or known is None:
            continue
        row, column = divmod(index, width)
        acts = actions.get(first)
        said = listed.get(cell)
        basics = basics_of(known, *said) if said is not None else None
        if grid_at is None or shown.once[cell] > 1:
            hints[cell] = CellHint(*known, actions=acts, basics=basics)
        elif sheet:
            name = cell_name(shown.rows[row], shown.columns[column])
            extents = grid_at(row, column)
            hints[cell] = CellHint(*known, name=name, extents=extents, states=states.get(cell))
        else:
            extents = grid_at(row, column)
            hints[cell] = CellHint(*known, extents=extents, actions=acts, basics=basics)
    return hints


async def cells_at(
    bus: AtspiBus, at: Address, positions: list[tuple[int, int]], kept: KeptCells | None
) -> tuple[list[Address], dict[Address, frozenset[str]]]:
    """The cell at each position (a null address where there is none), and the states of
    those that were kept.

    A kept cell (``kept_cells``) is asked its state, which the walk needs of
    every shown cell anyway; only where it is gone or defunct is the table asked
    for the cell, as it is for every position not kept, and where it is focused:
    LibreOffice answers the focused cell's position with an object of its own,
    the one its focus events name (asking for it makes no new one).
    """
    known = kept.of(at) if kept is not None else {}
    reused = [(p, known[p]) for p in positions if p in known]
    said = await _states(bus, [cell for _, cell in reused])
    states = {
        cell: s
        for (_, cell), s in zip(reused, said, strict=True)
        if s is not None and "focused" not in s
    }
    cells = {p: cell for p, cell in reused if cell in states}
    missing = [p for p in positions if p not in cells]
    asked = [bus.request(at.bus, at.path, TABLE, "GetAccessibleAt", "ii", p) for p in missing]
    for p, value in zip(missing, await answers(asked), strict=True):
        cells[p] = Address.of(value) if value is not None else Address("", "")
    if kept is not None:
        kept.keep(at, {p: cell for p, cell in cells.items() if not cell.is_null})
    return [cells[p] for p in positions], states


async def _states(bus: AtspiBus, cells: list[Address]) -> list[frozenset[str] | None]:
    """Each cell's states; None where it is gone, defunct or refused."""
    asked = [bus.request(c.bus, c.path, ACCESSIBLE, "GetState") for c in cells]
    try:
        bodies = await asyncio.gather(*asked, return_exceptions=True)
    finally:
        discard(asked)
    for body in bodies:
        if isinstance(body, AppGone) or (
            isinstance(body, BaseException) and not isinstance(body, CallFailed | TargetGone)
        ):
            raise body
    said = [None if isinstance(b, BaseException) else state_names(b[0]) for b in bodies]
    return [None if s is None or "defunct" in s else s for s in said]


async def _grid(
    bus: AtspiBus, cells: list[Address], width: int, once: Counter[Address]
) -> Grid | None:
    """The screen extents of the shown cell at (row, column) of the shown range, from the
    extents of the first shown row's and column's cells: a row and a column of calls
    instead of one a cell (None when either is incomplete or holds a merged cell)."""
    edge = cells[:width] + cells[width::width]
    if any(cell.is_null or once[cell] > 1 for cell in edge):
        return None
    asked = [bus.request(c.bus, c.path, COMPONENT, "GetExtents", "u", (SCREEN,)) for c in edge]
    found = await answers(asked)
    boxes = [tuple(int(n) for n in v) for v in found if v is not None]
    if len(boxes) != len(edge):
        return None
    across, down = boxes[:width], boxes[:1] + boxes[width:]

    def at(row: int, column: int) -> tuple[int, int, int, int] | None:
        x, _, w, _ = across[column]
        _, y, _, h = down[row]
        return (x, y, w, h) if w > 0 and h > 0 else None

    return at


async def _extents(bus: AtspiBus, at: list[Address]) -> list[tuple[int, int, int, int] | None]:
    """Each element's screen extents; None where refused or empty."""
    asked = [bus.request(a.bus, a.path, COMPONENT, "GetExtents", "u", (SCREEN,)) for a in at]
    boxes = [tuple(int(n) for n in v) if v is not None else None for v in await answers(asked)]
    return [
        (b[0], b[1], b[2], b[3]) if b is not None and b[2] > 0 and b[3] > 0 else None for b in boxes
    ]


Listed = tuple[frozenset[str], Mapping[str, object]]
"""A cell's states and its name, description and child count (``reader.read_listed``)."""


async def _listed(bus: AtspiBus, cells: list[Address]) -> list[Listed | None]:
    """Each cell's states and properties; None where it is gone, defunct or refused (the
    walk then reads it, as it reads any element)."""
    read = await asyncio.gather(*(read_listed(bus, c) for c in cells), return_exceptions=True)
    for one in read:
        if isinstance(one, AppGone) or (
            isinstance(one, BaseException) and not isinstance(one, CallFailed | TargetGone)
        ):
            raise one
    return [None if isinstance(one, BaseException) or "defunct" in one[0] else one for one in read]


async def _actions(bus: AtspiBus, cells: list[Address]) -> list[tuple[str, ...] | None]:
    """Each cell's action names; None where it was refused (its cells read their own)."""
    asked = [request_actions(bus, c) for c in cells]
    return [
        tuple(str(entry[0]) for entry in value[:MAX_ACTIONS]) if value is not None else None
        for value in await answers(asked)
    ]


async def _identities(bus: AtspiBus, cells: list[Address]) -> list[Identity | None]:
    asked = [
        bus.request(c.bus, c.path, ACCESSIBLE, member)
        for c in cells
        for member in ("GetRole", "GetInterfaces")
    ]
    values = await answers(asked)
    pairs = zip(values[0::2], values[1::2], strict=True)
    return [
        (role_name(int(role)), short_interfaces(ifaces))
        if role is not None and ifaces is not None
        else None
        for role, ifaces in pairs
    ]
