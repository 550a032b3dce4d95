"""Where a self-decorated window's content sits inside its surface, measured from its tree.

On Wayland a window that draws its own frame (Chromium; GTK 3 with a header
bar) draws a shadow around it, and its AT-SPI extents are local to the whole
surface, shadow included, while the compositor places only the window's
geometry (the part inside the shadow) and never reports the inset between the
two (README.md, "Wayland"). The tree tells it: such a toolkit lays its frame out as
one box exactly as wide as the window (Chromium's frame view, 1018×738 at
(16, 10) of a 1050×780 surface; GTK's header bar, 320 wide at (26, 23) of a
372×299 surface), and the topmost such box that leaves room for the window's
height below it starts where the window does. Where no box fits, the inset is
not known and the caller says its coordinates are approximate.

A menu open in a window is a popup surface the compositor does not list: GTK 3
gives its items in the window's coordinates by its own estimate of where the
popup went, which misses the popup's shadow (mousepad's File menu on sway:
items 6 px right of and 5 px below where they are drawn), so a tree showing an
open menu is placed approximately (:func:`shows_popup`). It reads extents
only; it never moves, focuses or sends input.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.reader import read_children, read_extents
from actui.backends.base import RawNode, Rect
from actui.errors import ActuiError

DEPTH = 3
"""Levels below the root looked at: the frame's box is within the first few."""
BOXES = 48
"""Elements read at most for one measurement (it runs once per window)."""
CALL_TIMEOUT_S = 1.0
MENUS = frozenset({"menu", "popup menu"})
"""AT-SPI roles whose shown children are on a popup surface."""


def inset_of(boxes: Iterable[Rect], surface: Rect, size: tuple[int, int]) -> tuple[int, int] | None:
    """The content's (left, top) in ``surface`` for a window of ``size``: the topmost box
    exactly as wide as the window that fits inside the surface with the window's height
    below its top; None when no box does."""
    width, height = size
    fits = [
        box
        for box in boxes
        if box.w == width
        and 0 <= box.x - surface.x <= surface.w - width
        and 0 <= box.y - surface.y <= surface.h - height
    ]
    if not fits:
        return None
    top = min(fits, key=lambda box: (box.y, box.x))
    return (top.x - surface.x, top.y - surface.y)


async def measure_inset(
    bus: AtspiBus, root: Address, surface: Rect, size: tuple[int, int]
) -> tuple[int, int] | None:
    """:func:`inset_of` over the boxes of the root's first :data:`DEPTH` levels (at most
    :data:`BOXES` elements, breadth first)."""
    return inset_of(await _boxes(bus, root), surface, size)


async def _boxes(bus: AtspiBus, root: Address) -> list[Rect]:
    found: list[Rect] = []
    level, read = [root], 0
    for _ in range(DEPTH):
        below: list[Address] = []
        for at in level:
            with contextlib.suppress(ActuiError):
                below += await read_children(bus, at, timeout_s=CALL_TIMEOUT_S)
        below = below[: BOXES - read]
        for at in below:
            with contextlib.suppress(ActuiError):
                box = await read_extents(bus, at, (0, 0))
                if box is not None:
                    found.append(box)
        read += len(below)
        if read >= BOXES or not below:
            break
        level = below
    return found


def shows_popup(tree: RawNode) -> bool:
    """Whether ``tree`` shows an open menu: a shown child of a menu (its items, on a popup)."""
    pending = [tree]
    while pending:
        node = pending.pop()
        if node.raw_role in MENUS and any("showing" in c.states for c in node.children):
            return True
        pending.extend(node.children)
    return False
