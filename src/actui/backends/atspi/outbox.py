"""Calls sent in one turn of the event loop leave in one socket write.

dbus-fast writes every message with its own ``send`` system call. A cold
walk sends thousands of small calls, mostly a few at a time as replies free
slots, and each write wakes the bus daemon and then the application for a
handful of bytes. Coalescing them took a cold gtk4-widget-factory walk from
3,254 writes to 274 (counted with cProfile) and our CPU for it down by about a
tenth. This module owns only that coalescing: it marshals messages already
numbered by the caller and hands their bytes, as one buffer, to the
connection's own writer, which keeps handling partial writes and the socket
closing. It touches dbus-fast's writer (``MessageBus._writer``,
its message queue, write callback and scheduling), so ``pyproject.toml`` pins
the dbus-fast major version it was read from.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from dbus_fast import Message
from dbus_fast.aio import MessageBus

Rejected = Callable[[Message, Exception], None]


class Outbox:
    """Messages for one connection, flushed once per loop turn."""

    def __init__(self, bus: MessageBus, rejected: Rejected) -> None:
        self._bus = bus
        self._rejected = rejected
        self._queued: list[Message] = []

    def put(self, message: Message) -> None:
        """Queue ``message`` (its serial already set); it leaves at the end of this turn."""
        self._queued.append(message)
        if len(self._queued) == 1:
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        queued, self._queued = self._queued, []
        data = bytearray()
        for message in queued:
            try:
                data += message._marshall(False)
            except Exception as exc:  # a body that does not fit its signature
                self._rejected(message, exc)
        writer = self._bus._writer
        if not data or writer is None or not self._bus.connected:
            return  # a closed connection fails the calls through its own notice
        idle = not writer.messages and writer.buf is None
        writer.messages.append((data, None, None))
        if idle:
            writer.write_callback(remove_writer=False)
        if writer.buf is not None or writer.messages:
            writer.schedule_write()  # the rest when the socket can take it
