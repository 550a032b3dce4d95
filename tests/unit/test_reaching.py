"""Which unread rows a search reads, in what order, and what it says it left out."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import Window
from actui.outline.model import Node
from actui.runtime.reaching import END_ROWS, Coverage, Unopened, gaps, merged, scan_order

spans = st.lists(st.tuples(st.integers(0, 2000), st.integers(0, 200)), max_size=12)


def _covered(intervals: tuple[tuple[int, int], ...]) -> set[int]:
    return {row for low, high in intervals for row in range(low, high + 1)}


@given(spans)
def test_merged_intervals_cover_exactly_what_was_added_sorted_and_apart(
    added: list[tuple[int, int]],
) -> None:
    intervals: tuple[tuple[int, int], ...] = ()
    for start, length in added:
        intervals = merged(intervals, (start, start + length))
    assert _covered(intervals) == {r for s, n in added for r in range(s, s + n + 1)}
    assert all(a[1] + 1 < b[0] for a, b in itertools.pairwise(intervals))


@given(spans, st.integers(0, 2500), st.integers(0, 2500))
def test_gaps_are_the_rows_no_interval_covers(
    added: list[tuple[int, int]], low: int, high: int
) -> None:
    intervals: tuple[tuple[int, int], ...] = ()
    for start, length in added:
        intervals = merged(intervals, (start, start + length))
    assert _covered(tuple(gaps(intervals, low, high))) == set(range(low, high + 1)) - _covered(
        intervals
    )


def test_the_end_is_read_first_then_below_the_shown_rows_then_above_each_row_once() -> None:
    window = Window(3 * 5000, 5000, 3, 1000, 1023, 0, 2)
    shown = ((1000, 1023),)
    chunks = list(scan_order(5000, window, shown))
    assert chunks[0] == range(5000 - END_ROWS, 5000)
    rows = [r for chunk in chunks for r in chunk]
    assert len(rows) == len(set(rows)) == 5000 - 24
    assert rows.index(1024) < rows.index(999), "below the shown rows before above them"
    assert not list(scan_order(5000, window, ((0, 4999),)))


def test_a_spreadsheet_is_searched_down_from_its_shown_rows_not_from_its_end() -> None:
    sheet = Window(-1, 1_048_576, 16_384, 0, 32, 0, 14, cells=True)
    first = next(scan_order(1_048_576, sheet, ((0, 32),), chunk_rows=34))
    assert first == range(33, 67)


def test_a_search_says_which_rows_and_columns_it_left_and_how_to_go_on() -> None:
    sheet = Node(ref="@e3", wire=":1.2/t", role="table", raw_role="table")
    note = Coverage(sheet, 1000, ((0, 9),), columns=range(0, 15), width=16_384).note("s9")
    assert "searched 10 of 1,000 rows; rows 11–1,000 not searched" in note
    assert "search_ui again on stateId s9 continues" in note
    assert "Only columns 1–15 of 16,384 were searched." in note
    done = Coverage(sheet, 10, ((0, 9),), columns=range(0, 3), width=3).note("s9")
    assert done == "@e3 table: all 10 rows searched."


def test_hidden_parts_a_search_had_no_time_for_are_named_with_how_to_reach_them() -> None:
    left = tuple(
        Node(ref=f"@e{i}", wire=f"/w/{i}", role="group", raw_role="panel", unread=3) for i in (8, 9)
    )
    assert Unopened(3, ()).note("s4") == "read 3 part(s) that were not shown."
    note = Unopened(1, left).note("s4")
    assert "2 not read (@e8, @e9)" in note and "stateId s4" in note and "expand_ui" in note
    assert Unopened(1, left).json() == {
        "hiddenRead": 1,
        "hiddenNotRead": ["@e8", "@e9"],
        "stoppedAtMatch": False,
    }


def test_hidden_parts_left_after_an_exact_match_are_not_said_to_be_read_by_searching_again() -> (
    None
):
    """Searching again meets the match at once and reads nothing more: only expand_ui
    looks inside what is left."""
    left = (Node(ref="@e8", wire="/w/8", role="menu", raw_role="menu", unread=12),)
    note = Unopened(0, left, matched=True).note("s4")
    assert note == (
        "met an exact match; 1 part(s) not shown were not searched (@e8): expand_ui one of "
        "them to look inside."
    )
    assert "search_ui again" not in Unopened(2, left, matched=True).note("s4")
    assert (
        Unopened(2, left, matched=True)
        .note("s4")
        .startswith("read 2 part(s) that were not shown, then met an exact match")
    )
