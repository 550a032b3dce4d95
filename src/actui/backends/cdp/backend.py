"""``CdpBackend``: Chromium pages as roots, over one persistent connection per page.

This module composes the pieces (launch, connection, page sessions, AX tree,
layout, actions) into the backend seam, and adds the browser-only operations
the runtime calls directly (launch, navigate, evaluate, console). It owns the
browser's lifetime: ``close()`` asks Chromium to close (``Browser.close``),
kills what is left and deletes its profile. It
must not know about refs, folding or the agent.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import replace

from actui.backends.base import (
    ActionRequest,
    ActionResult,
    Image,
    JsonObject,
    RawNode,
    Rect,
    RootInfo,
    Snapshot,
    TextSlice,
)
from actui.backends.browsing import BrowserBackend, EvalResult
from actui.backends.cdp import actions, dom
from actui.backends.cdp.axtree import BuiltTree, build_tree
from actui.backends.cdp.connection import CdpCommandError, CdpConnection, WebSocketTransport
from actui.backends.cdp.dialog import Dialog, dialog_tree
from actui.backends.cdp.launch import READY_DEADLINE_S, BrowserProcess, spawn, wants_headed
from actui.backends.cdp.layout import SNAPSHOT_PARAMS, parse_snapshot
from actui.backends.cdp.page import FrameTarget, PageSession, exception_text
from actui.backends.reads import int_of, list_of, obj_of, objs_of, text_of
from actui.deadlines import Deadline, poll
from actui.errors import (
    ActuiError,
    BackendUnavailable,
    BrowserSilent,
    CallTimeout,
    DialogOpen,
    SecureTextUnreadable,
    StepTimeout,
    TargetGone,
    UnsupportedAction,
)

_SNAPSHOT_TIMEOUT_S = 15.0
_CLOSE_TIMEOUT_S = 2.0
_REAP_WAIT_S = 2.0
FIRST_PAGE_S = 15.0
FIRST_PAGE_POLL_S = 0.05
"""How long, and how often, a started Chromium is listed until it shows its first page."""
"""How long a browser whose pipe closed is given to be reaped, so that the notice of
its death can say how it ended (the pipe closes as the process dies, the exit
status arrives a moment later)."""


class CdpBackend(BrowserBackend):
    """One Chromium and the pages in it: one actui launched, or one it attached to.

    A launched browser is actui's: closing the backend closes it and removes
    its profile. An attached browser (``attach``) is someone else's, started
    with ``--remote-debugging-port``: closing only disconnects, and nothing of
    its profile is created or deleted.
    """

    name = "cdp"

    def __init__(self, *, env: Mapping[str, str] | None = None) -> None:
        self._env: Mapping[str, str] = dict(os.environ if env is None else env)
        self._browser: BrowserProcess | None = None
        self._browser_conn: CdpConnection | None = None
        self._sessions: dict[str, PageSession] = {}
        self._attach_lock = asyncio.Lock()
        self.endpoint: tuple[str, int] | None = None
        """The debugging endpoint of an attached browser; None for a launched one."""

    # -- browser lifetime -------------------------------------------------

    async def launch(self, url: str = "about:blank", *, headed: bool | None = None) -> RootInfo:
        """Start a fresh browser (replacing any earlier one) and open ``url`` in its page.

        ``url`` passed the contract's URL rule (``actui.urls``).
        """
        await self.close()
        browser = await spawn(self._env, headed=wants_headed(self._env, headed))
        try:
            self._browser = browser
            self._browser_conn = CdpConnection(browser.pipe, "the browser")
            await _answering(self._browser_conn, browser)
            root = await self._first_page()
            if url != "about:blank":
                root = await self.navigate(root, url)
            return root
        except BaseException:
            await self.close()
            raise

    async def attach(self, host: str, port: int) -> None:
        """Connect to a running browser's loopback (or configured) debugging port.

        Its page targets become roots with the same contract as launched pages.
        """
        if self.connected and self.endpoint == (host, port):
            return
        await self.close()
        url = await debugger_url(host, port)
        transport = await WebSocketTransport.open(url)
        self._browser_conn = CdpConnection(transport, f"the browser at {host}:{port}")
        self.endpoint = (host, port)

    @property
    def connected(self) -> bool:
        return self._browser_conn is not None and not self._browser_conn.closed

    async def _first_page(self) -> RootInfo:

        async def first() -> RootInfo | None:
            roots = await self.list_roots()
            return roots[0] if roots else None

        page = await poll(first, Deadline(FIRST_PAGE_S), FIRST_PAGE_POLL_S)
        if page is None:
            raise BackendUnavailable(
                f"Chromium started but opened no page within {FIRST_PAGE_S:g} s."
            )
        return page

    async def close(self) -> None:
        self.endpoint = None
        sessions, self._sessions = self._sessions, {}
        for session in sessions.values():
            await session.close()
        if self._browser_conn is not None:
            conn, self._browser_conn = self._browser_conn, None
            if self._browser is not None and self._browser.alive:
                with contextlib.suppress(ActuiError):  # it may exit before it answers
                    await conn.send("Browser.close", timeout_s=_CLOSE_TIMEOUT_S)
            await conn.close()
        if self._browser is not None:
            browser, self._browser = self._browser, None
            await browser.terminate()

    def notices(self) -> list[str]:
        ended = self._ended()
        return [ended] if ended else []

    def _ended(self) -> str:
        """Why the launched browser's pages are gone, or "" while it runs and answers.

        Its death is its own failure: the desktop's windows are listed as before.
        """
        browser, conn = self._browser, self._browser_conn
        if browser is None or conn is None:
            return ""
        if not browser.alive:
            how = browser.ending
        elif conn.closed:
            how = "closed its debugging pipe"
        else:
            return ""
        return (
            f"the browser actui launched {how}: its pages are gone; launch_browser starts a new one"
        )

    async def _settled_end(self) -> str:
        """:meth:`_ended`, once a browser whose pipe closed has been reaped (or not in time)."""
        browser, conn = self._browser, self._browser_conn
        if browser is not None and browser.alive and conn is not None and conn.closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(browser.process.wait(), _REAP_WAIT_S)
        return self._ended()

    @property
    def browser_process(self) -> BrowserProcess | None:
        return self._browser

    @property
    def browser_connection(self) -> CdpConnection | None:
        """The raw wire to the browser, for benchmarks that need a baseline."""
        return self._browser_conn

    # -- roots and sessions -----------------------------------------------

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        if self._browser_conn is None or pid not in (None, 0) or await self._settled_end():
            return []
        try:
            targets = await self._browser_conn.send("Target.getTargets")
        except TargetGone:
            if await self._settled_end():
                return []  # it died just now: the notice says so
            raise
        return [
            _root_info(str(t["targetId"]), text_of(t, "title"), text_of(t, "url"))
            for t in objs_of(targets, "targetInfos")
            if t.get("type") == "page"
        ]

    async def _session(self, root: RootInfo) -> PageSession:
        target_id = _target_id(root)
        session = self._sessions.get(target_id)
        if session is not None and not session.gone:
            return session
        async with self._attach_lock:
            session = self._sessions.get(target_id)
            if session is not None and not session.gone:
                return session
            ended = await self._settled_end()
            if ended:
                raise TargetGone(f"{root.native_id}:", ended)
            if self._browser_conn is None or self._browser_conn.closed:
                raise TargetGone(
                    f"{root.native_id}:", "the browser is not running", then="launch_browser"
                )
            if target_id not in {_target_id(r) for r in await self.list_roots()}:
                raise TargetGone(f"{root.native_id}:", "the page was closed")
            session = await PageSession.attach(target_id, self._browser_conn)
            self._sessions[target_id] = session
            return session

    def document_generation(self, root: RootInfo) -> int:
        session = self._sessions.get(_target_id(root))
        return session.documents if session is not None else 0

    def change_mark(self, root: RootInfo) -> int:
        session = self._sessions.get(_target_id(root))
        return 0 if session is None else session.mark

    async def wait_for_change(self, root: RootInfo, since: int, timeout_s: float) -> int:
        session = await self._session(root)
        return await session.wait_for_change(since, timeout_s)

    def waits_are_event_driven(self, root: RootInfo) -> bool:
        return True

    # -- observation ------------------------------------------------------

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        session = await self._session(root)
        session.check_alive()
        if session.dialog is not None:
            return _dialog_snapshot(root, session.dialog, session.viewport)
        send = session.conn.send
        started = time.perf_counter()
        frame_tree, dom_snapshot, metrics = await asyncio.gather(
            send("Page.getFrameTree"),
            send("DOMSnapshot.captureSnapshot", SNAPSHOT_PARAMS, timeout_s=_SNAPSHOT_TIMEOUT_S),
            send("Page.getLayoutMetrics"),
        )
        layout = parse_snapshot(dom_snapshot)
        del dom_snapshot  # it carries live input values; keep nothing of it
        laid_out = time.perf_counter()
        frame_ids = _frame_ids(obj_of(frame_tree, "frameTree", required=True))
        trees = await asyncio.gather(
            *(
                send("Accessibility.getFullAXTree", {"frameId": f}, timeout_s=_SNAPSHOT_TIMEOUT_S)
                for f in frame_ids
            ),
            return_exceptions=True,
        )
        frames = {
            f: objs_of(t, "nodes")
            for f, t in zip(frame_ids, trees, strict=True)
            if isinstance(t, dict)
        }
        if frame_ids[0] not in frames:
            session.check_alive()
            raise TargetGone(f"{root.native_id}:", f"the page did not answer ({trees[0]})")
        fetched = time.perf_counter()
        viewport = obj_of(metrics, "cssLayoutViewport")
        if viewport:
            session.viewport = Rect(
                0, 0, int_of(viewport, "clientWidth", 0), int_of(viewport, "clientHeight", 0)
            )
        built = build_tree(
            frames,
            frame_ids[0],
            layout,
            viewport=Rect(
                0, 0, int_of(viewport, "clientWidth", 0), int_of(viewport, "clientHeight", 0)
            )
            if viewport
            else None,
            max_nodes=max_nodes,
            max_depth=max_depth,
        )
        tree, node_count, truncated = built.tree, built.node_count, built.truncated
        if session.frames:
            grafts = await self._frame_trees(session, max_nodes - node_count, max_depth)
            tree = _graft(tree, {owner: sub.tree for owner, sub in grafts})
            node_count += sum(sub.node_count for _, sub in grafts)
            truncated = truncated or any(sub.truncated for _, sub in grafts)
        done = time.perf_counter()
        fresh = _root_info(_target_id(root), built.title, built.url or root.url)
        if viewport:
            fresh = replace(
                fresh,
                frame=Rect(
                    0, 0, int_of(viewport, "clientWidth", 0), int_of(viewport, "clientHeight", 0)
                ),
            )
        return Snapshot(
            root=fresh,
            tree=tree,
            captured_at=time.time(),
            node_count=node_count,
            truncated=truncated,
            source="cdp:Accessibility.getFullAXTree",
            timings_ms={
                "layout": (laid_out - started) * 1000,
                "axtree": (fetched - laid_out) * 1000,
                "build": (done - fetched) * 1000,
                "total": (done - started) * 1000,
            },
        )

    async def _frame_trees(
        self, session: PageSession, budget: int, max_depth: int
    ) -> list[tuple[str, BuiltTree]]:
        """Each out-of-process frame's tree, keyed by the native id of its iframe element.

        A frame that cannot be read (it is navigating or just left) is left
        out of this snapshot rather than failing it.
        """
        frames = list(session.frames.values())
        prefixes = {f.channel.session_id: f"cdp:{f.target_id}:" for f in frames}

        async def one(frame: FrameTarget, share: int) -> tuple[str, BuiltTree] | None:
            send = frame.channel.send
            try:
                owner, offset = await asyncio.gather(
                    session.frame_owner(frame), session.frame_offset(frame.target_id)
                )
                snap, ax = await asyncio.gather(
                    send(
                        "DOMSnapshot.captureSnapshot",
                        SNAPSHOT_PARAMS,
                        timeout_s=_SNAPSHOT_TIMEOUT_S,
                    ),
                    send("Accessibility.getFullAXTree", timeout_s=_SNAPSHOT_TIMEOUT_S),
                )
            except (ActuiError, KeyError):
                return None
            built = build_tree(
                {frame.target_id: objs_of(ax, "nodes")},
                frame.target_id,
                parse_snapshot(snap, offset),
                viewport=session.viewport,
                max_nodes=share,
                max_depth=max_depth,
                id_prefix=f"cdp:{frame.target_id}:",
            )
            return prefixes.get(frame.parent_session, "cdp:") + str(owner), built

        if budget <= 0 or not frames:
            return []
        share = max(1, budget // len(frames))
        found = await asyncio.gather(*(one(f, share) for f in frames))
        return [f for f in found if f is not None]

    async def capture(self, root: RootInfo, *, max_dimension: int) -> Image | None:
        """The viewport as PNG, scaled so its longer side fits ``max_dimension``.

        None while a JavaScript dialog blocks the page (it cannot paint).
        """
        session = await self._session(root)
        if session.dialog is not None:
            return None
        metrics = await session.conn.send("Page.getLayoutMetrics")
        viewport = obj_of(metrics, "cssLayoutViewport")
        width, height = int_of(viewport, "clientWidth", 0), int_of(viewport, "clientHeight", 0)
        if width <= 0 or height <= 0:
            return None
        scale = min(1.0, max_dimension / max(width, height))
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": scale}
        shot = await session.conn.send(
            "Page.captureScreenshot", {"format": "png", "clip": clip}, timeout_s=10.0
        )
        png = base64.b64decode(str(shot["data"]))
        return Image(png, max(1, round(width * scale)), max(1, round(height * scale)), scale, "cdp")

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        session = await self._session(root)
        if session.dialog is not None:
            if not node_id.startswith("cdp:dialog") and node_id != root.native_id:
                raise DialogOpen(session.dialog.describe())
            read: Mapping[str, object] = {"text": session.dialog.message}
        elif node_id == root.native_id:
            reply = await session.conn.send(
                "Runtime.evaluate",
                {"expression": f"({dom.READ_TEXT}).call(document)", "returnByValue": True},
            )
            read = obj_of(obj_of(reply, "result"), "value")
        else:
            object_id = await dom.resolve(session.conn, dom.backend_id(node_id))
            try:
                read = await dom.call(session.conn, object_id, dom.READ_TEXT)
            finally:
                await dom.release(session.conn)
        if read.get("secure"):
            raise SecureTextUnreadable(node_id)
        text = str(read.get("text", ""))
        start = max(0, offset)
        return TextSlice(
            text=text[start : start + max(0, limit)], offset=start, total_chars=len(text)
        )

    def console(self, root: RootInfo) -> tuple[str, ...]:
        """The page's console messages and exceptions since the last drain (≤ 20)."""
        session = self._sessions.get(_target_id(root))
        return () if session is None else session.drain_console()

    # -- writes -----------------------------------------------------------

    async def act(self, request: ActionRequest) -> ActionResult:
        session = await self._session(request.root)
        session.check_alive()
        try:
            return await asyncio.wait_for(actions.perform(session, request), request.timeout_s)
        except CdpCommandError as exc:
            session.check_alive()
            raise ActuiError(f"{request.kind} failed in the page: {exc.message}") from exc
        except TimeoutError as exc:
            raise StepTimeout(request.kind, request.timeout_s, sent=True) from exc

    async def navigate(self, root: RootInfo, url: str, *, timeout_s: float = 10.0) -> RootInfo:
        """Go to ``url`` and wait for its load event, at most ``timeout_s``.

        Some pages never finish loading; at the deadline the page is returned
        as it is (DOMContentLoaded has usually fired) rather than failing the call.
        ``url`` passed the contract's URL rule (``actui.urls``).
        """
        session = await self._session(root)
        loaded = session.expect_load()
        reply = await session.conn.send("Page.navigate", {"url": url})
        if reply.get("errorText"):
            raise ActuiError(f"Navigating to {url} failed: {reply['errorText']}.")
        if reply.get("loaderId"):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(loaded, timeout_s)
        else:
            loaded.cancel()
        title, href = await _title_and_url(session)
        return _root_info(_target_id(root), title, href)

    async def evaluate(
        self, root: RootInfo, expression: str, *, timeout_s: float = 5.0
    ) -> EvalResult:
        """Run ``expression`` (promises awaited) and return its JSON value or its exception."""
        session = await self._session(root)
        try:
            reply = await session.evaluate(
                {
                    "expression": expression,
                    "returnByValue": True,
                    "awaitPromise": True,
                    "userGesture": True,
                    "timeout": int(timeout_s * 1000),
                },
                timeout_s,
            )
        except CdpCommandError:
            session.check_alive()
            raise
        console = session.drain_console()
        if "exceptionDetails" in reply:
            return EvalResult("null", exception_text(obj_of(reply, "exceptionDetails")), console)
        return EvalResult(_json_value(obj_of(reply, "result")), None, console)


async def debugger_url(host: str, port: int) -> str:
    """The browser-wide websocket of a debugging port, from its ``/json/version``."""
    import urllib.request

    shown = f"[{host}]" if ":" in host else host

    def fetch() -> JsonObject:
        with urllib.request.urlopen(f"http://{shown}:{port}/json/version", timeout=5) as reply:
            version = json.loads(reply.read(1 << 20))
        return version if isinstance(version, dict) else {}

    try:
        version = await asyncio.to_thread(fetch)
        return str(version["webSocketDebuggerUrl"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BackendUnavailable(
            f"no browser answers on {shown}:{port} ({exc}). Start it with "
            f"--remote-debugging-port={port}, or unset ACTUI_CDP_PORT."
        ) from None


async def _answering(conn: CdpConnection, browser: BrowserProcess) -> None:
    """Wait for the browser's first answer on its pipe; say how it failed if it never comes."""
    try:
        await conn.send("Browser.getVersion", timeout_s=READY_DEADLINE_S)
    except (TargetGone, CallTimeout):
        took = time.monotonic() - browser.started
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(browser.process.wait(), 1.0)
        words = await browser.stderr.fatal(1.0)
        raise BrowserSilent(took, browser.process.returncode, words) from None


def _graft(node: RawNode, subtrees: Mapping[str, RawNode]) -> RawNode:
    """``node`` with each frame's tree hung under its iframe element (frames in frames too)."""
    children = tuple(_graft(child, subtrees) for child in node.children)
    extra = subtrees.get(node.native_id)
    if extra is not None:
        children = (*children, _graft(extra, subtrees))
    return replace(node, children=children)


def _dialog_snapshot(root: RootInfo, dialog: Dialog, viewport: Rect | None) -> Snapshot:
    tree = dialog_tree(dialog, root.title, viewport)
    return Snapshot(
        root=replace(root, frame=viewport, is_modal=True),
        tree=tree,
        captured_at=time.time(),
        node_count=1 + len(tree.children) + sum(len(c.children) for c in tree.children),
        source="cdp:Page.javascriptDialogOpening",
    )


def _json_value(remote: Mapping[str, object]) -> str:
    if "value" in remote:
        return json.dumps(remote["value"])
    if "unserializableValue" in remote:
        return json.dumps(str(remote["unserializableValue"]))
    return "null"


async def _title_and_url(session: PageSession) -> tuple[str, str]:
    reply = await session.conn.send(
        "Runtime.evaluate", {"expression": "[document.title, location.href]", "returnByValue": True}
    )
    value = list_of(obj_of(reply, "result"), "value") or ["", ""]
    return str(value[0]), str(value[1])


def _frame_ids(tree: Mapping[str, object]) -> list[str]:
    """Frame ids depth-first, the main frame first."""
    ids = [str(obj_of(tree, "frame", required=True)["id"])]
    for child in objs_of(tree, "childFrames"):
        ids += _frame_ids(child)
    return ids


def _root_info(target_id: str, title: str, url: str) -> RootInfo:
    return RootInfo(
        native_id=f"cdp:{target_id}",
        pid=0,
        app_name="Browser",
        title=title,
        kind="browser_page",
        raw_role="RootWebArea",
        url=url,
        resource_key=f"cdp:{target_id}",
    )


def _target_id(root: RootInfo) -> str:
    prefix, _, target = root.native_id.partition(":")
    if prefix != "cdp" or not target:
        raise UnsupportedAction(root.native_id, "is not a browser page")
    return target
