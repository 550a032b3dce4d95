"""Pairing AT-SPI roots with EWMH windows (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import Rect, RootInfo
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.pairing import is_window_only, pair_windows, unclaimed_roots

SQUARE = Rect(0, 0, 100, 100)


def root(title: str, pid: int = 10, frame: Rect | None = None, **kw: object) -> RootInfo:
    return RootInfo(
        native_id=f":1.{title}",
        pid=pid,
        app_name="app",
        title=title,
        kind="window",
        raw_role="frame",
        frame=frame,
        **kw,  # type: ignore[arg-type]
    )


def window(wid: int, title: str, pid: int = 10, frame: Rect = SQUARE, **kw: object) -> XWindow:
    fields: dict[str, object] = dict(
        window_id=wid,
        pid=pid,
        title=title,
        wm_class=("app", "App"),
        frame=frame,
        frame_extents=(0, 0, 0, 0),
        z_order=0,
        is_active=False,
        is_minimized=False,
        is_modal=False,
        transient_for=None,
    )
    fields.update(kw)
    return XWindow(**fields)  # type: ignore[arg-type]


def test_a_root_adopts_the_window_of_its_pid_and_title() -> None:
    frame = Rect(10, 20, 300, 200)
    (paired,) = pair_windows(
        [root("Editor — notes.txt")],
        [
            window(7, "Other", pid=99),
            window(8, "notes.txt", frame=frame, is_active=True, z_order=2),
        ],
    )
    assert (paired.window_id, paired.frame, paired.is_focused, paired.z_order) == (
        8,
        frame,
        True,
        2,
    )


def test_a_root_never_pairs_with_another_process() -> None:
    (unpaired,) = pair_windows([root("Same", pid=1)], [window(5, "Same", pid=2)])
    assert unpaired.window_id is None


def test_geometry_breaks_ties_between_windows_of_one_title() -> None:
    near, far = Rect(400, 300, 200, 100), Rect(0, 0, 200, 100)
    (paired,) = pair_windows(
        [root("Dialog", frame=Rect(401, 299, 200, 100))],
        [window(1, "Dialog", frame=far), window(2, "Dialog", frame=near)],
    )
    assert paired.window_id == 2


def test_an_exact_match_is_not_stolen_by_an_earlier_root() -> None:
    roots = [root("Untitled"), root("Untitled — Preferences")]
    windows = [window(1, "Untitled — Preferences"), window(2, "Untitled")]
    first, second = pair_windows(roots, windows)
    assert (first.window_id, second.window_id) == (2, 1)


def test_minimized_and_modal_flags_and_missing_titles_come_from_the_window() -> None:
    (paired,) = pair_windows([root("")], [window(3, "Save As", is_minimized=True, is_modal=True)])
    assert (paired.title, paired.is_minimized, paired.is_modal) == ("Save As", True, True)


@given(
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", "ab", ""])), max_size=6),
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", "ab", ""])), max_size=6),
)
def test_every_window_pairs_with_at_most_one_root_of_its_pid(
    roots_spec: list[tuple[int, str]], windows_spec: list[tuple[int, str]]
) -> None:
    roots = [root(t, pid=p) for p, t in roots_spec]
    windows = [window(i + 1, t, pid=p) for i, (p, t) in enumerate(windows_spec)]
    paired = pair_windows(roots, windows)
    ids = [r.window_id for r in paired if r.window_id is not None]
    assert len(ids) == len(set(ids))
    by_id = {w.window_id: w for w in windows}
    for before, after in zip(roots, paired, strict=True):
        if after.window_id is None:
            assert after == before
        else:
            assert before.pid > 0 and by_id[after.window_id].pid == before.pid


def test_a_window_no_application_describes_becomes_a_root_with_no_accessibility() -> None:
    paired = pair_windows([root("Editor")], [window(1, "Editor"), window(2, "xmessage", pid=20)])
    (bare,) = unclaimed_roots(
        paired,
        [window(1, "Editor"), window(2, "xmessage", pid=20)],
        described=frozenset({10}),
        silent=frozenset(),
    )
    assert bare.accessibility == "none" and bare.window_id == 2 and bare.pid == 20
    assert bare.title == "xmessage" and bare.app_name == "app" and is_window_only(bare)
    assert bare.resource_key == "desktop-pid:20"
    assert not is_window_only(paired[0])


def test_an_unpaired_window_of_an_answering_application_is_left_to_it() -> None:
    """A window being built, or one its toolkit hides, is not a second root of the app."""
    assert unclaimed_roots([], [window(1, "Editor")], frozenset({10}), frozenset()) == []


def test_a_window_its_answering_application_never_exposed_is_listed_once_overdue() -> None:
    windows = [window(1, "Editor"), window(2, "Hidden from AT-SPI")]
    paired = pair_windows([root("Editor")], windows)
    (bare,) = unclaimed_roots(paired, windows, frozenset({10}), frozenset(), frozenset({2}))
    assert bare.window_id == 2 and bare.accessibility == "none"


def test_a_window_of_a_silent_application_is_listed_as_not_answering() -> None:
    (bare,) = unclaimed_roots(
        [], [window(3, "Create Folder", is_modal=True)], frozenset({10}), frozenset({10})
    )
    assert bare.accessibility == "not_answering" and bare.kind == "dialog"


def test_a_window_without_a_pid_is_listed_under_its_window() -> None:
    (bare,) = unclaimed_roots([], [window(4, "", pid=0)], frozenset({10}), frozenset())
    assert bare.accessibility == "none" and bare.resource_key == "x11-window:4"


@given(st.lists(st.integers(1, 6), max_size=6, unique=True), st.sets(st.integers(1, 3)))
def test_every_window_is_reachable_exactly_once(pids: list[int], described: set[int]) -> None:
    """Each window is either a paired root's or its own root, never both, never neither
    (unless its application answered and keeps it)."""
    windows = [window(i + 1, f"w{i}", pid=pid) for i, pid in enumerate(pids)]
    roots = [root(f"w{i}", pid=pid) for i, pid in enumerate(pids) if pid in described]
    paired = pair_windows(roots, windows)
    bare = unclaimed_roots(paired, windows, frozenset(described), frozenset())
    ids = [r.window_id for r in paired if r.window_id] + [r.window_id for r in bare]
    assert sorted(ids) == [w.window_id for w in windows]
