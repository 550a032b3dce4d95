"""An ``@r`` ref names one window for the whole session (``runtime/roots.py``): its title
may change, and the tree-less stand-in listed for a window before its app's tree was
readable hands its ref to the root that has the tree."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import RootInfo
from actui.runtime.roots import RootRegistry

ROOT = RootInfo(
    ":1.4/root/2", 77, "viewer", "Document Viewer", "window", "frame", window_id=0x600003
)
STAND_IN = replace(ROOT, native_id="x11:0x600003", accessibility="none", toolkit="")


def test_a_window_keeps_its_ref_when_its_title_changes_and_when_its_tree_arrives() -> None:
    registry = RootRegistry()
    first = registry.ref_for(STAND_IN)
    assert registry.ref_for(ROOT) == first, "the same window, now with its tree"
    assert registry.ref_for(replace(ROOT, title="report.pdf")) == first
    assert registry.get(first).title == "report.pdf"
    other = replace(ROOT, native_id=":1.4/root/3", window_id=0x600010, title="Properties")
    assert registry.ref_for(other) == "@r2"


@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 3), st.booleans()), max_size=20))
def test_refs_of_different_windows_never_meet_and_are_numbered_without_gaps(
    listed: list[tuple[int, int, bool]],
) -> None:
    registry = RootRegistry()
    windows: dict[str, int] = {}
    for window, pid, tree in listed:
        window_id = window * 16 + pid
        root = replace(
            ROOT,
            native_id=f":1.{pid}/root/{window}" if tree else f"x11:{window_id}",
            pid=pid,
            window_id=window_id,
            accessibility="full" if tree else "none",
        )
        ref = registry.ref_for(root)
        windows.setdefault(ref, root.window_id)
        assert windows[ref] == root.window_id, "one ref, one window"
    issued = sorted(int(ref[2:]) for ref in windows)
    assert issued == list(range(1, len(issued) + 1))
