"""Calls sent in one turn of the event loop leave in one socket write.

dbus-fast writes every message with its own ``send`` system call. A cold
walk sends thousands of small calls, mostly a few at a time as replies free
slots. This module owns only the coalescing: it marshals messages already
numbered by the caller and hands their bytes, as one buffer, to the
connection's own writer, which keeps handling partial writes and the socket
closing.

Measured gain (``bench/bench_outbox.py``, the same ``AtspiBus`` with this
Outbox or with dbus-fast's ``MessageBus.send`` per call, 10 interleaved
rounds, 2 shared cores, 2026-12-01): a cold gtk4-widget-factory walk
(3,270 calls) makes 194-612 socket writes instead of 3,270 and costs this
process 331-396 ms of CPU instead of 379-439 ms (about a tenth less); the
desktop's CPU (application, buses, X server) and the wall time do not move
(replayed calls/s 0.96-1.16 times the per-call rate, within the noise). On
gtk3-widget-factory (361 calls) nothing measurable changes.

It touches dbus-fast's private writer (``MessageBus._writer``: its
``messages`` queue, ``buf``, ``fd`` and ``write_callback``; and
``Message._marshall``), so ``pyproject.toml`` pins the dbus-fast major
version it was read from and ``tests/unit/test_outbox.py`` drives the real
writer over a socket pair: it fails, naming the internal, when a release
changes any of them.
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
        if not idle:
            return  # the writer is already waiting for the socket: it sends this next
        writer.write_callback(remove_writer=False)
        if writer.buf is not None and writer.fd is not None:
            # The rest when the socket can take it. Never a second write now:
            # a full socket raises EAGAIN, on which dbus-fast closes the bus.
            asyncio.get_running_loop().add_writer(writer.fd, writer.write_callback)
