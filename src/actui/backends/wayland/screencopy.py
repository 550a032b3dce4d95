"""Reading the screen of a wlroots compositor in-process: wlr-screencopy into shared memory.

One connection for the backend's life binds the output, ``wl_shm`` and
``zwlr_screencopy_manager_v1``; each capture asks for a region of the output,
learns the buffer the compositor wants (format, size, stride), hands it a
memfd-backed ``wl_buffer``, and reads the pixels once it says ``ready``. No
process is started and no PNG is made until the caller encodes one. Only a
single output is read here (the private desktop has one); with several, the
caller uses grim. Blocking, with the connection's deadline: callers run it on
a worker thread.
"""

from __future__ import annotations

import mmap
import os
import struct

from PIL import Image

from actui.backends.base import Rect
from actui.backends.wayland.wire import Connection, WaylandError, memfd_with, message, uint

MANAGER = "zwlr_screencopy_manager_v1"
_CAPTURE_OUTPUT_REGION = 1
_FRAME_COPY, _FRAME_DESTROY = 0, 1
_BUFFER, _FLAGS, _READY, _FAILED, _BUFFER_DONE = 0, 1, 2, 3, 6
_CREATE_POOL = 0
_CREATE_BUFFER, _POOL_DESTROY = 0, 1
_BUFFER_DESTROY = 0
_Y_INVERT = 1
_MODES = {0: "BGRA", 1: "BGRX"}
"""wl_shm formats ARGB8888 and XRGB8888, as bytes in memory (little-endian)."""


class ScreenCopy:
    """Regions of the only output, as Pillow images."""

    def __init__(self, socket_path: str, *, timeout_s: float = 2.0) -> None:
        self._conn = Connection(socket_path, timeout_s=timeout_s)
        if self._conn.announced.get("wl_output", 0) != 1:
            self._conn.close()
            raise WaylandError("screencopy here reads a single output")
        self._output = self._conn.bind("wl_output", 1)
        self._shm = self._conn.bind("wl_shm", 1)
        self._manager = self._conn.bind(MANAGER, 3)
        self._announces_done = self._conn.globals[MANAGER].version >= 3
        """Version 3 ends the buffer offers with ``buffer_done``; before it, the first
        offer is all there is to wait for."""
        self._conn.roundtrip()

    def region(self, frame: Rect) -> Image.Image:
        """The pixels of ``frame`` (output coordinates) as the screen shows them."""
        conn = self._conn
        copy = conn.new_id()
        body = uint(copy) + uint(0) + uint(self._output)
        body += uint(frame.x) + uint(frame.y) + uint(frame.w) + uint(frame.h)
        conn.send(message(self._manager, _CAPTURE_OUTPUT_REGION, body))
        seen: dict[str, tuple[int, ...]] = {}

        def on_frame(opcode: int, args: bytes) -> None:
            if opcode == _BUFFER:
                seen.setdefault("shm", struct.unpack_from("<4I", args))
            elif opcode == _FLAGS:
                seen["flags"] = struct.unpack_from("<I", args)
            elif opcode in (_READY, _FAILED, _BUFFER_DONE):
                seen[{_READY: "ready", _FAILED: "failed", _BUFFER_DONE: "done"}[opcode]] = ()

        conn.listen(copy, on_frame)
        try:
            offered = "done" if self._announces_done else "shm"
            conn.dispatch_until(lambda: offered in seen or "failed" in seen)
            if "failed" in seen or "shm" not in seen:
                raise WaylandError("the compositor would not copy that region")
            kind, width, height, stride = seen["shm"]
            if kind not in _MODES:
                raise WaylandError(f"unexpected pixel format {kind:#x}")
            pixels = self._copy(copy, kind, width, height, stride, seen)
        finally:
            conn.send(message(copy, _FRAME_DESTROY, b""))
        image = Image.frombuffer("RGB", (width, height), pixels, "raw", _MODES[kind], stride, 1)
        flipped = seen.get("flags", (0,))[0] & _Y_INVERT
        return image.transpose(Image.Transpose.FLIP_TOP_BOTTOM) if flipped else image

    def _copy(
        self,
        copy: int,
        kind: int,
        width: int,
        height: int,
        stride: int,
        seen: dict[str, tuple[int, ...]],
    ) -> bytes:
        """Hand the compositor a shared buffer for ``copy`` and read it once it is ready."""
        conn = self._conn
        size = stride * height
        fd = memfd_with(b"", "actui-screencopy")
        try:
            os.ftruncate(fd, size)
            pool, buffer = conn.new_id(), conn.new_id()
            conn.send(message(self._shm, _CREATE_POOL, uint(pool) + uint(size)), (fd,))
            layout = uint(0) + uint(width) + uint(height) + uint(stride) + uint(kind)
            conn.send(message(pool, _CREATE_BUFFER, uint(buffer) + layout))
            conn.send(message(copy, _FRAME_COPY, uint(buffer)))
            conn.dispatch_until(lambda: "ready" in seen or "failed" in seen)
            if "failed" in seen:
                raise WaylandError("the compositor failed to copy the region")
            with mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ) as shared:
                pixels = bytes(shared)
            conn.send(message(buffer, _BUFFER_DESTROY, b"") + message(pool, _POOL_DESTROY, b""))
            return pixels
        finally:
            os.close(fd)

    def close(self) -> None:
        self._conn.close()
