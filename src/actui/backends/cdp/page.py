"""One attached page: its persistent connection, its change counter and its console ring.

This module owns what a page session *observes*: which CDP domains are on,
the watcher script that reports DOM mutations, input, focus and scroll from an
isolated world (so page scripts cannot see or break it), load and navigation
events, the last 20 console messages, and whether the page is still there. It
must not build trees or deliver input.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
from collections.abc import Mapping
from typing import Any

from actui.backends.cdp.connection import CdpConnection, JsonObject
from actui.errors import TargetGone

CONSOLE_CAP = 20
WORLD_NAME = "__actui"
BINDING = "__actuiChanged"
_CONSOLE_TEXT_CAP = 500

# Coalesces bursts into one binding call per microtask checkpoint; the kind
# letter tells mutations (m), input/change (i), focus (f), scroll (s) and
# selection (c) apart.
_WATCHER = f"""(() => {{
  if (globalThis.__actuiWatching) return;
  globalThis.__actuiWatching = true;
  const pending = new Set();
  const fire = (kind) => {{
    if (pending.has(kind)) return;
    pending.add(kind);
    queueMicrotask(() => {{ pending.delete(kind); {BINDING}(kind); }});
  }};
  new MutationObserver(() => fire('m')).observe(document, {{
    subtree: true, childList: true, attributes: true, characterData: true }});
  for (const t of ['input', 'change']) document.addEventListener(t, () => fire('i'), true);
  document.addEventListener('focusin', () => fire('f'), true);
  document.addEventListener('scroll', () => fire('s'), true);
  document.addEventListener('selectionchange', () => fire('c'), true);
}})()"""

# Events that say the page as a whole moved on (counted as "n").
_NAVIGATION_EVENTS = frozenset(
    {
        "Page.frameNavigated",
        "Page.navigatedWithinDocument",
        "Page.loadEventFired",
        "Page.domContentEventFired",
    }
)


class PageSession:
    """A page target attached over one websocket, counting the changes it sees."""

    def __init__(self, target_id: str, conn: CdpConnection) -> None:
        self.target_id = target_id
        self.conn = conn
        self.counts: collections.Counter[str] = collections.Counter()
        self.documents = 0
        """How many times the main frame loaded a new document (navigations)."""
        self._changed = asyncio.Event()
        self._console: collections.deque[str] = collections.deque(maxlen=CONSOLE_CAP)
        self._loads: list[asyncio.Future[None]] = []
        self._gone_reason = ""
        conn.add_listener(self._on_event)

    @classmethod
    async def attach(cls, target_id: str, ws_url: str) -> PageSession:
        conn = await CdpConnection.open(ws_url, f"page {target_id}")
        session = cls(target_id, conn)
        try:
            await session._enable()
        except BaseException:
            await conn.close()
            raise
        return session

    async def _enable(self) -> None:
        send = self.conn.send
        # Focus emulation: a headless or background page never has window focus,
        # so without it `focus`/`blur` events never fire on the page's elements.
        await asyncio.gather(
            send("Page.enable"),
            send("Runtime.enable"),
            send("Emulation.setFocusEmulationEnabled", {"enabled": True}),
        )
        await send("Runtime.addBinding", {"name": BINDING, "executionContextName": WORLD_NAME})
        await send(
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": _WATCHER, "worldName": WORLD_NAME, "runImmediately": True},
        )

    @property
    def mark(self) -> int:
        return sum(self.counts.values())

    @property
    def gone(self) -> bool:
        return bool(self._gone_reason)

    def check_alive(self) -> None:
        if self._gone_reason:
            raise TargetGone(f"The page cdp:{self.target_id} is gone ({self._gone_reason}).")

    async def wait_for_change(self, since: int, timeout_s: float) -> int:
        """Wake on the first counted event after ``since`` (or at the timeout)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, timeout_s)
        while self.mark <= since and not self._gone_reason:
            self._changed.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return self.mark

    def expect_load(self) -> asyncio.Future[None]:
        """A future resolved by the next load event (frames included).

        Register it before the command that causes the load, so a fast load
        is never missed.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._loads.append(future)
        return future

    def drain_console(self) -> tuple[str, ...]:
        items = tuple(self._console)
        self._console.clear()
        return items

    async def close(self) -> None:
        await self.conn.close()

    def _bump(self, kind: str) -> None:
        self.counts[kind] += 1
        self._changed.set()

    def _on_event(self, method: str, params: JsonObject) -> None:
        if method == "Runtime.bindingCalled" and params.get("name") == BINDING:
            self._bump(str(params.get("payload", "m"))[:1] or "m")
        elif method in _NAVIGATION_EVENTS:
            self._bump("n")
            frame = params.get("frame")
            main_frame = isinstance(frame, dict) and not frame.get("parentId")
            if method == "Page.frameNavigated" and main_frame:
                self.documents += 1
            if method == "Page.loadEventFired":
                loads, self._loads = self._loads, []
                for future in loads:
                    if not future.done():
                        future.set_result(None)
        elif method == "Runtime.consoleAPICalled":
            self._console.append(_console_line(params))
        elif method == "Runtime.exceptionThrown":
            self._console.append(_exception_line(params.get("exceptionDetails", {})))
        elif method in ("Inspector.detached", "Inspector.targetCrashed", "actui.closed"):
            self._gone_reason = str(params.get("reason") or method)
            self._bump("n")


def _console_line(params: Mapping[str, Any]) -> str:
    parts = [_remote_text(arg) for arg in params.get("args", ())]
    return f"{params.get('type', 'log')}: {' '.join(parts)}"[:_CONSOLE_TEXT_CAP]


def _exception_line(details: Mapping[str, Any]) -> str:
    return f"exception: {exception_text(details)}"[:_CONSOLE_TEXT_CAP]


def exception_text(details: Mapping[str, Any]) -> str:
    """The thrown error's own message when there is one, else CDP's summary."""
    exception = details.get("exception") or {}
    described = str(exception.get("description") or "").split("\n", 1)[0]
    if described:
        return described
    if "value" in exception:
        return json.dumps(exception["value"])
    return str(details.get("text") or "exception")


def _remote_text(arg: Mapping[str, Any]) -> str:
    if "value" in arg:
        value = arg["value"]
        return value if isinstance(value, str) else json.dumps(value)
    return str(arg.get("description") or arg.get("unserializableValue") or arg.get("type", ""))
