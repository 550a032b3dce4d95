"""Typing into a spreadsheet cell goes to an editor of its own, not to the cell.

LibreOffice Calc's cell does not show typed text while it is typed: the first key
opens an editor (a paragraph in a group named after the cell, ``Cell A1``) that
holds the entry, and the cell's own text changes only when the entry is committed
(Return, Tab). Text typed at a cell is therefore judged by what that editor shows,
read at the keyboard focus once the keys have arrived (``backends.arrival``); the
committed value is the cell's, for a check that reads the cell.
"""

from __future__ import annotations

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus, CallFailed
from actui.backends.atspi.reader import ACCESSIBLE
from actui.backends.atspi.tables import role_name
from actui.backends.atspi.viewport import in_spreadsheet

CELL = "table cell"


async def is_sheet_cell(bus: AtspiBus, native_id: str) -> bool:
    """Whether ``native_id`` is a cell of a spreadsheet's sheet (LibreOffice Calc's)."""
    at = Address.parse(native_id)
    try:
        (role,) = await bus.call(at.bus, at.path, ACCESSIBLE, "GetRole")
        if role_name(int(role)) != CELL:
            return False
        sheet = Address.of(await bus.get(at.bus, at.path, ACCESSIBLE, "Parent"))
    except CallFailed:
        return False
    return not sheet.is_null and await in_spreadsheet(bus, sheet)
