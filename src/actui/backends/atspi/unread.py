"""Reading on demand what a snapshot left unread: the cells of a windowed container's rows.

A search for text in rows nobody has read asks the table for them directly
(``Table.GetAccessibleAt`` per cell, its ``Name``: two calls a cell, sent all
at once for a chunk of rows), keeps only the cells whose text the caller
accepts, and reads those in full (fields and capabilities, as a walk would)
so they can be acted on. Nothing here scrolls or moves focus: the app's view
is left as it was. GTK 3 answers about 2,600 rows a second this way (one
column) and keeps each cell it was asked for (about 0.8 KB), which is why a
caller bounds the rows it asks for. LibreOffice makes a new cell object for every
ask (about 6.8 KB, never freed), so a spreadsheet's cells this backend was given
already are asked their state instead (``kept_cells``).
"""

from __future__ import annotations

import asyncio

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus, CallFailed
from actui.backends.atspi.kept_cells import KeptCells
from actui.backends.atspi.reader import ACCESSIBLE, read_basics, read_details
from actui.backends.atspi.snapshot import element_node
from actui.backends.atspi.viewport import answers, cells_at
from actui.backends.base import RawNode, RowQuery

CHUNK_CELLS = 1024
"""Cells asked for at once: enough to keep the bus's calls in flight."""


async def accepted_cells(
    bus: AtspiBus, query: RowQuery, table: bool, kept: KeptCells | None = None
) -> list[Address]:
    """The cells of the query's rows × columns whose name it accepts (a list's rows are its
    children), at most its limit. A spreadsheet's cells come from ``kept`` where a
    look or search was given them already, and are kept there (``kept_cells``)."""
    await bus.a11y()
    at = Address.parse(query.container)
    cells = [(r, c) for r in query.rows for c in (query.columns if table else range(1))]
    found: list[Address] = []
    for start in range(0, len(cells), CHUNK_CELLS):
        chunk = cells[start : start + CHUNK_CELLS]
        if table:
            refs = [ref for ref in (await cells_at(bus, at, chunk, kept))[0] if not ref.is_null]
        else:
            refs = await _children(bus, at, [r for r, _ in chunk])
        named = [
            bus.request(ref.bus, ref.path, "org.freedesktop.DBus.Properties", "Get", "ss",
                        (ACCESSIBLE, "Name"))
            for ref in refs
        ]  # fmt: skip
        for ref, name in zip(refs, await answers(named), strict=True):
            text = getattr(name, "value", name)
            if isinstance(text, str) and query.accepts(text):
                found.append(ref)
                if len(found) >= query.limit:
                    return found
    return found


async def _children(bus: AtspiBus, at: Address, indexes: list[int]) -> list[Address]:
    """A list's rows at ``indexes`` (those it has)."""
    asked = [
        bus.request(at.bus, at.path, ACCESSIBLE, "GetChildAtIndex", "i", (i,)) for i in indexes
    ]
    refs = [Address.of(a) for a in await answers(asked) if a is not None]
    return [ref for ref in refs if not ref.is_null]


async def read_cells(
    bus: AtspiBus,
    cells: list[Address],
    origin: tuple[int, int],
    toolkit: str,
    *,
    parent_selects: bool,
) -> list[RawNode]:
    """Each cell in full, as a walk of its table would read it (cells that vanished are left
    out)."""

    async def one(at: Address) -> RawNode | None:
        try:
            basics = await read_basics(bus, at)
            shown = "showing" in basics.states
            details = await read_details(bus, at, basics, origin, want_rect=shown)
        except CallFailed:
            return None
        return element_node(
            at, basics, details, toolkit, parent_selects=parent_selects, in_scroll_area=True
        )

    read = await asyncio.gather(*(one(at) for at in cells))
    return [node for node in read if node is not None]
