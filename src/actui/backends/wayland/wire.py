"""The Wayland wire protocol, as much of it as virtual input and screencopy need.

A Wayland connection is a Unix socket carrying messages of 32-bit words: an
object id, a word of size and opcode, then the arguments (integers, 24.8
fixed-point numbers, length-prefixed strings, object ids), with file
descriptors passed alongside as ancillary data. This module owns that
encoding, the registry of globals the compositor announces, binding them, and
the round trip (``wl_display.sync``) that proves the compositor has handled
every request sent before it, and handing other objects' events to whoever
listens. It knows no protocol beyond the core objects it needs to get there;
what the virtual pointer and keyboard say is
:mod:`actui.backends.wayland.devices`'s, what screencopy says
:mod:`actui.backends.wayland.screencopy`'s.

Blocking I/O with a deadline on every read: callers run it on a worker thread.
"""

from __future__ import annotations

import array
import contextlib
import os
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

DISPLAY_ID = 1
_REGISTRY_GLOBAL = 0
_DISPLAY_ERROR = 0
_DISPLAY_DELETE_ID = 1
_GET_REGISTRY = 1
_SYNC = 0
_BIND = 0
_HEADER = struct.Struct("<II")
MAX_MESSAGE = 4096
"""The protocol's own bound on one message (libwayland's buffer)."""


class WaylandError(Exception):
    """The compositor closed the connection, reported a protocol error, or did not answer."""


@dataclass(frozen=True)
class Global:
    """One global the compositor announced: its registry name, interface and version."""

    name: int
    interface: str
    version: int


def uint(value: int) -> bytes:
    return struct.pack("<I", value & 0xFFFFFFFF)


def fixed(value: float) -> bytes:
    """A 24.8 signed fixed-point number."""
    return struct.pack("<i", round(value * 256))


def string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def message(object_id: int, opcode: int, body: bytes) -> bytes:
    """One request: the header (object, size << 16 | opcode) and its arguments."""
    return _HEADER.pack(object_id, ((8 + len(body)) << 16) | opcode) + body


def read_string(body: bytes, offset: int) -> tuple[str, int]:
    """The string at ``offset`` and the offset after it (padded to 4 bytes)."""
    (length,) = struct.unpack_from("<I", body, offset)
    start = offset + 4
    text = body[start : start + max(0, length - 1)].decode(errors="replace")
    return text, start + length + (-length % 4)


class Connection:
    """One client connection to a compositor: requests out, events in, globals known."""

    def __init__(self, path: str, *, timeout_s: float = 2.0) -> None:
        self.timeout_s = timeout_s
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout_s)
        try:
            self._sock.connect(path)
        except OSError as exc:
            self._sock.close()
            raise WaylandError(f"cannot connect to the Wayland socket {path}: {exc}") from None
        self._next_id = DISPLAY_ID + 1
        self._buffer = b""
        self._waiting: set[int] = set()
        self._synced: set[int] = set()
        self._handlers: dict[int, Callable[[int, bytes], None]] = {}
        self.globals: dict[str, Global] = {}
        self.announced: dict[str, int] = {}
        """How many globals of each interface were announced (outputs: one per screen)."""
        self._registry = self.new_id()
        self.send(message(DISPLAY_ID, _GET_REGISTRY, uint(self._registry)))
        self.roundtrip()

    def new_id(self) -> int:
        object_id = self._next_id
        self._next_id += 1
        return object_id

    def send(self, data: bytes, fds: tuple[int, ...] = ()) -> None:
        try:
            if fds:
                ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
                self._sock.sendmsg([data], ancillary)
            else:
                self._sock.sendall(data)
        except OSError as exc:
            raise WaylandError(f"the compositor connection failed: {exc}") from None

    def bind(self, interface: str, version: int) -> int:
        """Bind the announced global ``interface`` at ``version`` at most; its new object id."""
        found = self.globals.get(interface)
        if found is None:
            raise WaylandError(f"the compositor does not offer {interface}")
        object_id = self.new_id()
        body = uint(found.name) + string(interface) + uint(min(version, found.version))
        self.send(message(self._registry, _BIND, body + uint(object_id)))
        return object_id

    def roundtrip(self) -> None:
        """Return once the compositor has handled every request sent so far."""
        callback = self.new_id()
        self._waiting.add(callback)
        self.send(message(DISPLAY_ID, _SYNC, uint(callback)))
        self.dispatch_until(lambda: callback in self._synced)
        self._synced.discard(callback)
        self._waiting.discard(callback)

    def listen(self, object_id: int, handler: Callable[[int, bytes], None]) -> None:
        """Hand ``object_id``'s events (opcode, arguments) to ``handler`` from now on."""
        self._handlers[object_id] = handler

    def dispatch_until(self, done: Callable[[], bool]) -> None:
        """Read events until ``done()`` holds; WaylandError after the connection's timeout."""
        deadline = time.monotonic() + self.timeout_s
        while not done():
            self._dispatch_one(deadline)

    def _dispatch_one(self, deadline: float) -> None:
        while len(self._buffer) < 8 or len(self._buffer) < self._size():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaylandError(f"the compositor did not answer within {self.timeout_s:g} s")
            self._sock.settimeout(remaining)
            try:
                chunk = self._sock.recv(MAX_MESSAGE)
            except TimeoutError:
                continue
            except OSError as exc:
                raise WaylandError(f"the compositor connection failed: {exc}") from None
            if not chunk:
                raise WaylandError("the compositor closed the connection")
            self._buffer += chunk
        size = self._size()
        object_id, word = _HEADER.unpack_from(self._buffer)
        body, self._buffer = self._buffer[8:size], self._buffer[size:]
        self._event(object_id, word & 0xFFFF, body)

    def _size(self) -> int:
        return int(_HEADER.unpack_from(self._buffer)[1] >> 16)

    def _event(self, object_id: int, opcode: int, body: bytes) -> None:
        if object_id == DISPLAY_ID and opcode == _DISPLAY_ERROR:
            culprit, code = struct.unpack_from("<II", body)
            text, _ = read_string(body, 8)
            raise WaylandError(f"protocol error {code} on object {culprit}: {text}")
        if object_id == self._registry and opcode == _REGISTRY_GLOBAL:
            (name,) = struct.unpack_from("<I", body)
            interface, offset = read_string(body, 4)
            (version,) = struct.unpack_from("<I", body, offset)
            self.globals.setdefault(interface, Global(name, interface, version))
            self.announced[interface] = self.announced.get(interface, 0) + 1
        elif object_id in self._waiting and opcode == 0:
            self._synced.add(object_id)  # wl_callback.done
        elif object_id in self._handlers:
            self._handlers[object_id](opcode, body)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()


def memfd_with(data: bytes, name: str) -> int:
    """A sealed-size anonymous file holding ``data``, to pass by descriptor."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
