"""One attached page: its persistent connection, its change counter and its console ring.

This module owns what a page session *observes*: which CDP domains are on,
the watcher script that reports DOM mutations, input, focus and scroll from an
isolated world (so page scripts cannot see or break it), load and navigation
events, the out-of-process frames attached to the page (cross-site iframes,
each a flattened child session of the page's session, watched the same way),
the last 20 console messages, an open JavaScript dialog (which blocks
the page: commands are refused at once until it is answered), and whether the
page is still there. It must not build trees or deliver input.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass

from actui.backends.base import JsonObject, Rect
from actui.backends.cdp import dom
from actui.backends.cdp.connection import (
    CdpChannel,
    CdpCommandError,
    CdpConnection,
    CdpSession,
    Sender,
)
from actui.backends.cdp.dialog import Dialog, refuses
from actui.backends.reads import int_of, numbers_of, obj_of, objs_of
from actui.deadlines import Deadline
from actui.errors import PageNavigated, TargetGone

_LAST_WORD_S = 0.5
"""How long an evaluation whose document went may still send its error reply."""

CONSOLE_CAP = 20
DIALOG_CLOSE_TIMEOUT_S = 3.0
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


@dataclass(frozen=True)
class Element:
    """A DOM node to act on: the session that owns it and where its frame sits.

    ``offset`` maps the frame's viewport CSS pixels to the page's, where
    mouse events are dispatched (zero outside out-of-process frames).
    """

    channel: Sender
    node: int
    offset: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class FrameTarget:
    """An out-of-process frame: its target id (= its frame id) and its session."""

    target_id: str
    channel: CdpChannel
    parent_session: str
    """The session the frame's owner element lives in ("" for the page itself)."""


class PageSession:
    """A page target attached as one session of the browser's connection, counting the
    changes it sees."""

    def __init__(self, target_id: str, conn: CdpSession) -> None:
        self.target_id = target_id
        self.conn = conn
        self.counts: collections.Counter[str] = collections.Counter()
        self.documents = 0
        """How many times the main frame loaded a new document (navigations)."""
        self._changed = asyncio.Event()
        self._console: collections.deque[str] = collections.deque(maxlen=CONSOLE_CAP)
        self._loads: list[asyncio.Future[None]] = []
        self._context: int | None = None
        """The main frame's default JavaScript context, while its document lives."""
        self._context_known = asyncio.Event()
        self._context_ends: dict[int, list[asyncio.Future[None]]] = {}
        """Evaluations running in each context, woken when it is destroyed."""
        self._gone_reason = ""
        self.dialog: Dialog | None = None
        """The JavaScript dialog blocking the page, if one is open."""
        self.viewport: Rect | None = None
        """The layout viewport as last measured (a blocked page cannot be asked)."""
        self._dialog_closed: list[asyncio.Future[None]] = []
        self.frames: dict[str, FrameTarget] = {}
        """Attached out-of-process frames by target id, in attach order."""
        self._frame_tasks: set[asyncio.Task[None]] = set()
        conn.add_listener(self._on_event)

    @classmethod
    async def attach(cls, target_id: str, browser: CdpConnection) -> PageSession:
        conn = await browser.attach(target_id, f"page {target_id}")
        session = cls(target_id, conn)
        try:
            await session._enable()
        except BaseException:
            await conn.close()
            raise
        return session

    async def _enable(self) -> None:
        await self._watch(CdpChannel(self.conn), focus=True)

    async def _watch(self, channel: CdpChannel, *, focus: bool = False) -> None:
        """Turn on the domains and the watcher in the page or in one of its frames."""
        send = channel.send
        # Focus emulation: a headless or background page never has window focus,
        # so without it `focus`/`blur` events never fire on the page's elements.
        await asyncio.gather(
            send("Page.enable"),
            send("Runtime.enable"),
            *([send("Emulation.setFocusEmulationEnabled", {"enabled": True})] if focus else []),
        )
        await send("Runtime.addBinding", {"name": BINDING, "executionContextName": WORLD_NAME})
        await send(
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": _WATCHER, "worldName": WORLD_NAME, "runImmediately": True},
        )
        # Cross-site iframes live in other renderers; attach them (and theirs).
        await send(
            "Target.setAutoAttach",
            {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True},
        )

    @property
    def mark(self) -> int:
        return sum(self.counts.values())

    @property
    def gone(self) -> bool:
        return bool(self._gone_reason)

    def check_alive(self) -> None:
        if self._gone_reason:
            raise TargetGone(f"The page cdp:{self.target_id}", f"is gone ({self._gone_reason})")

    async def wait_for_change(self, since: int, timeout_s: float) -> int:
        """Wake on the first counted event after ``since`` (or at the timeout)."""
        deadline = Deadline(timeout_s)
        while self.mark <= since and not self._gone_reason:
            self._changed.clear()
            remaining = deadline.left()
            if remaining <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return self.mark

    async def element(self, native_id: str) -> Element:
        """The node behind a snapshot's native id, with the session to reach it."""
        frame_id, node = dom.parse_id(native_id)
        if not frame_id:
            return Element(self.conn, node)
        frame = self.frames.get(frame_id)
        if frame is None:
            raise TargetGone(f"{native_id}:", "its frame is no longer attached", then="observe_ui")
        return Element(frame.channel, node, await self.frame_offset(frame_id))

    def channel_of(self, session_id: str) -> CdpChannel:
        return CdpChannel(self.conn, session_id)

    async def frame_owner(self, frame: FrameTarget) -> int:
        """The backend node id of the iframe element holding ``frame``, in its parent."""
        reply = await self.channel_of(frame.parent_session).send(
            "DOM.getFrameOwner", {"frameId": frame.target_id}
        )
        return int_of(reply, "backendNodeId")

    async def frame_offset(self, target_id: str) -> tuple[float, float]:
        """Where the frame's viewport starts, in the page's viewport CSS pixels."""
        frame = self.frames[target_id]
        owner = await self.frame_owner(frame)
        parent = self.channel_of(frame.parent_session)
        reply = await parent.send("DOM.getBoxModel", {"backendNodeId": owner})
        content = numbers_of(obj_of(reply, "model", required=True), "content", required=True)
        x, y = content[0], content[1]
        grand = next(
            (f for f in self.frames.values() if f.channel.session_id == frame.parent_session),
            None,
        )
        if grand is not None:
            dx, dy = await self.frame_offset(grand.target_id)
            x, y = x + dx, y + dy
        return (x, y)

    async def release(self) -> None:
        """Drop the JS handles an action took (skipped while a dialog blocks the page)."""
        if self.dialog is None and not self.gone:
            for channel in (CdpChannel(self.conn), *(f.channel for f in self.frames.values())):
                with contextlib.suppress(TargetGone, CdpCommandError):
                    await dom.release(channel)

    def expect_load(self) -> asyncio.Future[None]:
        """A future resolved by the next load event (frames included).

        Register it before the command that causes the load, so a fast load
        is never missed.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._loads.append(future)
        return future

    async def evaluate(self, params: JsonObject, timeout_s: float) -> JsonObject:
        """``Runtime.evaluate`` in the main frame's current document.

        The command names the document's context, so Chromium cannot run it in the
        next one. A command that reached a context already destroyed never ran, and
        is sent once more to the new one; a document replaced while the script ran
        (Chromium then drops an awaited promise without an answer) raises
        :class:`PageNavigated`: its value is lost and its effects are unknown.
        """
        for _ in range(2):
            self.check_alive()
            context = await self._document_context(timeout_s)
            try:
                return await self._evaluate_in(context, params, timeout_s)
            except CdpCommandError as exc:
                if not exc.context_unknown:
                    raise
        raise PageNavigated(f"The page cdp:{self.target_id}")

    async def _document_context(self, timeout_s: float) -> int | None:
        """The main frame's default JavaScript context, waiting while a new document
        has none yet (None: none came within ``timeout_s``; let Chromium pick)."""
        if self._context is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._context_known.wait(), timeout_s)
        return self._context

    async def _evaluate_in(
        self, context: int | None, params: JsonObject, timeout_s: float
    ) -> JsonObject:
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if context is not None:
            self._context_ends.setdefault(context, []).append(ended)
            params = {**params, "contextId": context}
        answer = asyncio.ensure_future(
            self.conn.send("Runtime.evaluate", params, timeout_s=timeout_s + 1.0)
        )
        try:
            await asyncio.wait((answer, ended), return_when=asyncio.FIRST_COMPLETED)
            if not answer.done():  # the document went first; an error reply may follow
                await asyncio.wait((answer,), timeout=_LAST_WORD_S)
        finally:
            ended.cancel()
            if not answer.done():
                answer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await answer
        if answer.cancelled():
            raise PageNavigated(f"The page cdp:{self.target_id}")
        try:
            return answer.result()
        except CdpCommandError as exc:
            if exc.context_lost:
                raise PageNavigated(f"The page cdp:{self.target_id}") from None
            raise

    async def answer_dialog(self, accept: bool) -> bool:
        """Press OK (``accept``) or Cancel on the open dialog; True once it closed."""
        dialog = self.dialog
        if dialog is None:
            return False
        closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._dialog_closed.append(closed)
        params: JsonObject = {"accept": accept}
        if dialog.kind == "prompt" and accept:
            params["promptText"] = dialog.prompt_text
        await self.conn.send("Page.handleJavaScriptDialog", params)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(closed, DIALOG_CLOSE_TIMEOUT_S)
        return self.dialog is None

    def drain_console(self) -> tuple[str, ...]:
        items = tuple(self._console)
        self._console.clear()
        return items

    async def close(self) -> None:
        for task in self._frame_tasks:
            task.cancel()
        await self.conn.close()

    def _frame_attached(self, params: JsonObject, parent_session: str) -> None:
        info = obj_of(params, "targetInfo")
        session_id = str(params.get("sessionId", ""))
        if info.get("type") != "iframe" or not session_id:
            return
        channel = CdpChannel(self.conn, session_id)
        self.frames[str(info.get("targetId"))] = FrameTarget(
            str(info.get("targetId")), channel, parent_session
        )

        async def watch() -> None:
            with contextlib.suppress(Exception):  # a frame that left at once is no loss
                await self._watch(channel)
            if params.get("waitingForDebugger"):
                with contextlib.suppress(Exception):
                    await channel.send("Runtime.runIfWaitingForDebugger")
            self._bump("n")

        task = asyncio.get_running_loop().create_task(watch())
        self._frame_tasks.add(task)
        task.add_done_callback(self._frame_tasks.discard)

    def _frame_detached(self, params: JsonObject) -> None:
        gone = str(params.get("sessionId", ""))
        for target_id, frame in tuple(self.frames.items()):
            if frame.channel.session_id == gone:
                del self.frames[target_id]
                self._bump("n")

    def _bump(self, kind: str) -> None:
        self.counts[kind] += 1
        self._changed.set()

    def _context_event(self, method: str, params: JsonObject) -> None:
        """Follow the main frame's default context: created with each document, destroyed
        (or all cleared) when the document goes."""
        if method == "Runtime.executionContextCreated":
            created = obj_of(params, "context")
            aux = obj_of(created, "auxData")
            if aux.get("isDefault") and aux.get("frameId") == self.target_id:
                self._context = int_of(created, "id")
                self._context_known.set()
            return
        if method == "Runtime.executionContextDestroyed":
            gone = [int_of(params, "executionContextId", -1)]
        elif method == "Runtime.executionContextsCleared":
            gone = list(self._context_ends)
            self._context = None
        else:
            return
        if self._context in gone:
            self._context = None
        if self._context is None:
            self._context_known.clear()
        for context in gone:
            for future in self._context_ends.pop(context, []):
                if not future.done():
                    future.set_result(None)

    def _dialog_opened(self, params: JsonObject) -> None:
        dialog = self.dialog = Dialog.from_event(params)
        self._console.append(f"dialog: {dialog.kind} {dialog.message!r}"[:_CONSOLE_TEXT_CAP])
        self.conn.set_gate(lambda method: refuses(dialog, method))
        self.conn.fail_pending(lambda method: refuses(dialog, method))
        self._bump("d")

    def _dialog_gone(self) -> None:
        self.dialog = None
        self.conn.set_gate(None)
        waiters, self._dialog_closed = self._dialog_closed, []
        for future in waiters:
            if not future.done():
                future.set_result(None)
        self._bump("d")

    def _on_event(self, method: str, params: JsonObject, session_id: str) -> None:
        if method == "Target.attachedToTarget":
            self._frame_attached(params, session_id)
        elif method == "Target.detachedFromTarget":
            self._frame_detached(params)
        elif method == "Page.javascriptDialogOpening":
            self._dialog_opened(params)
        elif method == "Page.javascriptDialogClosed":
            self._dialog_gone()
        elif method == "Runtime.bindingCalled" and params.get("name") == BINDING:
            self._bump(str(params.get("payload", "m"))[:1] or "m")
        elif method in _NAVIGATION_EVENTS:
            self._bump("n")
            frame = params.get("frame")
            main_frame = isinstance(frame, dict) and not frame.get("parentId") and not session_id
            if method == "Page.frameNavigated" and main_frame:
                self.documents += 1
            if method == "Page.loadEventFired" and not session_id:
                loads, self._loads = self._loads, []
                for future in loads:
                    if not future.done():
                        future.set_result(None)
        elif method.startswith("Runtime.executionContext"):
            if not session_id:
                self._context_event(method, params)
        elif method == "Runtime.consoleAPICalled":
            self._console.append(_console_line(params))
        elif method == "Runtime.exceptionThrown":
            self._console.append(_exception_line(obj_of(params, "exceptionDetails")))
        elif session_id:
            return
        elif method in ("Inspector.detached", "Inspector.targetCrashed", "actui.closed"):
            self._gone_reason = str(params.get("reason") or method)
            self._context_known.set()  # no document will come: wake who waits for one
            self._bump("n")


def _console_line(params: Mapping[str, object]) -> str:
    parts = [_remote_text(arg) for arg in objs_of(params, "args")]
    return f"{params.get('type', 'log')}: {' '.join(parts)}"[:_CONSOLE_TEXT_CAP]


def _exception_line(details: Mapping[str, object]) -> str:
    return f"exception: {exception_text(details)}"[:_CONSOLE_TEXT_CAP]


def exception_text(details: Mapping[str, object]) -> str:
    """The thrown error's own message when there is one, else CDP's summary."""
    exception = obj_of(details, "exception")
    described = str(exception.get("description") or "").split("\n", 1)[0]
    if described:
        return described
    if "value" in exception:
        return json.dumps(exception["value"])
    return str(details.get("text") or "exception")


def _remote_text(arg: Mapping[str, object]) -> str:
    if "value" in arg:
        value = arg["value"]
        return value if isinstance(value, str) else json.dumps(value)
    return str(arg.get("description") or arg.get("unserializableValue") or arg.get("type", ""))
