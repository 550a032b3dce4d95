"""The async face of one X11 display: windows, activation, capture, pointer.

One :class:`X11Session` holds one persistent connection (and so one worker
thread) for its display, plus one for the window watch, whose events nobody
else may take, and an idle one that tells when the display is gone
(:mod:`~actui.backends.x11.lifeline`); the Linux backend asks it for the EWMH window list,
activates windows and captures them. It must not pair windows with
accessibility roots (:mod:`~actui.backends.x11.pairing`) or send input
(:mod:`~actui.backends.x11.input`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from actui.backends.base import Rect
from actui.backends.x11 import ewmh
from actui.backends.x11.capture import Compositor, RawCapture
from actui.backends.x11.connection import XConnection
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.image import downscale, encode_png, scaled_size, zpixmap_to_rgb
from actui.backends.x11.lifeline import DisplayLifeline
from actui.backends.x11.window_watch import WatchedWindows

ACTIVATION_POLLS = 20
ACTIVATION_POLL_S = 0.01


@dataclass(frozen=True)
class Capture:
    """A window's client area as a PNG.

    ``scale`` is image pixels per screen pixel (≤ 1); ``frame`` is where the
    client area was on screen when captured, so image points map to screen
    points as ``frame.x + x / scale``.
    """

    png: bytes
    width: int
    height: int
    source: str
    warnings: tuple[str, ...]
    scale: float
    frame: Rect


class X11Session:
    """One display's windows, activation and pixels over one persistent connection."""

    def __init__(self, display: str) -> None:
        self.connection = XConnection(display)
        self._compositor = Compositor()
        self._windows = WatchedWindows(display)
        self.lifeline = DisplayLifeline(display)

    async def start(self) -> None:
        """Connect and redirect windows for capture now, so later captures need not wait."""
        await self.lifeline.start()
        await self.connection.call(self._compositor.redirect, self.connection)

    async def windows(self) -> list[XWindow]:
        """Managed top-level windows, topmost first (``z_order`` 0)."""
        return await self._windows.listing()

    async def active_window(self) -> int | None:
        return await self.connection.call(ewmh.active_window, self.connection)

    async def activate(self, window_id: int, *, timeout_s: float = 0.2) -> bool:
        """Ask the WM to activate the window and confirm it by polling ``_NET_ACTIVE_WINDOW``.

        Polls :data:`ACTIVATION_POLLS` times, :data:`ACTIVATION_POLL_S` apart
        (or spread over ``timeout_s``); returns whether the window became active.
        """
        if await self.active_window() == window_id:
            return True
        await self.connection.call(ewmh.request_activation, self.connection, window_id)
        interval = max(ACTIVATION_POLL_S, timeout_s / ACTIVATION_POLLS)
        for _ in range(ACTIVATION_POLLS):
            await asyncio.sleep(interval)
            if await self.active_window() == window_id:
                return True
        return False

    async def capture(self, window_id: int, *, max_dimension: int) -> Capture:
        """The window's client area, shrunk so its longer side is at most ``max_dimension``.

        Raises :class:`~actui.errors.CaptureFailed` for empty,
        huge, minimized or odd-depth windows and
        :class:`~actui.errors.TargetGone` when the window no longer exists.
        """
        raw = await self.connection.call(self._compositor.grab, self.connection, window_id)
        return await asyncio.to_thread(_encode, raw, max(1, max_dimension))

    async def pointer_position(self) -> tuple[int, int]:
        return await self.connection.call(_pointer, self.connection)

    async def close(self) -> None:
        self.lifeline.close()
        await asyncio.gather(self.connection.close(), self._windows.close())


def _encode(raw: RawCapture, max_dimension: int) -> Capture:
    image = zpixmap_to_rgb(raw.data, raw.width, raw.height, msb_first=raw.msb_first)
    width, height = scaled_size(image.width, image.height, max_dimension)
    image = downscale(image, width, height)
    return Capture(
        png=encode_png(image),
        width=width,
        height=height,
        source=raw.source,
        warnings=raw.warnings,
        scale=width / raw.width,
        frame=raw.frame,
    )


def _pointer(conn: XConnection) -> tuple[int, int]:
    reply = conn.display.screen().root.query_pointer()
    return (int(reply.root_x), int(reply.root_y))
