"""The async face of one sway desktop: windows, activation, capture, liveness.

The Linux backend's physical side on Wayland, in the shape of the X11 one
(:class:`~actui.backends.x11.session.X11Session`): the window listing comes
from sway's tree (:mod:`~actui.backends.wayland.tree`), activation is sway's
``focus`` command confirmed by the tree, pixels are read for the window's
rectangle by wlr-screencopy in-process (:mod:`~actui.backends.wayland.screencopy`;
``grim`` where that cannot serve), and the compositor's end is seen on the IPC
watch. wlroots 0.15 cannot capture one window apart, so a covered part shows
what covers it: the window is captured as it is seen. It must not send input
(:mod:`~actui.backends.wayland.input`).
"""

from __future__ import annotations

import asyncio
import io
import shutil
import time
from collections.abc import Callable

from PIL import Image as PilImage

from actui.backends.base import Rect
from actui.backends.wayland.screencopy import ScreenCopy
from actui.backends.wayland.sway import SwayIpc
from actui.backends.wayland.tree import layout_size, windows_of
from actui.backends.wayland.wire import WaylandError
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.image import downscale, encode_png, scaled_size
from actui.backends.x11.session import Capture
from actui.errors import CaptureFailed, DisplayGone, TargetGone

ACTIVATION_POLLS = 20
ACTIVATION_POLL_S = 0.01
GRIM_TIMEOUT_S = 5.0
LISTING_FRESH_S = 0.5
"""A capture right after a listing reads the window where that listing saw it."""


class SwayLifeline:
    """Whether the compositor is still there (the IPC watch's news), as the X11 lifeline."""

    def __init__(self, ipc: SwayIpc) -> None:
        self._ipc = ipc

    def when_gone(self, callback: Callable[[DisplayGone], None]) -> None:
        self._ipc.when_gone(callback)

    def gone(self) -> DisplayGone | None:
        return self._ipc.gone()


class SwaySession:
    """One sway desktop's windows, activation and pixels."""

    def __init__(self, swaysock: str, wayland_display: str, env: dict[str, str]) -> None:
        self.ipc = SwayIpc(swaysock, display=wayland_display)
        self.lifeline = SwayLifeline(self.ipc)
        self.wayland_display = wayland_display
        self._screencopy: ScreenCopy | None = None
        self._no_screencopy = False
        self._copying = asyncio.Lock()
        self._listed: tuple[float, dict[int, XWindow]] = (0.0, {})
        self.extent = (1, 1)
        """The output layout's size as of the last listing: absolute motion is relative to it."""
        self._env = env

    async def start(self) -> None:
        await self.ipc.start()

    async def windows(self) -> list[XWindow]:
        """Sway's windows, topmost first (``z_order`` 0)."""
        tree = await self.ipc.tree()
        self.extent = layout_size(tree)
        listed = windows_of(tree)
        self._listed = (time.monotonic(), {w.window_id: w for w in listed})
        return listed

    async def _window(self, window_id: int) -> XWindow | None:
        """The window as the listing just made saw it (the geometry an observation's
        coordinates come from), else as sway says now."""
        at, windows = self._listed
        if time.monotonic() - at <= LISTING_FRESH_S and window_id in windows:
            return windows[window_id]
        return next((w for w in await self.windows() if w.window_id == window_id), None)

    async def listing(self, timeout_s: float) -> list[XWindow]:
        """The windows, for placing window-relative AT-SPI extents (``WindowOrigins``)."""
        return await self.windows()

    async def active_window(self) -> int | None:
        return next((w.window_id for w in await self.windows() if w.is_active), None)

    async def activate(self, window_id: int, *, timeout_s: float = 0.2) -> bool:
        """Focus the window (``[con_id=N] focus``) and confirm it from the tree."""
        if await self.active_window() == window_id:
            return True
        if not await self.ipc.command(f"[con_id={window_id}] focus"):
            return False
        interval = max(ACTIVATION_POLL_S, timeout_s / ACTIVATION_POLLS)
        for _ in range(ACTIVATION_POLLS):
            if await self.active_window() == window_id:
                return True
            await asyncio.sleep(interval)
        return False

    async def capture(self, window_id: int, *, max_dimension: int) -> Capture:
        """The window's content as seen on screen, shrunk to ``max_dimension`` at most."""
        window = await self._window(window_id)
        if window is None:
            raise TargetGone(f"window {window_id}", "is gone", then="find_roots")
        if window.is_minimized or window.frame.empty:
            raise CaptureFailed(f"window {window_id} is not shown, so it has no pixels to read")
        frame = window.frame
        async with self._copying:
            copier = await self._copier()
            if copier is not None:
                try:
                    image = await asyncio.to_thread(copier.region, frame)
                except WaylandError as exc:
                    raise CaptureFailed(f"the screen could not be read: {exc}") from None
                return await asyncio.to_thread(encode_capture, image, frame, max(1, max_dimension))
        region = f"{frame.x},{frame.y} {frame.w}x{frame.h}"
        ppm = await self._grim(["-t", "ppm", "-g", region, "-"])
        image = await asyncio.to_thread(_decoded, ppm)
        return await asyncio.to_thread(encode_capture, image, frame, max(1, max_dimension))

    async def _copier(self) -> ScreenCopy | None:
        """The in-process screencopy, made on first use; None where it cannot serve (several
        outputs, no screencopy): grim reads the screen then."""
        if self._screencopy is None and not self._no_screencopy:
            try:
                self._screencopy = await asyncio.to_thread(ScreenCopy, self.wayland_display)
            except WaylandError:
                self._no_screencopy = True
        return self._screencopy

    async def _grim(self, args: list[str]) -> bytes:
        grim = shutil.which("grim")
        if grim is None:
            raise CaptureFailed("grim is not installed, so the Wayland screen cannot be read")
        process = await asyncio.create_subprocess_exec(
            grim,
            *args,
            env={**self._env, "WAYLAND_DISPLAY": self.wayland_display},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), GRIM_TIMEOUT_S)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise CaptureFailed(f"grim did not answer within {GRIM_TIMEOUT_S:g} s") from None
        if process.returncode != 0 or not out:
            detail = err.decode(errors="replace").strip()[:200]
            raise CaptureFailed(f"grim failed ({process.returncode}): {detail}")
        return out

    async def close(self) -> None:
        await self.ipc.close()
        if self._screencopy is not None:
            self._screencopy.close()
            self._screencopy = None


def _decoded(ppm: bytes) -> PilImage.Image:
    image = PilImage.open(io.BytesIO(ppm))
    image.load()
    return image


def encode_capture(
    image: PilImage.Image,
    frame: Rect,
    max_dimension: int,
    source: str = "wlr-screencopy",
    warnings: tuple[str, ...] = (),
) -> Capture:
    """``image`` of ``frame`` as a capture, shrunk to ``max_dimension`` at most."""
    width, height = scaled_size(image.width, image.height, max_dimension)
    small = downscale(image.convert("RGB"), width, height)
    return Capture(
        png=encode_png(small),
        width=width,
        height=height,
        source=source,
        warnings=warnings,
        scale=width / image.width,
        frame=frame,
    )
