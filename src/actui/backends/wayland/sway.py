"""Sway's IPC: the window tree, commands, and the news of the compositor's end.

Sway speaks i3's IPC over a Unix socket (``SWAYSOCK``): a request is the magic
``i3-ipc``, the payload's length and the message type, then JSON; the reply
has the same frame. One connection carries requests, one at a time, each with
a deadline; a second one is subscribed to window events and read only for its
end-of-file, which is the first sign that the compositor is gone (the kernel
closes every client socket when it exits). This module owns the framing and
the two connections; what the tree means is :mod:`actui.backends.wayland.tree`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
from collections.abc import Callable
from typing import Any

from actui.errors import CallTimeout, DisplayGone

MAGIC = b"i3-ipc"
_FRAME = struct.Struct("=6sII")
RUN_COMMAND, SUBSCRIBE, GET_TREE = 0, 2, 4
IPC_TIMEOUT_S = 2.0


def frame(kind: int, payload: str = "") -> bytes:
    """One request: the magic, the payload's length, the type, the payload."""
    data = payload.encode()
    return _FRAME.pack(MAGIC, len(data), kind) + data


async def read_reply(reader: asyncio.StreamReader) -> tuple[int, Any]:
    """The next message's type and decoded JSON payload."""
    magic, length, kind = _FRAME.unpack(await reader.readexactly(_FRAME.size))
    if magic != MAGIC:
        raise ValueError(f"not a sway IPC message: {magic!r}")
    return kind, json.loads(await reader.readexactly(length))


class SwayIpc:
    """Requests to one sway instance, and a watch on its life."""

    def __init__(
        self, socket_path: str, *, display: str = "", timeout_s: float = IPC_TIMEOUT_S
    ) -> None:
        self.socket_path = socket_path
        self.display = display or socket_path
        """The display's name in messages (its Wayland socket, where known)."""
        self.timeout_s = timeout_s
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._lock = asyncio.Lock()
        self._watch: asyncio.Task[None] | None = None
        self._watch_writer: asyncio.StreamWriter | None = None
        self._lost = False
        self._on_gone: list[Callable[[DisplayGone], None]] = []

    async def start(self) -> None:
        """Start watching the compositor's life (a compositor that cannot be reached now
        is reported by the first request)."""
        if self._watch is not None or self._lost:
            return
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_unix_connection(self.socket_path), self.timeout_s
            )
            writer.write(frame(SUBSCRIBE, json.dumps(["shutdown"])))
            await writer.drain()
        except (OSError, TimeoutError):
            return
        self._watch_writer = writer
        self._watch = asyncio.ensure_future(self._watching(reader))

    async def _watching(self, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, OSError, ValueError):
            while True:
                await read_reply(reader)
        self._lose()

    def when_gone(self, callback: Callable[[DisplayGone], None]) -> None:
        self._on_gone.append(callback)

    def gone(self) -> DisplayGone | None:
        return DisplayGone(self.display, wayland=True) if self._lost else None

    def _lose(self) -> None:
        if self._lost:
            return
        self._lost = True
        error = DisplayGone(self.display, wayland=True)
        for callback in tuple(self._on_gone):
            callback(error)

    async def request(self, kind: int, payload: str = "") -> Any:
        """One request's decoded reply; DisplayGone once sway is gone, CallTimeout when silent."""
        async with self._lock:
            try:
                return await asyncio.wait_for(self._exchange(kind, payload), self.timeout_s)
            except TimeoutError:
                self._drop()
                raise CallTimeout(f"sway did not answer within {self.timeout_s:g} s") from None
            except (OSError, asyncio.IncompleteReadError, ValueError):
                self._drop()
                self._lose()
                raise DisplayGone(self.display, wayland=True) from None

    async def _exchange(self, kind: int, payload: str) -> Any:
        if self._streams is None:
            self._streams = await asyncio.open_unix_connection(self.socket_path)
        reader, writer = self._streams
        writer.write(frame(kind, payload))
        await writer.drain()
        return (await read_reply(reader))[1]

    async def tree(self) -> dict[str, Any]:
        reply = await self.request(GET_TREE)
        return reply if isinstance(reply, dict) else {}

    async def command(self, text: str) -> bool:
        """Run one sway command; whether every part of it succeeded."""
        reply = await self.request(RUN_COMMAND, text)
        return isinstance(reply, list) and all(
            isinstance(part, dict) and part.get("success") is True for part in reply
        )

    def _drop(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
            self._streams = None

    async def close(self) -> None:
        self._drop()
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        if self._watch_writer is not None:
            self._watch_writer.close()
            self._watch_writer = None
        self._on_gone.clear()
