"""Where a window-relative toolkit's root really is on the screen.

GTK 4 answers ``Component.GetExtents(screen)`` with window-relative numbers
(its root reads ``(0, 0, w, h)`` wherever the window is). The only source of
the real position is the X server, so this module pairs an AT-SPI root with
the X client window of the same pid (EWMH ``_NET_CLIENT_LIST``, closest title
and size) and returns the screen origin of the window's content. It reads X
properties only: it never moves, focuses or sends input. Without a display it
answers None and coordinates are left as the toolkit gave them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from actui.backends.base import Rect

X_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class XWindow:
    window_id: int
    pid: int
    title: str
    frame: Rect
    gtk_frame_extents: tuple[int, int, int, int] | None


@dataclass(frozen=True)
class Placement:
    """The paired X window and the offset to add to the root's extents."""

    window_id: int
    offset: tuple[int, int]


def choose_window(windows: list[XWindow], pid: int, title: str, frame: Rect) -> XWindow | None:
    """The window of ``pid`` whose title and size best match the AT-SPI root."""
    best: tuple[int, XWindow] | None = None
    for win in windows:
        if win.pid != pid:
            continue
        titled = bool(title) and bool(win.title) and (title in win.title or win.title in title)
        score = (
            (0 if titled else 1_000_000) + abs(win.frame.w - frame.w) + abs(win.frame.h - frame.h)
        )
        if best is None or score < best[0]:
            best = (score, win)
    return best[1] if best else None


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


class WindowOrigins:
    """A lazily opened, read-only X connection used from one worker thread."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        source = os.environ if env is None else env
        self._display_name = source.get("DISPLAY", "")
        self._display: Any = None
        self._broken = False
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="actui-x11")

    async def placement(self, pid: int, title: str, frame: Rect) -> Placement | None:
        """The X window of an AT-SPI root that reports window-relative extents."""
        if not self._display_name or self._broken or pid <= 0:
            return None
        loop = asyncio.get_running_loop()
        try:
            windows = await asyncio.wait_for(
                loop.run_in_executor(self._pool, self._client_windows), X_TIMEOUT_S
            )
        except Exception:
            # An X failure must not break an AT-SPI observation: keep the
            # toolkit's coordinates and stop asking this display.
            self._broken = True
            return None
        win = choose_window(windows, pid, title, frame)
        if win is None:
            return None
        if frame.x != 0 or frame.y != 0:
            return Placement(win.window_id, (0, 0))
        return Placement(win.window_id, content_offset(win, frame))

    def _client_windows(self) -> list[XWindow]:
        from Xlib import X, display

        if self._display is None:
            self._display = display.Display(self._display_name)
        dpy = self._display
        root = dpy.screen().root
        atom = dpy.intern_atom
        listed = root.get_full_property(atom("_NET_CLIENT_LIST"), X.AnyPropertyType)
        result: list[XWindow] = []
        for wid in listed.value if listed else ():
            win = dpy.create_resource_object("window", int(wid))
            try:
                pid_prop = win.get_full_property(atom("_NET_WM_PID"), X.AnyPropertyType)
                name = win.get_full_property(atom("_NET_WM_NAME"), atom("UTF8_STRING"))
                extents = win.get_full_property(atom("_GTK_FRAME_EXTENTS"), X.AnyPropertyType)
                geometry = win.get_geometry()
                origin = win.translate_coords(root, 0, 0)
            except Exception:  # the window closed while being read
                continue
            title = name.value.decode("utf-8", "replace") if name else ""
            result.append(
                XWindow(
                    window_id=int(wid),
                    pid=int(pid_prop.value[0]) if pid_prop else 0,
                    title=title,
                    frame=Rect(-origin.x, -origin.y, geometry.width, geometry.height),
                    gtk_frame_extents=tuple(int(v) for v in extents.value[:4])  # type: ignore[arg-type]
                    if extents and len(extents.value) >= 4
                    else None,
                )
            )
        return result

    async def close(self) -> None:
        display_ = self._display
        self._display = None
        if display_ is not None:
            await asyncio.get_running_loop().run_in_executor(self._pool, display_.close)
        self._pool.shutdown(wait=False)
