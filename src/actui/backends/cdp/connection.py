"""One persistent CDP websocket: numbered commands, per-command timeouts, event dispatch.

This module owns the wire: sending ``{id, method, params}`` (optionally to a
flattened child session), matching replies to callers, fanning events out to
listeners, holding commands back behind a caller-set gate, and turning
transport failures into :mod:`actui.errors`. It must not know what any CDP
domain means.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from actui.errors import ActuiError, CallTimeout, TargetGone

COMMAND_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 5.0
_MAX_MESSAGE_BYTES = 512 * 1024 * 1024

JsonObject = dict[str, Any]
EventListener = Callable[[str, JsonObject, str], None]
"""Called with ``(method, params, session id)``; the id is "" for the target itself."""
Gate = Callable[[str], ActuiError | None]
"""Given a method about to be sent, the error to raise instead (None lets it pass)."""


class Sender(Protocol):
    """Anything commands can be sent to: a connection or one of its sessions."""

    async def send(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout_s: float = COMMAND_TIMEOUT_S,
    ) -> JsonObject: ...


class CdpCommandError(ActuiError):
    """The browser answered a command with an error object."""

    code = "cdp_error"

    def __init__(self, method: str, error: Mapping[str, Any]) -> None:
        super().__init__(f"{method} failed: {error.get('message', error)}")
        self.method = method
        self.cdp_code = int(error.get("code", 0))


class CdpConnection:
    """A websocket to one target (a page or the browser), alive until closed.

    Listeners are called synchronously from the reader task with
    ``(method, params, session id)``; they must be quick and must not raise.
    """

    def __init__(self, ws: ClientConnection, label: str) -> None:
        self._ws = ws
        self._label = label
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, asyncio.Future[JsonObject]]] = {}
        self._listeners: list[EventListener] = []
        self._gate: Gate | None = None
        self._closed_reason = ""
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def open(cls, url: str, label: str) -> CdpConnection:
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
            raise TargetGone(f"{label} is not reachable over CDP ({exc}).") from exc
        return cls(ws, label)

    @property
    def closed(self) -> bool:
        return bool(self._closed_reason)

    def add_listener(self, listener: EventListener) -> Callable[[], None]:
        """Subscribe to every event; returns the function that unsubscribes."""
        self._listeners.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return remove

    async def send(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout_s: float = COMMAND_TIMEOUT_S,
        session_id: str = "",
    ) -> JsonObject:
        """Run one command (on a child session when ``session_id``) and return its result."""
        if self._closed_reason:
            raise TargetGone(f"{self._label} is gone ({self._closed_reason}).")
        refused = self._gate(method) if self._gate is not None else None
        if refused is not None:
            raise refused
        command_id = next(self._ids)
        future: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()
        self._pending[command_id] = (method, future)
        command: JsonObject = {"id": command_id, "method": method, "params": dict(params or {})}
        if session_id:
            command["sessionId"] = session_id
        message = json.dumps(command)
        try:
            async with asyncio.timeout(timeout_s):  # the write, too, can stall
                await self._ws.send(message)
                return await future
        except TimeoutError as exc:
            raise CallTimeout(
                f"{method} on {self._label} did not answer within {timeout_s:g} s."
            ) from exc
        except WebSocketException as exc:
            raise TargetGone(f"{self._label} is gone ({exc}).") from exc
        finally:
            self._pending.pop(command_id, None)

    def set_gate(self, gate: Gate | None) -> None:
        """Refuse commands up front while ``gate`` says so (None lets all through)."""
        self._gate = gate

    def fail_pending(self, error: Callable[[str], ActuiError | None]) -> None:
        """Fail the commands in flight for which ``error(method)`` gives an error.

        For a page that stopped answering for a known reason (a modal dialog
        blocks its renderer): their callers learn why now, not at their timeout.
        A late reply to a failed command is dropped.
        """
        for method, future in tuple(self._pending.values()):
            failure = error(method)
            if failure is not None and not future.done():
                future.set_exception(failure)

    async def close(self) -> None:
        self._fail_all("connection closed")
        self._reader.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._ws.close(), 1.0)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader

    async def _read_loop(self) -> None:
        try:
            async for raw in self._ws:
                self._dispatch(json.loads(raw))
        except (WebSocketException, OSError, ValueError) as exc:
            self._fail_all(f"connection lost: {exc}")
            return
        self._fail_all("connection closed by the browser")

    def _dispatch(self, message: JsonObject) -> None:
        if "id" in message:
            entry = self._pending.get(int(message["id"]))
            if entry is None or entry[1].done():
                return
            method, future = entry
            if "error" in message:
                future.set_exception(CdpCommandError(method, message["error"]))
            else:
                future.set_result(message.get("result", {}))
            return
        method = str(message.get("method", ""))
        params = message.get("params", {})
        session_id = str(message.get("sessionId", ""))
        for listener in tuple(self._listeners):
            listener(method, params, session_id)

    def _fail_all(self, reason: str) -> None:
        if not self._closed_reason:
            self._closed_reason = reason
            for listener in tuple(self._listeners):
                listener("actui.closed", {"reason": reason}, "")
        for method, future in self._pending.values():
            if not future.done():
                future.set_exception(TargetGone(f"{self._label} is gone ({reason}); {method}."))


class CdpChannel:
    """Commands to one session of a connection: the target itself, or a flattened child.

    Child targets (out-of-process frames) share their page's websocket; their
    commands carry a ``sessionId``. Events are filtered by the listener.
    """

    def __init__(self, conn: CdpConnection, session_id: str = "") -> None:
        self.conn = conn
        self.session_id = session_id

    async def send(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout_s: float = COMMAND_TIMEOUT_S,
    ) -> JsonObject:
        return await self.conn.send(method, params, timeout_s=timeout_s, session_id=self.session_id)
