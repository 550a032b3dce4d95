"""KeptCells: a later look is given back the cell objects an earlier one kept, within bounds."""

from __future__ import annotations

from actui.backends.atspi.address import Address
from actui.backends.atspi.kept_cells import MAX_CELLS, MAX_TABLES, KeptCells


def _cell(n: int) -> Address:
    return Address(":1.4", f"/org/a11y/atspi/accessible/{n}")


def test_a_later_look_gets_the_cells_kept_at_their_positions() -> None:
    kept, sheet = KeptCells(), _cell(1)
    kept.keep(sheet, {(0, 0): _cell(10), (0, 1): _cell(11)})
    kept.keep(sheet, {(0, 1): _cell(12), (1, 0): _cell(13)})
    assert kept.of(sheet) == {(0, 0): _cell(10), (0, 1): _cell(12), (1, 0): _cell(13)}
    assert kept.of(_cell(2)) == {}


def test_a_table_past_its_bound_keeps_only_the_last_look() -> None:
    kept, sheet = KeptCells(), _cell(1)
    kept.keep(sheet, {(r, 0): _cell(100 + r) for r in range(MAX_CELLS)})
    kept.keep(sheet, {(MAX_CELLS, 0): _cell(7)})
    assert kept.of(sheet) == {(MAX_CELLS, 0): _cell(7)}


def test_only_the_most_recently_read_tables_are_kept() -> None:
    kept = KeptCells()
    for n in range(MAX_TABLES + 1):
        kept.keep(_cell(n), {(0, 0): _cell(1000 + n)})
    assert kept.of(_cell(0)) == {}
    assert kept.of(_cell(MAX_TABLES)) == {(0, 0): _cell(1000 + MAX_TABLES)}
