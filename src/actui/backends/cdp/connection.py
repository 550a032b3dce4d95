"""One persistent CDP websocket: numbered commands, per-command timeouts, event dispatch.

This module owns the wire: sending ``{id, method, params}``, matching replies
to callers, fanning events out to listeners, and turning transport failures
into :mod:`actui.errors`. It must not know what any CDP domain means.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable, Mapping
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from actui.errors import ActuiError, CallTimeout, TargetGone

COMMAND_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 5.0
_MAX_MESSAGE_BYTES = 512 * 1024 * 1024

JsonObject = dict[str, Any]
EventListener = Callable[[str, JsonObject], None]


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
    ``(method, params)``; they must be quick and must not raise.
    """

    def __init__(self, ws: ClientConnection, label: str) -> None:
        self._ws = ws
        self._label = label
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, asyncio.Future[JsonObject]]] = {}
        self._listeners: list[EventListener] = []
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
    ) -> JsonObject:
        """Run one command and return its result, or raise a clear error."""
        if self._closed_reason:
            raise TargetGone(f"{self._label} is gone ({self._closed_reason}).")
        command_id = next(self._ids)
        future: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()
        self._pending[command_id] = (method, future)
        message = json.dumps({"id": command_id, "method": method, "params": dict(params or {})})
        try:
            await self._ws.send(message)
            return await asyncio.wait_for(future, timeout_s)
        except TimeoutError as exc:
            raise CallTimeout(
                f"{method} on {self._label} did not answer within {timeout_s:g} s."
            ) from exc
        except WebSocketException as exc:
            raise TargetGone(f"{self._label} is gone ({exc}).") from exc
        finally:
            self._pending.pop(command_id, None)

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
        for listener in tuple(self._listeners):
            listener(method, params)

    def _fail_all(self, reason: str) -> None:
        if not self._closed_reason:
            self._closed_reason = reason
            for listener in tuple(self._listeners):
                listener("actui.closed", {"reason": reason})
        for method, future in self._pending.values():
            if not future.done():
                future.set_exception(TargetGone(f"{self._label} is gone ({reason}); {method}."))
