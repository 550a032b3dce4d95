"""The Outbox against dbus-fast's own writer: fails loudly when dbus-fast changes it.

``actui.backends.atspi.outbox`` hands coalesced bytes to dbus-fast's private
``_MessageWriter``. These tests drive the real writer class over a real
socket pair (no D-Bus daemon needed), so a dbus-fast release that renames,
reshapes or stops honouring any of the internals the Outbox uses fails here,
naming what changed, before a walk can hang or lose calls.
"""

from __future__ import annotations

import asyncio
import inspect
import socket
from collections import deque
from collections.abc import AsyncIterator

import pytest
from dbus_fast import Message
from dbus_fast.aio import MessageBus
from dbus_fast.aio.message_bus import _MessageWriter

from actui.backends.atspi.outbox import Outbox

CHANGED = "dbus-fast changed an internal src/actui/backends/atspi/outbox.py relies on: "


class CountingSocket:
    """The writer's socket, counting its ``send`` calls (one per socket write)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sends = 0

    def send(self, data: memoryview) -> int:
        self.sends += 1
        return self.sock.send(data)

    def sendmsg(self, *args: object) -> int:
        raise AssertionError("the Outbox never passes file descriptors")


class Peer:
    """A real, never-connected ``MessageBus`` whose writer writes into a socket pair."""

    def __init__(self) -> None:
        self.ours, self.theirs = socket.socketpair()
        self.ours.setblocking(False)
        self.counting = CountingSocket(self.ours)
        self.bus = MessageBus(bus_address="unix:path=/nonexistent")
        self.bus._sock = self.counting
        self.bus._fd = self.ours.fileno()
        self.bus.unique_name = ":1.1"
        self.bus._writer = _MessageWriter(self.bus)
        self.rejected: list[tuple[Message, Exception]] = []
        self.outbox = Outbox(self.bus, lambda m, e: self.rejected.append((m, e)))

    async def received(self, size: int) -> bytes:
        """Everything the peer got, read as the writer sends it, until ``size`` bytes."""
        loop = asyncio.get_running_loop()
        self.theirs.setblocking(False)
        data = bytearray()
        async with asyncio.timeout(5):
            while len(data) < size:
                data += await loop.sock_recv(self.theirs, 1 << 16)
        return bytes(data)

    def close(self) -> None:
        asyncio.get_running_loop().remove_writer(self.ours.fileno())
        self.ours.close()
        self.theirs.close()


@pytest.fixture
async def peer() -> AsyncIterator[Peer]:
    p = Peer()
    yield p
    p.close()


def call(serial: int, text: str = "x") -> Message:
    return Message(
        destination="org.a11y.atspi.Registry",
        path="/org/a11y/atspi/accessible/root",
        interface="org.a11y.atspi.Accessible",
        member="GetChildAtIndex",
        signature="s",
        body=[text],
        serial=serial,
    )


def test_the_private_names_the_outbox_uses_still_exist() -> None:
    assert "_writer" in MessageBus.__slots__, CHANGED + "MessageBus._writer"
    params = inspect.signature(_MessageWriter.write_callback).parameters
    assert list(params) == ["self", "remove_writer"], CHANGED + "_MessageWriter.write_callback"
    params = inspect.signature(_MessageWriter.schedule_write).parameters
    assert list(params) == ["self", "msg", "future"], CHANGED + "_MessageWriter.schedule_write"
    assert params["msg"].default is None, CHANGED + "schedule_write() without a message"
    marshall = inspect.signature(Message._marshall).parameters
    assert list(marshall) == ["self", "negotiate_unix_fd"], CHANGED + "Message._marshall"


async def test_the_writer_state_the_outbox_reads_has_its_shape(peer: Peer) -> None:
    writer = peer.bus._writer
    assert writer is not None
    assert isinstance(writer.messages, deque), CHANGED + "_MessageWriter.messages"
    assert writer.buf is None, CHANGED + "_MessageWriter.buf (None when idle)"
    assert writer.fd == peer.ours.fileno(), CHANGED + "_MessageWriter.fd"
    assert peer.bus.connected, CHANGED + "MessageBus.connected"


async def test_calls_put_in_one_turn_leave_in_one_write(peer: Peer) -> None:
    messages = [call(serial) for serial in range(1, 6)]
    expected = b"".join(bytes(m._marshall(False)) for m in messages)
    for message in messages:
        peer.outbox.put(message)
    assert peer.counting.sends == 0, "nothing leaves before the turn ends"
    assert await peer.received(len(expected)) == expected, CHANGED + "the bytes on the wire"
    assert peer.counting.sends == 1, CHANGED + "one write per turn"
    assert peer.rejected == []


async def test_what_the_socket_cannot_take_at_once_follows_when_it_can(peer: Peer) -> None:
    # A turn's bytes far beyond the socket buffer: the writer's own partial-write
    # handling (``schedule_write`` registering the fd) must send the rest.
    peer.ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    messages = [call(serial, "y" * 200) for serial in range(1, 2001)]
    expected = b"".join(bytes(m._marshall(False)) for m in messages)
    for message in messages:
        peer.outbox.put(message)
    got = await peer.received(len(expected))
    assert got == expected, CHANGED + "partial writes are completed in order"
    assert peer.counting.sends > 1, "the buffer was small enough to need several writes"
    writer = peer.bus._writer
    assert writer is not None and writer.buf is None and not writer.messages


async def test_a_turn_queued_while_a_write_is_pending_goes_after_it(peer: Peer) -> None:
    peer.ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    first = [call(serial, "a" * 200) for serial in range(1, 501)]
    second = [call(serial, "b") for serial in range(501, 504)]
    for message in first:
        peer.outbox.put(message)
    await asyncio.sleep(0)  # the first turn's write leaves a remainder pending
    for message in second:
        peer.outbox.put(message)
    expected = b"".join(bytes(m._marshall(False)) for m in [*first, *second])
    assert await peer.received(len(expected)) == expected, CHANGED + "the writer's queue order"


async def test_a_body_that_does_not_fit_its_signature_is_rejected_alone(peer: Peer) -> None:
    good = call(1)
    bad = Message(
        destination="org.a11y.atspi.Registry",
        path="/org/a11y/atspi/accessible/root",
        interface="org.a11y.atspi.Accessible",
        member="GetChildAtIndex",
        signature="i",
        body=["not an int"],
        serial=2,
    )
    peer.outbox.put(good)
    peer.outbox.put(bad)
    expected = bytes(good._marshall(False))
    assert await peer.received(len(expected)) == expected
    assert [m.serial for m, _ in peer.rejected] == [2]
