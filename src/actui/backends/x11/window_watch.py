"""The EWMH window listing, kept current by X events instead of read again each time.

A full listing costs two round trips plus eight or nine per window, and a
round trip to Xvfb took 0.5 ms while an application animated: 5-7 ms for a
single window, and act_ui lists the desktop three times. The watch selects
property and structure events on the root and on every managed window it has
read, so a listing is one round trip (``sync``: every event the server sent
before answering it is then queued) plus re-reads of what those events
touched: a window whose properties changed is described again, any
configure, map or reparent under the root re-reads every window's frame (two
round trips each), and the root's stacking or active-window properties
re-read those. A window is selected before it is first read, so no change
between the two is lost.

Its events must not be taken by anyone else, so it runs on an X connection of
its own (input drains the events of its connection): :class:`WatchedWindows`.
Events wait in the X server until a listing reads them, so that one also
lists every :data:`KEEP_UP_S` while it is in use: a title that changes many
times a second never piles up more than that much. This module owns the cache
and the event bookkeeping; the reads are :mod:`~actui.backends.x11.ewmh`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from dataclasses import replace
from typing import Any

from Xlib import X
from Xlib import error as xerror

from actui.backends.x11 import ewmh
from actui.backends.x11.connection import DEFAULT_TIMEOUT_S, XConnection
from actui.backends.x11.ewmh import XWindow
from actui.errors import ActuiError

ROOT_MASK = X.PropertyChangeMask | X.SubstructureNotifyMask
CLIENT_MASK = X.PropertyChangeMask | X.StructureNotifyMask
KEEP_UP_S = 5.0
"""The longest events wait unread in the X server while the watch is in use."""
GEOMETRY_EVENTS = frozenset(
    {
        X.ConfigureNotify,
        X.ReparentNotify,
        X.GravityNotify,
        X.MapNotify,
        X.UnmapNotify,
        X.CreateNotify,
        X.CirculateNotify,
    }
)


class WindowWatch:
    """Managed windows as last read, and which parts of them events have made stale.

    Every method runs on the worker thread of the connection given to :meth:`listing`.
    """

    def __init__(self) -> None:
        self._root = 0
        self._order: list[int] | None = None
        """Managed ids bottom to top; None when the root's list changed."""
        self._active: int | None = None
        self._active_known = False
        self._windows: dict[int, XWindow] = {}
        self._stale: set[int] = set()
        self._frames_stale = False

    def listing(self, conn: XConnection) -> list[XWindow]:
        """Managed windows, topmost first; windows that vanish while listed are left out."""
        display = conn.display
        root = display.screen().root
        if root.id != self._root:
            root.change_attributes(event_mask=ROOT_MASK)
            self._root = root.id
        display.sync()
        while display.pending_events():
            self._note(conn, display.next_event())
        if self._order is None:
            self._order = ewmh.stacking(conn)
        if not self._active_known:
            self._active, self._active_known = ewmh.active_window(conn), True
        order, managed = self._order, set(self._order)
        self._forget([w for w in self._windows if w not in managed])
        for window_id in order:
            self._refresh(conn, window_id)
        self._frames_stale = False
        listed = [self._windows[w] for w in reversed(order) if w in self._windows]
        return [
            replace(w, z_order=z, is_active=w.window_id == self._active)
            for z, w in enumerate(listed)
        ]

    def _refresh(self, conn: XConnection, window_id: int) -> None:
        """Read the window where it is new or stale; leave it out if it is gone."""
        known = self._windows.get(window_id)
        try:
            if known is None:
                catch = xerror.CatchError(*ewmh.GONE)
                window = conn.display.create_resource_object("window", window_id)
                window.change_attributes(event_mask=CLIENT_MASK, onerror=catch)
                self._windows[window_id] = ewmh.describe(conn, window_id)
            elif window_id in self._stale:
                self._windows[window_id] = ewmh.describe(conn, window_id)
            elif self._frames_stale:
                frame = ewmh.client_frame(conn, window_id)
                self._windows[window_id] = replace(known, frame=frame)
        except ewmh.GONE:
            self._forget([window_id])
            return
        self._stale.discard(window_id)

    def _note(self, conn: XConnection, event: Any) -> None:
        kind = event.type
        if kind == X.PropertyNotify:
            if event.window.id in self._windows:
                self._stale.add(event.window.id)
            elif event.window.id != self._root:
                return
            elif event.atom in {conn.atom(name) for name in ewmh.STACKING_PROPERTIES}:
                self._order = None
            elif event.atom == conn.atom("_NET_ACTIVE_WINDOW"):
                self._active_known = False
        elif kind == X.DestroyNotify:
            self._forget([event.window.id])
        elif kind in GEOMETRY_EVENTS:
            self._frames_stale = True

    def _forget(self, window_ids: list[int]) -> None:
        for window_id in window_ids:
            self._windows.pop(window_id, None)
            self._stale.discard(window_id)


class WatchedWindows:
    """A :class:`WindowWatch` on an X connection of its own, kept up while in use."""

    def __init__(self, display: str) -> None:
        self._connection = XConnection(display)
        self._watch = WindowWatch()
        self._keeper: asyncio.Task[None] | None = None

    async def listing(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> list[XWindow]:
        """Managed windows, topmost first (raises ``actui.errors`` on X failures)."""
        if self._keeper is None:
            self._keeper = asyncio.create_task(self._keep_up())
        read = functools.partial(self._watch.listing, self._connection)
        return await self._connection.call_within(timeout_s, read)

    async def _keep_up(self) -> None:
        while True:
            await asyncio.sleep(KEEP_UP_S)
            with contextlib.suppress(ActuiError):
                await self._connection.call(self._watch.listing, self._connection)

    async def close(self) -> None:
        if self._keeper is not None:
            self._keeper.cancel()
            self._keeper = None
        await self._connection.close()
