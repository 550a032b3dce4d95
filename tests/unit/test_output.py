"""Bounded output: long results become a preview plus an @o ref that pages back exactly."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actui.errors import SchedulerClosed, UnknownRef
from actui.results.bounds import (
    PAGE_BYTES,
    PREVIEW_BYTES,
    VISIBLE_BYTES,
    VISIBLE_LINES,
    OutputStore,
)

CALL = re.compile(r'read_text\(\{"ref": "(@o\d+)", "offset": (\d+)\}\)')


@pytest.fixture
def store() -> Iterator[OutputStore]:
    output = OutputStore()
    yield output
    output.close()


def continuation(bounded: str) -> tuple[str, str, int]:
    """The preview, the @o ref and the offset the trailer tells the agent to read from."""
    match = CALL.search(bounded)
    assert match is not None, bounded[-400:]
    preview, _, _ = bounded.rpartition("\n\n[")
    return preview, match.group(1), int(match.group(2))


def read_all(store: OutputStore, ref: str, offset: int) -> str:
    parts = []
    while True:
        page = store.read(ref, offset)
        assert page.offset == offset
        assert page.limit <= PAGE_BYTES
        parts.append(page.text)
        offset = page.offset + page.limit
        if not page.has_more:
            return "".join(parts)


def fits(text: str) -> bool:
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    return len(text.encode()) <= VISIBLE_BYTES and lines <= VISIBLE_LINES


def test_text_within_limits_is_returned_unchanged(store: OutputStore) -> None:
    text = "line\n" * 1999 + "last"
    assert store.bound(text, tool="observe_ui") == text


def test_30000_four_byte_emoji_are_bounded_with_an_o_ref_and_offset(store: OutputStore) -> None:
    text = "😀" * 30_000
    bounded = store.bound(text, tool="observe_ui")
    assert len(bounded.encode()) <= VISIBLE_BYTES
    preview, ref, offset = continuation(bounded)
    assert ref == "@o1"
    assert len(preview.encode()) == offset <= PREVIEW_BYTES
    assert text.startswith(preview)
    assert preview + read_all(store, ref, offset) == text


def test_pages_are_immutable_and_offset_plus_one_realigns_to_a_character(
    store: OutputStore,
) -> None:
    text = "😀" * 30_000
    _, ref, _ = continuation(store.bound(text, tool="observe_ui"))
    first = store.read(ref, 0)
    assert store.read(ref, 0) == first
    shifted = store.read(ref, 1)
    assert shifted.offset == 4
    assert shifted.text.startswith("😀")
    assert shifted.limit % 4 == 0
    assert first.total_bytes == 120_000 and first.complete


def test_offsets_beyond_the_end_are_clamped(store: OutputStore) -> None:
    _, ref, _ = continuation(store.bound("x" * 60_000, tool="observe_ui"))
    end = store.read(ref, 10**9)
    assert (end.text, end.offset, end.limit, end.has_more) == ("", 60_000, 0, False)
    assert store.read(ref, -5).offset == 0


def test_3000_lines_are_cut_below_2000(store: OutputStore) -> None:
    text = "\n".join(f"{n}" for n in range(3000))
    bounded = store.bound(text, tool="search_ui")
    assert bounded.count("\n") + 1 <= 2000
    preview, ref, offset = continuation(bounded)
    assert preview.count("\n") + 1 <= 1996
    assert preview + read_all(store, ref, offset) == text
    assert "more selective predicate" in bounded


def test_a_100_kb_error_is_bounded(store: OutputStore) -> None:
    message = "failure detail " * 7000
    bounded = store.bound_error(message)
    assert len(bounded.encode()) <= VISIBLE_BYTES
    assert "error truncated" in bounded
    preview, ref, offset = continuation(bounded)
    assert preview + read_all(store, ref, offset) == message


def test_refine_hint_follows_the_tool(store: OutputStore) -> None:
    big = "y" * 50_000
    assert "more selective filters" in store.bound(big, tool="find_roots")
    assert "aggregate, or a slice" in store.bound(big, tool="evaluate_browser")
    assert "expand_ui on a more specific ref" in store.bound(big, tool="expand_ui")
    assert "narrower" in store.bound(big, tool="act_ui")


def test_refs_count_up_and_stay_readable(store: OutputStore) -> None:
    refs = [continuation(store.bound(str(n) * 50_000, tool="x"))[1] for n in range(3)]
    assert refs == ["@o1", "@o2", "@o3"]
    assert store.read("@o1", 0).text.startswith("0")


def test_files_are_private_and_removed_by_close() -> None:
    store = OutputStore()
    _, ref, _ = continuation(store.bound("z" * 50_000, tool="x"))
    directory = store._dir
    assert directory is not None
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    (name,) = os.listdir(directory)
    assert stat.S_IMODE(os.stat(os.path.join(directory, name)).st_mode) == 0o600
    store.close()
    assert not os.path.exists(directory)
    with pytest.raises(UnknownRef, match="shutdown"):
        store.read(ref, 0)
    with pytest.raises(SchedulerClosed):
        store.bound("z" * 50_000, tool="x")
    assert store.bound("small", tool="x") == "small"


def test_no_directory_is_created_until_something_is_stored() -> None:
    store = OutputStore()
    store.bound("small", tool="x")
    assert store._dir is None
    store.close()


def test_oldest_entries_are_evicted_beyond_the_store_budget() -> None:
    store = OutputStore(store_limit=120_000)
    try:
        first = continuation(store.bound("a" * 60_000, tool="x"))[1]
        second = continuation(store.bound("b" * 60_000, tool="x"))[1]
        third = continuation(store.bound("c" * 60_000, tool="x"))[1]
        with pytest.raises(UnknownRef) as caught:
            store.read(first, 0)
        assert caught.value.code == "stale_ref"
        assert "evicted" in caught.value.message
        assert store.read(second, 0).text.startswith("b")
        assert store.read(third, 0).text.startswith("c")
        huge = continuation(store.bound("d" * 200_000, tool="x"))[1]
        assert store.read(huge, 0).total_bytes == 200_000  # the newest entry always stays
    finally:
        store.close()


def test_an_entry_over_the_entry_limit_keeps_its_prefix_and_says_so() -> None:
    store = OutputStore(entry_limit=100_001)
    try:
        bounded = store.bound("é" * 60_000, tool="x")
        assert "Only the first 100000 bytes were stored." in bounded
        _, ref, offset = continuation(bounded)
        page = store.read(ref, offset)
        assert not page.complete
        assert page.total_bytes == 100_000
        assert read_all(store, ref, 0) == "é" * 50_000
    finally:
        store.close()


def test_unknown_ref_error_names_the_ref_and_what_to_do(store: OutputStore) -> None:
    with pytest.raises(UnknownRef) as caught:
        store.read("@o99", 0)
    assert "@o99" in caught.value.message
    assert "Re-run the call" in caught.value.message


@settings(max_examples=50, deadline=None)
@given(
    st.one_of(
        st.text(min_size=1, max_size=300),
        st.text(alphabet=st.sampled_from("a\né😀\r"), min_size=1, max_size=30),
    )
)
def test_following_offsets_reconstructs_any_text(sample: str) -> None:
    repeat = VISIBLE_BYTES // len(sample.encode()) + 2
    text = sample * repeat
    store = OutputStore()
    try:
        bounded = store.bound(text, tool="x")
        assert fits(bounded)
        preview, ref, offset = continuation(bounded)
        assert preview + read_all(store, ref, offset) == text
        assert read_all(store, ref, 0) == text
    finally:
        store.close()
