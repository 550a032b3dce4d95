"""The cell objects a spreadsheet gave earlier looks, kept by position so the next asks for none.

LibreOffice 7.4 (GTK 3 plugin) makes a new accessible object for every
``Table.GetAccessibleAt`` and never frees it: asking for the same 17 × 15
shown cells 60 times grew soffice by 103 MB (about 6.8 KB a cell), so every
look at a sheet grew it by 1.5 MB for cells it had already been given. A
spreadsheet's cell object stands for one address (LibreOffice names it after
it), so a backend keeps the objects its looks were given, per table and
position, and a later look asks a kept object for its state (a call it makes
of every shown cell anyway) instead of asking the table for a new one
(``viewport``). This module makes no calls.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

from actui.backends.atspi.address import Address

MAX_TABLES = 16
"""Tables whose cells are kept (the most recently read)."""
MAX_CELLS = 4096
"""Cells kept per table; past it a table keeps only the last look's."""

Position = tuple[int, int]
"""(row, column), 0-based."""


class KeptCells:
    """Cell objects by table and position, as the looks of one backend were given them."""

    def __init__(self) -> None:
        self._tables: OrderedDict[Address, dict[Position, Address]] = OrderedDict()

    def of(self, table: Address) -> Mapping[Position, Address]:
        """The kept cells of ``table`` (none when it was never read)."""
        return self._tables.get(table, {})

    def keep(self, table: Address, cells: Mapping[Position, Address]) -> None:
        """``cells``, just read, replace what was kept at their positions."""
        kept = self._tables.pop(table, {})
        kept.update(cells)
        self._tables[table] = kept if len(kept) <= MAX_CELLS else dict(cells)
        while len(self._tables) > MAX_TABLES:
            self._tables.popitem(last=False)
