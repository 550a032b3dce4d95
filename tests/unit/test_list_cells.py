"""A windowed table's shown cells, the pure part (``viewport.cell_hints``): which tables read
their cells once per column and row, what each cell is told without a call of its own, and a
GTK 3 cell's place counted from its index (``viewport.gtk3_place``)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.address import Address
from actui.backends.atspi.reader import basics_of
from actui.backends.atspi.viewport import Identity, Shown, alike_by_column, cell_hints, gtk3_place

CELL: Identity = ("table cell", frozenset({"Accessible", "Action", "Component"}))
CHECK: Identity = ("table cell", frozenset({"Accessible", "Action", "Component", "Text"}))
NULL = Address("", "")


def _at(n: int) -> Address:
    return Address(":1.9", f"/org/a11y/atspi/accessible/{n}")


def _place(x: int, y: int) -> tuple[int, int, int, int]:
    return (100 * x, 20 * y, 90, 18)


def _grid(row: int, column: int) -> tuple[int, int, int, int]:
    return _place(column, row)


def test_only_a_gtk_3_list_outside_libreoffice_is_alike_by_column() -> None:
    assert alike_by_column("table", "GTK 3.24.38")
    assert not alike_by_column("tree table", "GTK 3.24.38"), "a tree indents its cells"
    assert not alike_by_column("table", "GTK 3.24.38", libreoffice=True)
    assert not alike_by_column("table", "GTK 4.8.3")
    assert not alike_by_column("table", "Qt 5.15.8")


@given(
    rows=st.integers(1, 6),
    width=st.integers(1, 4),
    first_row=st.integers(0, 99_990),
    missing=st.sets(st.integers(0, 23)),
)
def test_every_cell_of_a_list_takes_its_columns_identity_and_actions_and_its_grid_place(
    rows: int, width: int, first_row: int, missing: set[int]
) -> None:
    cells = [NULL if i in missing else _at(1000 + i) for i in range(rows * width)]
    shown = Shown(range(first_row, first_row + rows), range(width), cells, Counter(cells))
    firsts = [c for c in cells[:width] if not c.is_null]
    identities = {c: (CELL if n % 2 else CHECK) for n, c in enumerate(firsts)}
    actions = {c: ("Expand or contract", "Edit", f"Activate {n}") for n, c in enumerate(firsts)}
    listed = {
        c: (frozenset({"showing", "selected" if n % 5 else "focused"}), {"Name": f"Row {n}"})
        for n, c in enumerate(cells)
        if not c.is_null and n % 7
    }
    hints = cell_hints(
        shown, identities, _grid, sheet=False, states={}, actions=actions, listed=listed
    )
    for index, cell in enumerate(cells):
        row, column = divmod(index, width)
        first = cells[column]
        if cell.is_null or first.is_null:
            assert cell not in hints or cell.is_null
            continue
        hint = hints[cell]
        assert (hint.role, hint.interfaces) == identities[first]
        assert hint.actions == actions[first]
        assert hint.extents == _place(column, row)
        assert hint.name is None and hint.states is None, "a list's cells read their own"
        if cell in listed:
            assert hint.basics == basics_of(identities[first], *listed[cell])
            assert hint.basics.name == listed[cell][1]["Name"] and hint.basics.child_count == -1
        else:
            assert hint.basics is None, "the walk reads a cell whose read failed"


def test_without_a_grid_or_actions_a_cell_reads_its_own() -> None:
    cells = [_at(1), _at(2), _at(3), _at(4)]
    shown = Shown(range(2), range(2), cells, Counter(cells))
    hints = cell_hints(
        shown, {_at(1): CELL, _at(2): CELL}, None, sheet=False, states={}, actions={}
    )
    assert all(h.extents is None and h.actions is None for h in hints.values())
    assert set(hints) == set(cells)


def test_a_spreadsheets_cells_are_named_placed_and_given_their_states_not_actions() -> None:
    cells = [_at(1), _at(2), _at(3), _at(4)]
    shown = Shown(range(4, 6), range(1, 3), cells, Counter(cells))
    focused = frozenset({"focused", "showing"})
    hints = cell_hints(
        shown, {_at(1): CELL}, _grid, sheet=True, states={_at(4): focused}, actions={}
    )
    assert [hints[c].name for c in cells] == ["B5", "C5", "B6", "C6"]
    assert hints[_at(4)].extents == _place(1, 1) and hints[_at(4)].states == focused
    assert all((h.role, h.interfaces) == CELL and h.actions is None for h in hints.values())


def test_a_cell_met_at_two_places_is_not_placed_on_the_grid() -> None:
    merged = _at(1)
    cells = [merged, merged, _at(3), _at(4)]
    shown = Shown(range(2), range(2), cells, Counter(cells))
    acts = ("Activate",)
    hints = cell_hints(shown, {merged: CELL}, _grid, sheet=False, states={}, actions={merged: acts})
    assert hints[merged].extents is None and hints[merged].actions == acts
    assert hints[_at(3)].extents == _place(0, 1)


@given(rows=st.integers(1, 200_000), columns=st.integers(1, 12), data=st.data())
def test_a_gtk_3_childs_place_is_counted_from_its_index_as_its_table_answers(
    rows: int, columns: int, data: st.DataObject
) -> None:
    """``Table.GetIndexAt`` of GTK 3's tree view is ``(row + 1) * columns + column`` (its
    headers are the first children); the place counted back is the one asked."""
    row = data.draw(st.integers(0, rows - 1))
    column = data.draw(st.integers(0, columns - 1))
    assert gtk3_place((row + 1) * columns + column, rows, columns) == (row, column)
    assert gtk3_place(data.draw(st.integers(0, columns - 1)), rows, columns) is None, "a header"
    assert gtk3_place((rows + 1) * columns, rows, columns) is None, "past the last row"
