"""Waiting for an application's AT-SPI events while an action settles.

Owns one short-lived subscription per action: it records the events one
application (by unique bus name) emits and lets the caller wait for the next
one. The events are evidence that something happened; what exactly changed
is always re-read from the element, never taken from the event's payload
(GTK 4 sends wrong text offsets).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from types import TracebackType

from dbus_fast import Message

from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.changes import GEOMETRY_ONLY, WINDOW_EVENTS

# State changes that follow any interaction and prove nothing about its effect
# (Qt's "Press" shows ``pressed`` for ~100 ms before the click happens).
NOISE = frozenset({"focused", "armed", "active", "pressed"})


def evidence_label(message: Message, sender: str, inside: Collection[str] | None) -> str | None:
    """How an event is reported as evidence of an action's effect; None when it is not.

    Only the acted-on application counts, and within it only the elements last
    read under the acted-on window (``inside``, when known) and window events
    (a dialog opening). Geometry is never evidence: gtk3-widget-factory's
    spinners move 60 times a second whatever is pressed.
    """
    if message.sender != sender or message.member in GEOMETRY_ONLY:
        return None
    detail = str(message.body[0]) if message.body else ""
    if message.member == "StateChanged" and detail in NOISE:
        return None
    if inside is not None and message.interface != WINDOW_EVENTS and message.path not in inside:
        return None
    return f"{message.member}:{detail}" if detail else str(message.member)


class EventWatch:
    def __init__(self, bus: AtspiBus, sender: str, inside: Collection[str] | None = None) -> None:
        self._bus = bus
        self._sender = sender
        self._inside = inside
        self._arrived = asyncio.Event()
        self.seen: list[str] = []
        self._unsubscribe = bus.subscribe(self._on_signal)

    def _on_signal(self, message: Message) -> None:
        label = evidence_label(message, self._sender, self._inside)
        if label is None:
            return
        if len(self.seen) < 32:
            self.seen.append(label)
        self._arrived.set()

    async def next(self, timeout_s: float) -> bool:
        """Wait for an event (or ``timeout_s``); whether one arrived."""
        try:
            async with asyncio.timeout(max(0.0, timeout_s)):
                await self._arrived.wait()
        except TimeoutError:
            return False
        self._arrived.clear()
        return True

    def __enter__(self) -> EventWatch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._unsubscribe()
