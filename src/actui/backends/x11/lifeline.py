"""Whether the X display is still there: one connection that carries only the news of its end.

When the X server dies, the kernel closes its end of every client socket at
once, before any client (an application, the registry) can react, so a
connection of our own reads end-of-file as the first sign of it. This one asks
nothing and selects no events; what the server still sends every client (a
``MappingNotify`` after typing remapped a key) is read and dropped. It is read
on the event loop, never by a worker thread: non-blocking reads only.

The backend asks :meth:`DisplayLifeline.gone` when anything fails, so a dead
display is named as the cause even when an application's or the
accessibility bus's error arrived first, and is told through ``when_gone`` as
soon as the socket closes, so waits on events that can no longer come end then.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from Xlib import display as xdisplay
from Xlib import error as xerror

from actui.errors import DisplayGone


class DisplayLifeline:
    """A watched, otherwise idle connection to one X display."""

    def __init__(self, display: str) -> None:
        self.display_name = display
        self._display: xdisplay.Display | None = None
        self._fd: int | None = None
        self._lost = False
        self._on_gone: list[Callable[[DisplayGone], None]] = []

    async def start(self) -> None:
        """Connect and watch (a display that cannot be reached now is not watched)."""
        if self._display is not None or self._lost:
            return
        try:
            display = await asyncio.to_thread(xdisplay.Display, self.display_name)
        except (xerror.DisplayError, xerror.ConnectionClosedError, OSError):
            return  # the other connections report why; nothing here to watch
        self._display, self._fd = display, display.fileno()
        asyncio.get_running_loop().add_reader(self._fd, self._readable)

    def when_gone(self, callback: Callable[[DisplayGone], None]) -> None:
        """Call ``callback`` with the error once the display is found gone."""
        self._on_gone.append(callback)

    def gone(self) -> DisplayGone | None:
        """The error to report when the display is gone (checked now, without blocking)."""
        if not self._lost and self._display is not None:
            self._readable()
        return DisplayGone(self.display_name) if self._lost else None

    def _readable(self) -> None:
        display = self._display
        if display is None:
            return
        try:
            while display.pending_events():
                display.next_event()
        except (xerror.ConnectionClosedError, OSError):
            self._lose()

    def _lose(self) -> None:
        self._lost = True
        self._stop_reading()
        error = DisplayGone(self.display_name)
        for callback in tuple(self._on_gone):
            callback(error)

    def _stop_reading(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(RuntimeError, ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self._fd)
            self._fd = None

    def close(self) -> None:
        self._stop_reading()
        display, self._display = self._display, None
        if display is not None and not self._lost:
            with contextlib.suppress(xerror.ConnectionClosedError, OSError):
                display.close()
        self._on_gone.clear()
