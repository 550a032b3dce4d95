"""An independent witness of device input on a display (X RECORD).

Tests use it to prove that headless mode sends no physical input at all, and
that XTEST input really reached the server. It records every key, button and
motion event the server processes, from any client (events carry no sender).
It owns two private connections and a reader thread; it must never send input.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from Xlib import X
from Xlib import display as xdisplay
from Xlib.ext import record
from Xlib.protocol import rq

from actui.errors import BackendUnavailable

EVENT_NAMES = {
    X.KeyPress: "key_press",
    X.KeyRelease: "key_release",
    X.ButtonPress: "button_press",
    X.ButtonRelease: "button_release",
    X.MotionNotify: "motion",
}


@dataclass(frozen=True)
class DeviceEvent:
    """One recorded device event: ``detail`` is the keycode or button (0 for motion)."""

    type: str
    detail: int
    time: int
    root_x: int
    root_y: int


class InputMonitor:
    """``async with InputMonitor(display) as monitor:`` then read ``monitor.events``."""

    def __init__(self, display: str) -> None:
        self.display_name = display
        self.events: list[DeviceEvent] = []
        self._control: xdisplay.Display | None = None
        self._reader: xdisplay.Display | None = None
        self._context = 0
        self._thread: threading.Thread | None = None
        self._started = threading.Event()

    async def __aenter__(self) -> InputMonitor:
        await asyncio.to_thread(self._start)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self._stop)

    async def settle(self, delay_s: float = 0.05) -> list[DeviceEvent]:
        """Wait for in-flight events to be recorded (RECORD lags 0.6–2.7 ms) and return them."""
        await asyncio.sleep(delay_s)
        return list(self.events)

    def _start(self) -> None:
        self._control = xdisplay.Display(self.display_name)
        self._reader = xdisplay.Display(self.display_name)
        if not self._control.has_extension("RECORD"):
            raise BackendUnavailable(f"the X server {self.display_name!r} has no RECORD extension")
        self._context = self._control.record_create_context(
            0,
            [record.AllClients],
            [
                {
                    "core_requests": (0, 0),
                    "core_replies": (0, 0),
                    "ext_requests": (0, 0, 0, 0),
                    "ext_replies": (0, 0, 0, 0),
                    "delivered_events": (0, 0),
                    "device_events": (X.KeyPress, X.MotionNotify),
                    "errors": (0, 0),
                    "client_started": False,
                    "client_died": False,
                }
            ],
        )
        self._control.sync()  # the reader's connection must find the context created
        self._thread = threading.Thread(target=self._read, name="x11-record", daemon=True)
        self._thread.start()
        self._started.wait(2.0)

    def _read(self) -> None:
        assert self._reader is not None
        self._reader.record_enable_context(self._context, self._on_data)
        self._reader.close()

    def _on_data(self, reply: Any) -> None:
        if reply.category == record.StartOfData:
            self._started.set()
            return
        if reply.category != record.FromServer or reply.client_swapped:
            return
        data = reply.data
        assert self._reader is not None
        while len(data) >= 32:
            event, data = rq.EventField(None).parse_binary_value(
                data, self._reader.display, None, None
            )
            name = EVENT_NAMES.get(event.type & 0x7F)
            if name is not None:
                self.events.append(
                    DeviceEvent(
                        name, int(event.detail), int(event.time), event.root_x, event.root_y
                    )
                )

    def _stop(self) -> None:
        if self._control is None:
            return
        self._control.record_disable_context(self._context)
        self._control.flush()
        if self._thread is not None:
            self._thread.join(2.0)
        self._control.record_free_context(self._context)
        self._control.close()
        self._control = None
