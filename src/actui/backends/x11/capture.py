"""Reading a window's pixels from the X server, covered parts included.

Owns the Composite redirection of the desktop, the choice between the window's
off-screen pixmap (``xcomposite``) and a plain screen read (``get_image``), and
the size and depth checks. Functions here run on the connection's worker
thread; turning pixels into a PNG is :mod:`actui.backends.x11.image`'s job.

Why redirect everything: ``NameWindowPixmap`` only works on a redirected
window, and a window's pixmap is only complete once its application has
repainted into it. Redirecting the root's children (mode Automatic, so the
screen still looks the same) as soon as the connection opens means every
window mapped afterwards is painted off-screen from the start, and covered or
off-screen parts read back correctly. Windows that already existed get an
Expose and repaint within ~200 ms (measured: gtk3-widget-factory), so their
first capture waits out :data:`REDIRECT_SETTLE_S`. The redirection belongs to
this client and ends when the connection closes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from Xlib import X
from Xlib import error as xerror
from Xlib.ext import composite

from actui.backends.base import Rect
from actui.backends.x11 import ewmh
from actui.backends.x11.connection import XConnection
from actui.errors import CaptureFailed

MAX_PIXELS = 64 * 1024 * 1024
REDIRECT_SETTLE_S = 0.25
COVERED_WARNING = (
    "the image was read from the screen (no Composite pixmap): parts covered by other "
    "windows or outside the screen may be wrong or outdated"
)


@dataclass(frozen=True)
class RawCapture:
    """Unconverted ZPixmap data of a window's client area."""

    data: bytes
    width: int
    height: int
    msb_first: bool
    source: str
    warnings: tuple[str, ...]
    frame: Rect


class Compositor:
    """This connection's Composite redirection and when each top-level got it."""

    def __init__(self) -> None:
        self._available: bool | None = None
        self._redirected_at = 0.0
        self._preexisting: frozenset[int] = frozenset()

    def redirect(self, conn: XConnection) -> None:
        """Redirect the root's children once (idempotent); remembers who already existed."""
        if self._available is not None:
            return
        display = conn.display
        self._available = bool(display.has_extension(composite.extname))
        if not self._available:
            return
        root = display.screen().root
        self._preexisting = frozenset(child.id for child in root.query_tree().children)
        root.composite_redirect_subwindows(composite.RedirectAutomatic)
        display.sync()
        self._redirected_at = time.monotonic()

    def grab(self, conn: XConnection, window_id: int) -> RawCapture:
        """The client area of ``window_id``: composite pixmap first, screen read second."""
        self.redirect(conn)
        frame = ewmh.client_frame(conn, window_id)
        pixels = frame.w * frame.h
        if pixels <= 0 or pixels > MAX_PIXELS:
            raise CaptureFailed(
                f"window {window_id:#x} is {frame.w}×{frame.h} pixels; a capture needs "
                f"between 1 and {MAX_PIXELS} pixels"
            )
        msb_first = conn.display.display.info.image_byte_order == X.MSBFirst
        if self._available:
            data = self._from_pixmap(conn, window_id, frame)
            if data is not None:
                return RawCapture(data, frame.w, frame.h, msb_first, "xcomposite", (), frame)
        if not ewmh.is_viewable(conn, window_id):
            raise CaptureFailed(
                f"window {window_id:#x} is not viewable (minimized or unmapped); "
                "activate it before asking for an image"
            )
        window = conn.display.create_resource_object("window", window_id)
        image = window.get_image(0, 0, frame.w, frame.h, X.ZPixmap, 0xFFFFFFFF)
        data = _checked(image.depth, bytes(image.data), frame, window_id)
        return RawCapture(data, frame.w, frame.h, msb_first, "get_image", (COVERED_WARNING,), frame)

    def _from_pixmap(self, conn: XConnection, window_id: int, frame: Rect) -> bytes | None:
        top_id = ewmh.ancestry(conn, window_id)[-1]
        if top_id in self._preexisting:
            remaining = self._redirected_at + REDIRECT_SETTLE_S - time.monotonic()
            if remaining > 0:
                time.sleep(remaining)
        display = conn.display
        top = display.create_resource_object("window", top_id)
        window = display.create_resource_object("window", window_id)
        offset = window.translate_coords(top, 0, 0)
        catcher = xerror.CatchError(xerror.BadMatch, xerror.BadWindow)
        pixmap = top.composite_name_window_pixmap(onerror=catcher)
        try:
            image = pixmap.get_image(-offset.x, -offset.y, frame.w, frame.h, X.ZPixmap, 0xFFFFFFFF)
        except (xerror.BadDrawable, xerror.BadPixmap, xerror.BadMatch, xerror.BadValue):
            return None
        finally:
            pixmap.free(onerror=xerror.CatchError(xerror.BadPixmap))
        return _checked(image.depth, bytes(image.data), frame, window_id)


def _checked(depth: int, data: bytes, frame: Rect, window_id: int) -> bytes:
    if depth not in (24, 32) or len(data) < frame.w * frame.h * 4:
        raise CaptureFailed(
            f"window {window_id:#x} has depth {depth}; only 24- and 32-bit windows "
            "(4 bytes per pixel) can be captured"
        )
    return data
