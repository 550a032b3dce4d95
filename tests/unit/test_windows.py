"""A container read as a window onto its data: its line form, spreadsheet addresses, and
cells read on demand joining a successor outline."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from strategies import outlines, raw

from actui.backends.base import Window, cell_address, cell_name
from actui.outline.model import Outline, grafted, opened
from actui.outline.windows import column_letters, window_json, window_text


@given(st.integers(0, 16_383), st.integers(0, 1_048_575))
def test_a_cell_name_reads_back_as_its_row_and_column(column: int, row: int) -> None:
    assert cell_address(f"{column_letters(column)}{row + 1}") == (row, column)


@given(st.integers(0, 16_383), st.integers(0, 1_048_575))
def test_a_cells_address_names_it_as_libreoffice_does(column: int, row: int) -> None:
    assert cell_address(cell_name(row, column)) == (row, column)


def test_cells_are_named_after_their_address() -> None:
    assert [cell_name(0, 0), cell_name(2, 1), cell_name(1_048_575, 16_383)] == [
        "A1", "B3", "XFD1048576",
    ]  # fmt: skip


def test_columns_are_named_as_spreadsheets_name_them() -> None:
    assert [column_letters(c) for c in (0, 25, 26, 701, 702, 16_383)] == [
        "A", "Z", "AA", "ZZ", "AAA", "XFD",
    ]  # fmt: skip


def test_names_that_are_not_cell_addresses_are_not_read_as_cells() -> None:
    assert [cell_address(n) for n in ("Row 5", "A0", "a1", "ABCD1", "")] == [None] * 5


def test_a_sheet_says_its_size_and_the_cells_it_shows() -> None:
    sheet = Window(2**31 - 1, 1_048_576, 16_384, 0, 32, 0, 14, cells=True)
    assert window_text(sheet) == "1,048,576 rows × 16,384 columns; showing A1:O33"
    assert window_json(sheet)["shown"]["range"] == "A1:O33"


def test_a_sheet_read_in_part_says_what_it_shows_and_what_was_read() -> None:
    sheet = Window(2**31 - 1, 1_048_576, 16_384, 0, 16, 0, 14, cells=True, screen_last_row=32)
    assert window_text(sheet) == (
        "1,048,576 rows × 16,384 columns; showing A1:O33; read A1:O17 (search_ui reads the rest)"
    )
    shown = window_json(sheet)["shown"]
    assert (shown["range"], shown["lastRow"]) == ("A1:O33", 33)
    assert shown["read"] == {"lastRow": 17, "range": "A1:O17"}
    assert "read" not in window_json(Window(2**31 - 1, 9, 9, 0, 8, 0, 8, cells=True))["shown"]


def test_a_table_says_which_rows_it_shows_and_columns_only_when_some_are_not() -> None:
    every = Window(300_003, 100_000, 3, 99_976, 99_999, 0, 2)
    assert window_text(every) == "100,000 rows × 3 columns; showing rows 99,977–100,000"
    some = Window(-1, 500, 40, 0, 9, 3, 7)
    assert window_text(some) == "500 rows × 40 columns; showing rows 1–10, columns 4–8"


def test_a_list_counts_items_and_one_showing_nothing_says_so() -> None:
    assert window_text(Window(5000, first_row=10, last_row=40)) == "5,000 items; showing 11–41"
    hidden = Window(-1, 1_048_576, 16_384)
    assert window_text(hidden) == "1,048,576 rows × 16,384 columns; none shown"
    assert window_json(hidden)["shown"] is None


@given(outlines(), st.integers(1, 5), st.data())
def test_cells_read_on_demand_join_a_successor_and_every_old_ref_keeps_its_node(
    base: Outline, count: int, data: st.DataObject
) -> None:
    holder = data.draw(st.sampled_from(sorted(base.nodes)))
    found = tuple(raw("table cell", f"Row {i}") for i in range(count))
    again = found[0]  # read twice: joins once
    grown = grafted(base, holder, (*found, again), None, 1.0)
    assert {ref: grown.nodes[ref] for ref in base.nodes if ref != holder} == {
        ref: node for ref, node in base.nodes.items() if ref != holder
    }
    added = grown.nodes[holder].children[len(base.nodes[holder].children) :]
    assert [grown.nodes[r].name for r in added] == [f"Row {i}" for i in range(count)]
    assert all(grown.nodes[r].parent == holder for r in added)
    assert len(grown) == len(base) + count and grown.descendant_count(grown.root_node) == count + (
        len(base) - 1
    )
    assert grafted(grown, holder, found, None, 1.0) is grown, "nothing new: the same outline"


@given(outlines(), st.integers(1, 5), st.data())
def test_a_hidden_subtree_read_on_demand_joins_a_successor_no_longer_unread(
    base: Outline, count: int, data: st.DataObject
) -> None:
    holder = data.draw(st.sampled_from(sorted(base.nodes)))
    hidden = Outline(base.root, {**base.nodes, holder: replace(base.nodes[holder], unread=count)})
    below = raw("panel", "Page", *(raw("push button", f"B{i}") for i in range(count)))
    grown = opened(hidden, holder, below, None, 1.0)
    assert hidden.nodes[holder].unread == count, "the base outline is left as it was"
    assert grown.nodes[holder].unread == 0 and len(grown) == len(base) + count
    added = grown.nodes[holder].children[len(base.nodes[holder].children) :]
    assert [grown.nodes[r].name for r in added] == [f"B{i}" for i in range(count)]
