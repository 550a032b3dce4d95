"""One persistent CDP connection to the browser: numbered commands, per-command timeouts,
event dispatch, and the target sessions attached over it in flatten mode.

This module owns the wire: sending ``{id, method, params}`` (optionally to a
flattened target session), matching replies to callers, fanning events out to
listeners, holding a session's commands back behind a caller-set gate, and
turning transport failures into :mod:`actui.errors`. Two transports carry the
same messages: the pipe a browser actui launched was given
(``--remote-debugging-pipe``, so no port is open to other local processes),
and a websocket to a browser someone else started with a loopback debugging
port. It must not know what any CDP domain means beyond attaching sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from collections.abc import Callable, Collection, Mapping
from typing import Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from actui.backends.base import JsonObject
from actui.backends.reads import int_of, obj_of
from actui.errors import ActuiError, CallTimeout, TargetGone

COMMAND_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 5.0
_MAX_MESSAGE_BYTES = 512 * 1024 * 1024
_DETACH_TIMEOUT_S = 1.0

EventListener = Callable[[str, JsonObject, str], None]
"""Called with ``(method, params, session id)``; the id is "" for the target itself."""
Gate = Callable[[str], ActuiError | None]
"""Given a method about to be sent, the error to raise instead (None lets it pass)."""


class Sender(Protocol):
    """Anything commands can be sent to: a connection or one of its sessions."""

    async def send(
        self,
        method: str,
        params: Mapping[str, object] | None = None,
        *,
        timeout_s: float = COMMAND_TIMEOUT_S,
    ) -> JsonObject: ...


class TransportClosed(Exception):
    """The other end of the transport is gone; the text says how."""


class Transport(Protocol):
    """Whole CDP messages in and out; how they are framed is the transport's business."""

    async def send(self, message: str) -> None: ...

    async def receive(self) -> str:
        """The next message; raises TransportClosed once the other end has gone."""
        ...

    async def close(self) -> None: ...


class PipeTransport:
    """Chromium's ``--remote-debugging-pipe``: NUL-terminated JSON, one pipe each way."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        read_end: asyncio.BaseTransport,
        writer: asyncio.StreamWriter,
    ) -> None:
        self._reader = reader
        self._read_end = read_end
        self._writer = writer

    @classmethod
    async def open(cls, read_fd: int, write_fd: int) -> PipeTransport:
        """Take ownership of the parent's ends of the two pipes."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=_MAX_MESSAGE_BYTES)
        read_end, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
        )
        write_end, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()),
            os.fdopen(write_fd, "wb", buffering=0),
        )
        return cls(reader, read_end, asyncio.StreamWriter(write_end, protocol, None, loop))

    async def send(self, message: str) -> None:
        if self._writer.transport.is_closing():
            raise TransportClosed("the browser's pipe is closed")
        try:
            self._writer.write(message.encode() + b"\0")
            await self._writer.drain()
        except (ConnectionError, OSError) as exc:
            raise TransportClosed(f"writing to the browser's pipe failed: {exc}") from exc

    async def receive(self) -> str:
        try:
            data = await self._reader.readuntil(b"\0")
        except asyncio.IncompleteReadError:
            raise TransportClosed("the browser closed its pipe") from None
        except asyncio.LimitOverrunError:
            raise TransportClosed("the browser sent a message over the size limit") from None
        return data[:-1].decode("utf-8", "replace")

    async def close(self) -> None:
        self._writer.close()
        self._read_end.close()


class WebSocketTransport:
    """A browser endpoint on a loopback debugging port, for a browser actui did not start."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws

    @classmethod
    async def open(cls, url: str) -> WebSocketTransport:
        try:
            ws = await asyncio.wait_for(
                connect(
                    url,
                    max_size=_MAX_MESSAGE_BYTES,
                    compression=None,
                    proxy=None,
                    ping_interval=None,
                    open_timeout=CONNECT_TIMEOUT_S,
                ),
                CONNECT_TIMEOUT_S,
            )
        except (OSError, WebSocketException, TimeoutError) as exc:
            raise TargetGone(url, f"is not reachable over CDP ({exc})") from exc
        return cls(ws)

    async def send(self, message: str) -> None:
        try:
            await self._ws.send(message)
        except WebSocketException as exc:
            raise TransportClosed(str(exc)) from exc

    async def receive(self) -> str:
        try:
            raw = await self._ws.recv()
        except (WebSocketException, OSError) as exc:
            raise TransportClosed(str(exc) or "the browser closed the websocket") from exc
        return raw if isinstance(raw, str) else raw.decode("utf-8", "replace")

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._ws.close(), 1.0)


class CdpCommandError(ActuiError):
    """The browser answered a command with an error object."""

    code = "cdp_error"

    def __init__(self, method: str, error: Mapping[str, object]) -> None:
        super().__init__(f"{method} failed: {error.get('message', error)}")
        self.method = method
        self.cdp_code = int_of(error, "code", 0)

    @property
    def context_lost(self) -> bool:
        """The page's document (its JavaScript context) went away while the command ran."""
        return any(sign in self.message for sign in _CONTEXT_LOST)

    @property
    def context_unknown(self) -> bool:
        """The command named a context already gone, so it never ran."""
        return "Cannot find context with specified id" in self.message


_CONTEXT_LOST = ("Inspected target navigated or closed", "Execution context was destroyed")
"""How Chromium words a command whose document was replaced while it ran."""


class CdpConnection:
    """The browser's connection, alive until closed; target sessions ride on it.

    Listeners are called synchronously from the reader task with
    ``(method, params, session id)`` for every event; they must be quick and
    must not raise.
    """

    def __init__(self, transport: Transport, label: str) -> None:
        self._transport = transport
        self._label = label
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, str, asyncio.Future[JsonObject]]] = {}
        self._listeners: list[EventListener] = []
        self._closed_reason = ""
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())

    @property
    def closed(self) -> bool:
        return bool(self._closed_reason)

    def add_listener(self, listener: EventListener) -> Callable[[], None]:
        """Subscribe to every event; returns the function that unsubscribes."""
        return _subscribe(self._listeners, listener)

    async def send(
        self,
        method: str,
        params: Mapping[str, object] | None = None,
        *,
        timeout_s: float = COMMAND_TIMEOUT_S,
    ) -> JsonObject:
        """Run one browser-level command and return its result."""
        return await self.send_to("", method, params, timeout_s=timeout_s, label=self._label)

    async def send_to(
        self,
        session_id: str,
        method: str,
        params: Mapping[str, object] | None = None,
        *,
        timeout_s: float,
        label: str,
    ) -> JsonObject:
        """Run one command in a target session ("" for the browser); errors name ``label``."""
        if self._closed_reason:
            raise TargetGone(label, f"is gone ({self._closed_reason})")
        command_id = next(self._ids)
        future: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()
        self._pending[command_id] = (method, session_id, future)
        command: JsonObject = {"id": command_id, "method": method, "params": dict(params or {})}
        if session_id:
            command["sessionId"] = session_id
        try:
            async with asyncio.timeout(timeout_s):  # the write, too, can stall
                await self._transport.send(json.dumps(command))
                return await future
        except TimeoutError as exc:
            raise CallTimeout(
                f"{method} on {label} did not answer within {timeout_s:g} s."
            ) from exc
        except TransportClosed as exc:
            raise TargetGone(label, f"is gone ({exc})") from exc
        finally:
            self._pending.pop(command_id, None)

    async def attach(self, target_id: str, label: str) -> CdpSession:
        """A flattened session to ``target_id``; its child targets will share it."""
        reply = await self.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
        return CdpSession(self, str(reply["sessionId"]), label)

    def fail_pending(
        self, error: Callable[[str], ActuiError | None], sessions: Collection[str]
    ) -> None:
        """Fail the commands in flight in ``sessions`` for which ``error(method)`` gives one.

        A late reply to a failed command is dropped.
        """
        for method, session_id, future in tuple(self._pending.values()):
            if session_id in sessions and not future.done():
                failure = error(method)
                if failure is not None:
                    future.set_exception(failure)

    async def close(self) -> None:
        self._fail_all("connection closed")
        self._reader.cancel()
        await self._transport.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader

    async def _read_loop(self) -> None:
        try:
            while True:
                self._dispatch(json.loads(await self._transport.receive()))
        except TransportClosed as exc:
            self._fail_all(f"connection closed: {exc}")
        except (ValueError, TypeError) as exc:
            self._fail_all(f"connection lost: {exc}")

    def _dispatch(self, message: JsonObject) -> None:
        if "id" in message:
            entry = self._pending.get(int_of(message, "id"))
            if entry is None or entry[2].done():
                return
            method, _, future = entry
            if "error" in message:
                future.set_exception(CdpCommandError(method, obj_of(message, "error")))
            else:
                future.set_result(obj_of(message, "result"))
            return
        method = str(message.get("method", ""))
        params = obj_of(message, "params")
        session_id = str(message.get("sessionId", ""))
        for listener in tuple(self._listeners):
            listener(method, params, session_id)

    def _fail_all(self, reason: str) -> None:
        if not self._closed_reason:
            self._closed_reason = reason
            for listener in tuple(self._listeners):
                listener("actui.closed", {"reason": reason}, "")
        for method, _, future in self._pending.values():
            if not future.done():
                future.set_exception(TargetGone(self._label, f"is gone ({reason} during {method})"))


class CdpSession:
    """One target attached in flatten mode, with the child sessions it auto-attached.

    Reads like a connection of its own: listeners see the target's events with
    session id "" and its children's (out-of-process frames) with theirs; a
    gate holds back this target's commands only, so a page blocked by a dialog
    never holds up another page.
    """

    def __init__(self, conn: CdpConnection, session_id: str, label: str) -> None:
        self.conn = conn
        self.session_id = session_id
        self._label = label
        self._sessions = {session_id}
        self._listeners: list[EventListener] = []
        self._gate: Gate | None = None
        self._closed_reason = ""
        self._unsubscribe = conn.add_listener(self._route)

    @property
    def closed(self) -> bool:
        return bool(self._closed_reason)

    def add_listener(self, listener: EventListener) -> Callable[[], None]:
        """Subscribe to this target's and its children's events; returns the unsubscriber."""
        return _subscribe(self._listeners, listener)

    async def send(
        self,
        method: str,
        params: Mapping[str, object] | None = None,
        *,
        timeout_s: float = COMMAND_TIMEOUT_S,
        session_id: str = "",
    ) -> JsonObject:
        """Run one command on the target (on a child session when ``session_id``)."""
        if self._closed_reason:
            raise TargetGone(self._label, f"is gone ({self._closed_reason})")
        refused = self._gate(method) if self._gate is not None else None
        if refused is not None:
            raise refused
        return await self.conn.send_to(
            session_id or self.session_id, method, params, timeout_s=timeout_s, label=self._label
        )

    def set_gate(self, gate: Gate | None) -> None:
        """Refuse commands up front while ``gate`` says so (None lets all through)."""
        self._gate = gate

    def fail_pending(self, error: Callable[[str], ActuiError | None]) -> None:
        """Fail this target's commands in flight for which ``error(method)`` gives an error.

        For a page that stopped answering for a known reason (a modal dialog
        blocks its renderer): their callers learn why now, not at their timeout.
        """
        self.conn.fail_pending(error, self._sessions)

    async def close(self) -> None:
        """Detach from the target (the browser keeps it) and stop listening."""
        attached = not self._closed_reason
        self._end("session closed")
        self._unsubscribe()
        if attached and not self.conn.closed:
            with contextlib.suppress(ActuiError):
                await self.conn.send_to(
                    "",
                    "Target.detachFromTarget",
                    {"sessionId": self.session_id},
                    timeout_s=_DETACH_TIMEOUT_S,
                    label=self._label,
                )

    def _route(self, method: str, params: JsonObject, session_id: str) -> None:
        if session_id in self._sessions:
            child = str(params.get("sessionId", ""))
            if method == "Target.attachedToTarget" and child:
                self._sessions.add(child)
            elif method == "Target.detachedFromTarget" and child != self.session_id:
                self._sessions.discard(child)
            self._deliver(method, params, "" if session_id == self.session_id else session_id)
        elif not session_id and (
            method == "actui.closed"
            or (
                method == "Target.detachedFromTarget" and params.get("sessionId") == self.session_id
            )
        ):
            self._end(str(params.get("reason") or "the target was closed"))

    def _deliver(self, method: str, params: JsonObject, session_id: str) -> None:
        for listener in tuple(self._listeners):
            listener(method, params, session_id)

    def _end(self, reason: str) -> None:
        if self._closed_reason:
            return
        self._closed_reason = reason
        self._deliver("actui.closed", {"reason": reason}, "")
        self.conn.fail_pending(
            lambda method: TargetGone(self._label, f"is gone ({reason} during {method})"),
            self._sessions,
        )


class CdpChannel:
    """Commands to one session of a target: the target itself, or a flattened child.

    Child targets (out-of-process frames) share their page's session routing;
    their commands carry their own ``sessionId``. Events are filtered by the
    listener.
    """

    def __init__(self, conn: CdpSession, session_id: str = "") -> None:
        self.conn = conn
        self.session_id = session_id

    async def send(
        self,
        method: str,
        params: Mapping[str, object] | None = None,
        *,
        timeout_s: float = COMMAND_TIMEOUT_S,
    ) -> JsonObject:
        return await self.conn.send(method, params, timeout_s=timeout_s, session_id=self.session_id)


def _subscribe(listeners: list[EventListener], listener: EventListener) -> Callable[[], None]:
    """Add ``listener``; returns the function that removes it (a second call does nothing)."""
    listeners.append(listener)

    def remove() -> None:
        with contextlib.suppress(ValueError):
            listeners.remove(listener)

    return remove
