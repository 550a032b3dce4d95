"""Where a window-relative toolkit's root really is on the screen.

GTK 4 answers ``Component.GetExtents(screen)`` with window-relative numbers
(its root reads ``(0, 0, w, h)`` wherever the window is). The only source of
the real position is the X server, so this module pairs an AT-SPI root with
the X client window of the same pid (closest title and size) and returns the
screen origin of the window's content. On Wayland every toolkit answers so,
and the windows are the compositor's (a :class:`WindowSource` given to it). The windows come from a
:class:`~actui.backends.x11.window_watch.WatchedWindows` (an X connection of
its own, kept current by events), so asking costs one round trip. It never
moves, focuses or sends input. Without a display it answers None and
coordinates are left as the toolkit gave them. On a compositor, a surface
larger than its window is a self-decorated one: its shadow inset is measured
once per window (``insets``); where it cannot be, or a surface matches no
window in size (a popup the compositor does not list), the placement is
approximate. X11 placements are as they always were (``_GTK_FRAME_EXTENTS``, or
the border measured symmetric).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from actui.backends.base import Geometry, Rect
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.pairing import TITLE_MISMATCH_COST, title_cost
from actui.backends.x11.window_watch import WatchedWindows
from actui.errors import ActuiError

X_TIMEOUT_S = 2.0
INSETS_KEPT = 256
"""Measured insets remembered (the oldest are forgotten first, and measured again if asked)."""


@dataclass(frozen=True)
class Placement:
    """The paired X window, the offset to add to the root's extents, and whether that
    puts them exactly where they are on the screen."""

    window_id: int
    offset: tuple[int, int]
    geometry: Geometry = "exact"


Measure = Callable[[tuple[int, int]], Awaitable[tuple[int, int] | None]]
"""Measures a self-decorated surface's inset for a window of the given size (``insets``)."""


def choose_window(
    windows: list[XWindow], pid: int, title: str, frame: Rect, *, untold_pids: bool = False
) -> XWindow | None:
    """The window of ``pid`` whose title, then size, best match the AT-SPI root (with
    ``untold_pids``, a window of pid 0, gnome-shell's, too, by a title they share).

    Unlike pairing, the position cannot count: the root's is window-relative.
    """
    fits = [
        (cost + abs(w.frame.w - frame.w) + abs(w.frame.h - frame.h), i, w)
        for i, w in enumerate(windows)
        if (cost := title_cost(title, w.title)) < TITLE_MISMATCH_COST or w.pid == pid
        if w.pid == pid or (untold_pids and w.pid == 0)
    ]
    return min(fits)[2] if fits else None


def content_offset(win: XWindow, frame: Rect) -> tuple[int, int]:
    """The screen position of the root's (0, 0) inside ``win``.

    GTK draws a client-side border or shadow around the content:
    ``_GTK_FRAME_EXTENTS`` gives it when set; otherwise the measured border is
    symmetric (gnome-calculator under Xvfb: 5 px each side), so half the size
    difference is used.
    """
    if win.gtk_frame_extents is not None:
        left, _right, top, _bottom = win.gtk_frame_extents
        return (win.frame.x + left, win.frame.y + top)
    return (
        win.frame.x + max(0, win.frame.w - frame.w) // 2,
        win.frame.y + max(0, win.frame.h - frame.h) // 2,
    )


class WindowSource(Protocol):
    """A window listing kept by someone else (sway's tree on Wayland)."""

    async def listing(self, timeout_s: float) -> list[XWindow]: ...

    async def close(self) -> None: ...


class WindowOrigins:
    """The X windows, read on a connection of its own and kept current by events; or the
    windows of ``windows`` when given (a Wayland compositor's)."""

    def __init__(
        self, env: Mapping[str, str] | None = None, windows: WindowSource | None = None
    ) -> None:
        source = os.environ if env is None else env
        display = source.get("DISPLAY", "")
        self._windows: WindowSource | None = windows
        if windows is None and display:
            self._windows = WatchedWindows(display)
        self._surface_local = windows is not None
        """A compositor's windows: there every toolkit's extents are surface-local."""
        self._broken = False
        self._insets: dict[tuple[int, int, int], tuple[int, int] | None] = {}
        """Measured shadow insets by (window, surface width, height): once per window."""

    async def placement(
        self,
        pid: int,
        title: str,
        frame: Rect,
        *,
        relative: bool = True,
        measure: Measure | None = None,
    ) -> Placement | None:
        """The X window of an AT-SPI root at (0, 0), and the offset to add to its extents:
        none unless its toolkit reports window-relative ones (``relative``), as every
        toolkit does under a compositor's window source (Wayland), where ``measure``
        finds a self-decorated surface's shadow inset."""
        if self._windows is None or self._broken or pid <= 0:
            return None
        try:
            windows = await self._windows.listing(X_TIMEOUT_S)
        except ActuiError:
            # An X failure must not break an AT-SPI observation: keep the
            # toolkit's coordinates and stop asking this display.
            self._broken = True
            return None
        win = choose_window(windows, pid, title, frame, untold_pids=self._surface_local)
        if win is None:
            return None
        if frame.x != 0 or frame.y != 0 or not (relative or self._surface_local):
            # a compositor's surface-local root reads (0, 0); one elsewhere is a popup or
            # helper surface whose position the compositor does not say
            return Placement(
                win.window_id, (0, 0), "approximate" if self._surface_local else "exact"
            )
        offset = content_offset(win, frame)
        if not self._surface_local or (win.frame.w, win.frame.h) == (frame.w, frame.h):
            return Placement(win.window_id, offset)
        guess = Placement(win.window_id, offset, "approximate")
        if frame.w < win.frame.w or frame.h < win.frame.h or measure is None:
            return guess  # not this window's surface: a popup, or a hidden helper window
        key = (win.window_id, frame.w, frame.h)
        if key not in self._insets:
            self._insets[key] = await measure((win.frame.w, win.frame.h))
            while len(self._insets) > INSETS_KEPT:
                del self._insets[next(iter(self._insets))]
        inset = self._insets[key]
        if inset is None:
            return guess
        return Placement(win.window_id, (win.frame.x - inset[0], win.frame.y - inset[1]))

    async def close(self) -> None:
        if self._windows is not None:
            await self._windows.close()
