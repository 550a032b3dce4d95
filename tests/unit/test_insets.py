"""Self-decorated windows on a compositor: the shadow inset measured from the tree, once per
window, and coordinates said to be approximate where it cannot be measured."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.insets import inset_of, shows_popup
from actui.backends.atspi.window_origin import Placement, WindowOrigins
from actui.backends.base import RawNode, Rect
from actui.backends.x11.ewmh import XWindow

CHROMIUM_SURFACE = Rect(0, 0, 1050, 780)
CHROMIUM_BOXES = [
    Rect(0, 0, 1050, 780),  # the frame: the whole surface, shadow included
    Rect(1002, 10, 32, 40),  # its close button
    Rect(16, 10, 1018, 738),  # the frame view: the window itself
    Rect(16, 50, 1018, 46),  # the toolbar, as wide but lower
    Rect(16, 96, 1018, 652),  # the page
]
GTK3_HEADER_BAR = [Rect(0, 0, 372, 299), Rect(26, 23, 320, 47), Rect(38, 82, 296, 176)]


def test_the_insets_measured_on_sway_are_found_from_the_boxes() -> None:
    """Chromium 1050×780 around sway's 1018×738; GTK 3 with a header bar, 372×299 around
    320×247 (both read on sway 1.7, and checked against a screen capture)."""
    assert inset_of(CHROMIUM_BOXES, CHROMIUM_SURFACE, (1018, 738)) == (16, 10)
    assert inset_of(GTK3_HEADER_BAR, Rect(0, 0, 372, 299), (320, 247)) == (26, 23)


def test_no_box_as_wide_as_the_window_leaves_the_inset_unknown() -> None:
    assert inset_of(GTK3_HEADER_BAR[2:], Rect(0, 0, 372, 299), (320, 247)) is None
    # as wide, but no room below it for the window's height
    assert inset_of([Rect(26, 200, 320, 47)], Rect(0, 0, 372, 299), (320, 247)) is None


@given(
    st.integers(1, 400),
    st.integers(1, 400),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(0, 40),
    st.lists(st.tuples(st.integers(0, 500), st.integers(0, 500), st.integers(1, 500)), max_size=8),
)
def test_the_window_box_is_found_among_any_narrower_or_wider_boxes(
    width: int,
    height: int,
    left: int,
    top: int,
    right: int,
    bottom: int,
    others: list[tuple[int, int, int]],
) -> None:
    surface = Rect(0, 0, left + width + right, top + height + bottom)
    noise = [Rect(x, y, w, 10) for x, y, w in others if w != width]
    boxes = [*noise, Rect(left, top, width, height), Rect(left, top + height // 2, width, 5)]
    assert inset_of(boxes, surface, (width, height)) == (left, top)


def window(frame: Rect, *, window_id: int = 5) -> XWindow:
    return XWindow(
        window_id=window_id,
        pid=42,
        title="Probe",
        wm_class=("probe", "probe"),
        frame=frame,
        frame_extents=(0, 0, 0, 0),
        z_order=0,
        is_active=True,
        is_minimized=False,
        is_modal=False,
        transient_for=None,
    )


class Listing:
    """A compositor's window list, as sway's tree gives it (pure data)."""

    def __init__(self, *windows: XWindow) -> None:
        self.windows = list(windows)

    async def listing(self, timeout_s: float) -> list[XWindow]:
        return self.windows

    async def close(self) -> None:
        return None


class Measures:
    def __init__(self, answer: tuple[int, int] | None) -> None:
        self.answer = answer
        self.asked: list[tuple[int, int]] = []

    async def __call__(self, size: tuple[int, int]) -> tuple[int, int] | None:
        self.asked.append(size)
        return self.answer


def test_a_self_decorated_surface_is_placed_by_its_measured_inset_once_per_window() -> None:
    origins = WindowOrigins({}, Listing(window(Rect(131, 31, 1018, 738))))
    measure = Measures((16, 10))

    async def twice() -> list[Placement | None]:
        return [
            await origins.placement(42, "Probe", CHROMIUM_SURFACE, measure=measure)
            for _ in range(2)
        ]

    for placed in asyncio.run(twice()):
        assert placed is not None
        assert placed.offset == (131 - 16, 31 - 10) and placed.geometry == "exact"
    assert measure.asked == [(1018, 738)]


def test_an_unmeasurable_inset_or_a_surface_of_another_size_is_approximate() -> None:
    origins = WindowOrigins({}, Listing(window(Rect(131, 31, 1018, 738))))
    unknown = asyncio.run(origins.placement(42, "Probe", CHROMIUM_SURFACE, measure=Measures(None)))
    assert unknown is not None and unknown.geometry == "approximate"
    popup = asyncio.run(origins.placement(42, "", Rect(0, 0, 856, 88), measure=Measures((1, 1))))
    assert popup is not None and popup.geometry == "approximate"
    # Chromium's helper surfaces read at (115, 35) of who knows which surface
    helper = asyncio.run(origins.placement(42, "", Rect(115, 35, 856, 88)))
    assert helper is not None and helper.geometry == "approximate"


def test_a_surface_of_the_window_size_is_exact_without_measuring() -> None:
    origins = WindowOrigins({}, Listing(window(Rect(320, 160, 640, 480))))
    measure = Measures((9, 9))
    placed = asyncio.run(origins.placement(42, "Probe", Rect(0, 0, 640, 480), measure=measure))
    assert placed is not None and placed.offset == (320, 160) and placed.geometry == "exact"
    assert measure.asked == []


def test_a_tree_shows_a_popup_only_while_a_menu_has_a_shown_child() -> None:
    def item(name: str, *states: str) -> RawNode:
        return RawNode(native_id=name, raw_role="menu item", name=name, states=frozenset(states))

    def window_with(*items: RawNode) -> RawNode:
        file_menu = RawNode(native_id="file", raw_role="menu", name="File", children=items)
        bar = RawNode(native_id="bar", raw_role="menu bar", children=(file_menu,))
        return RawNode(native_id="w", raw_role="frame", children=(bar,))

    assert not shows_popup(window_with(item("New"), item("Quit")))
    assert shows_popup(window_with(item("New", "showing"), item("Quit", "showing")))
    # a menu bar's own items are on the window, not on a popup
    bar = RawNode(native_id="bar", raw_role="menu bar", children=(item("File", "showing"),))
    assert not shows_popup(RawNode(native_id="w", raw_role="frame", children=(bar,)))
