"""Pairing accessibility roots with X11 windows (pure).

AT-SPI knows a window's tree but not its X window id, stacking, activation or
(reliably) its screen position; EWMH knows those but not the tree. This module
joins the two lists by process id, title and geometry (by title and size alone for a
compositor that tells no window's process: gnome-shell), and turns the windows
no accessible application owns (xmessage, xterm, a wedged app's dialog) into
roots of their own, so no window on screen goes unlisted. It must stay free of
any I/O so it can be property-tested.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from actui.backends.base import Accessibility, Rect, RootInfo
from actui.backends.x11.ewmh import XWindow

TITLE_MISMATCH_COST = 1_000_000
"""Added when neither title contains the other: geometry alone can only pair
windows of one process whose titles disagree when nothing better is left."""


def pairing_cost(root: RootInfo, window: XWindow, *, untold_pids: bool = False) -> int | None:
    """How badly ``window`` fits ``root`` (lower is better); None when they cannot pair.

    With ``untold_pids`` (a compositor that names no window's process) a window of pid 0
    pairs with a root whose title it shares."""
    untold = untold_pids and window.pid == 0
    if root.pid <= 0 or (root.pid != window.pid and not untold):
        return None
    cost = title_cost(root.title, window.title)
    if untold and cost >= TITLE_MISMATCH_COST:
        return None
    if root.frame is not None and not root.frame.empty:
        cost += _l1(root.frame, window.frame)
    return cost


def pair_windows(
    roots: Sequence[RootInfo], windows: Sequence[XWindow], *, untold_pids: bool = False
) -> list[RootInfo]:
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
        if (cost := pairing_cost(root, window, untold_pids=untold_pids)) is not None
    )
    chosen: dict[int, XWindow] = {}
    used: set[int] = set()
    for _, r, w in candidates:
        if r in chosen or w in used:
            continue
        chosen[r] = windows[w]
        used.add(w)
    return [_enriched(root, chosen[r]) if r in chosen else root for r, root in enumerate(roots)]


WINDOW_ID_PREFIX = "x11:"
"""``native_id`` of a root that is a bare X window: never an AT-SPI address (no ``/``)."""


def unclaimed_roots(
    paired: Sequence[RootInfo],
    windows: Sequence[XWindow],
    described: frozenset[int],
    silent: frozenset[int],
    overdue: frozenset[int] = frozenset(),
) -> list[RootInfo]:
    """Roots for the windows no paired root took.

    A window of a ``silent`` pid (its application did not answer) is listed as
    not answering. One of a ``described`` pid (an accessible application that
    answered) is its application's to list while it may still be built; only
    once it is ``overdue`` (unpaired for a while, a window the toolkit never
    exposed) is it listed, with no accessibility. Any other window has none.
    """
    taken = {root.window_id for root in paired if root.window_id}
    found = []
    for window in windows:
        if window.window_id in taken:
            continue
        if window.pid > 0 and window.pid in silent:
            found.append(window_root(window, "not_answering"))
        elif window.pid <= 0 or window.pid not in described or window.window_id in overdue:
            found.append(window_root(window, "none"))
    return found


def window_root(window: XWindow, accessibility: Accessibility) -> RootInfo:
    """A root that is only an X window: reached by its pixels and by coordinates."""
    instance, app_class = window.wm_class
    return RootInfo(
        native_id=f"{WINDOW_ID_PREFIX}0x{window.window_id:x}",
        pid=window.pid,
        app_name=instance or app_class or window.title,
        title=window.title,
        kind="dialog" if window.is_modal or window.transient_for else "window",
        raw_role="window",
        frame=window.frame,
        window_id=window.window_id,
        is_focused=window.is_active,
        is_minimized=window.is_minimized,
        is_modal=window.is_modal,
        z_order=window.z_order,
        resource_key=(
            f"desktop-pid:{window.pid}" if window.pid > 0 else f"x11-window:{window.window_id}"
        ),
        accessibility=accessibility,
    )


def is_window_only(root: RootInfo) -> bool:
    """Whether ``root`` is a bare X window, with no accessible tree behind it."""
    return root.native_id.startswith(WINDOW_ID_PREFIX)


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
