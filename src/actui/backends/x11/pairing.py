"""Pairing accessibility roots with X11 windows (pure).

AT-SPI knows a window's tree but not its X window id, stacking, activation or
(reliably) its screen position; EWMH knows those but not the tree. This module
joins the two lists by process id, title and geometry, and must stay free of
any I/O so it can be property-tested.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from actui.backends.base import Rect, RootInfo
from actui.backends.x11.ewmh import XWindow

TITLE_MISMATCH_COST = 1_000_000
"""Added when neither title contains the other: geometry alone can only pair
windows of one process whose titles disagree when nothing better is left."""


def pairing_cost(root: RootInfo, window: XWindow) -> int | None:
    """How badly ``window`` fits ``root`` (lower is better); None when they cannot pair."""
    if root.pid <= 0 or root.pid != window.pid:
        return None
    cost = title_cost(root.title, window.title)
    if root.frame is not None and not root.frame.empty:
        cost += _l1(root.frame, window.frame)
    return cost


def pair_windows(roots: Sequence[RootInfo], windows: Sequence[XWindow]) -> list[RootInfo]:
    """The roots, each enriched with the X window that fits it best (at most one each).

    Pairs are taken cheapest first across all roots, so a root listed early
    cannot take the window that another root matches exactly. A paired root
    adopts the window's id, frame, activation, minimized state, stacking and,
    when it has none, the title; it becomes modal if either side says so.
    """
    candidates = sorted(
        (cost, r, w)
        for r, root in enumerate(roots)
        for w, window in enumerate(windows)
        if (cost := pairing_cost(root, window)) is not None
    )
    chosen: dict[int, XWindow] = {}
    used: set[int] = set()
    for _, r, w in candidates:
        if r in chosen or w in used:
            continue
        chosen[r] = windows[w]
        used.add(w)
    return [_enriched(root, chosen[r]) if r in chosen else root for r, root in enumerate(roots)]


def _enriched(root: RootInfo, window: XWindow) -> RootInfo:
    return dataclasses.replace(
        root,
        window_id=window.window_id,
        frame=window.frame,
        is_focused=window.is_active,
        is_minimized=window.is_minimized,
        is_modal=root.is_modal or window.is_modal,
        z_order=window.z_order,
        title=root.title or window.title,
    )


def title_cost(a: str, b: str) -> int:
    """0 for equal titles, 1 when one contains the other (so equality wins ties)."""
    left, right = a.strip().casefold(), b.strip().casefold()
    if left and left == right:
        return 0
    if left and right and (left in right or right in left):
        return 1
    return TITLE_MISMATCH_COST


def _l1(a: Rect, b: Rect) -> int:
    return abs(a.x - b.x) + abs(a.y - b.y) + abs(a.w - b.w) + abs(a.h - b.h)
