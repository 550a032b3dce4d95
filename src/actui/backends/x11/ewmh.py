"""What the window manager says about top-level windows (EWMH), read synchronously.

Every function here runs on an :class:`~actui.backends.x11.connection.XConnection`
worker thread and takes the connection as its first argument. This module owns
the reading of ``_NET_CLIENT_LIST_STACKING``, ``_NET_ACTIVE_WINDOW``,
``_NET_WM_STATE`` and window geometry, and the activation request; it must not
capture pixels or send input. Keeping a listing current is
:mod:`~actui.backends.x11.window_watch`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from Xlib import X, Xatom
from Xlib import error as xerror
from Xlib.ext import res
from Xlib.protocol import event as xevent
from Xlib.xobject.drawable import Window

from actui.backends.base import Rect
from actui.backends.x11.connection import XConnection

MAX_ANCESTRY = 64
"""How far the pointer preflight and the top-level search walk up the window tree."""


@dataclass(frozen=True)
class XWindow:
    """One managed top-level client window.

    ``frame`` is the client area (without decorations) in root coordinates;
    ``frame_extents`` are the decorations (left, right, top, bottom) the WM
    adds around it; ``gtk_frame_extents`` the shadow GTK draws inside the
    client area, when it says. ``z_order`` 0 is the topmost window.
    """

    window_id: int
    pid: int
    title: str
    wm_class: tuple[str, str]
    frame: Rect
    frame_extents: tuple[int, int, int, int]
    z_order: int
    is_active: bool
    is_minimized: bool
    is_modal: bool
    transient_for: int | None
    gtk_frame_extents: tuple[int, int, int, int] | None = None


STACKING_PROPERTIES = ("_NET_CLIENT_LIST_STACKING", "_NET_CLIENT_LIST")
GONE = (xerror.BadWindow, xerror.BadDrawable, xerror.BadMatch)
"""What reading a window that vanished meanwhile raises."""


def stacking(conn: XConnection) -> list[int]:
    """Managed window ids, bottom to top (the client list when the WM keeps no stacking)."""
    root = conn.display.screen().root
    for name in STACKING_PROPERTIES:
        ids = _cardinals(conn, root, name, Xatom.WINDOW)
        if ids:
            return ids
    return []


def active_window(conn: XConnection) -> int | None:
    root = conn.display.screen().root
    value = _cardinals(conn, root, "_NET_ACTIVE_WINDOW", Xatom.WINDOW)
    return value[0] if value and value[0] else None


def request_activation(conn: XConnection, window_id: int) -> None:
    """Ask the WM to activate (and un-minimize) the window, as a pager would (source 2)."""
    display = conn.display
    root = display.screen().root
    current = active_window(conn) or 0
    message = xevent.ClientMessage(
        window=display.create_resource_object("window", window_id),
        client_type=conn.atom("_NET_ACTIVE_WINDOW"),
        data=(32, [2, X.CurrentTime, current, 0, 0]),
    )
    root.send_event(message, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
    display.flush()


def client_frame(conn: XConnection, window_id: int) -> Rect:
    """The window's area in root coordinates (raises BadWindow when it is gone)."""
    window = conn.display.create_resource_object("window", window_id)
    geometry = window.get_geometry()
    origin = window.translate_coords(conn.display.screen().root, 0, 0)
    return Rect(-origin.x, -origin.y, geometry.width, geometry.height)


def ancestry(conn: XConnection, window_id: int) -> list[int]:
    """The window and its ancestors up to (not including) the root, nearest first."""
    root_id = conn.display.screen().root.id
    chain = [window_id]
    window: Window = conn.display.create_resource_object("window", window_id)
    for _ in range(MAX_ANCESTRY):
        parent = window.query_tree().parent
        if parent is None or parent.id in (root_id, X.NONE):
            break
        chain.append(parent.id)
        window = parent
    return chain


def is_viewable(conn: XConnection, window_id: int) -> bool:
    window = conn.display.create_resource_object("window", window_id)
    return bool(window.get_attributes().map_state == X.IsViewable)


def describe(conn: XConnection, window_id: int) -> XWindow:
    """One managed window, read in full; ``z_order`` and ``is_active`` are left for the
    listing to set (raises BadWindow when it is gone)."""
    window: Window = conn.display.create_resource_object("window", window_id)
    states = set(_cardinals(conn, window, "_NET_WM_STATE", Xatom.ATOM))
    extents = _cardinals(conn, window, "_NET_FRAME_EXTENTS", Xatom.CARDINAL)
    shadow = _cardinals(conn, window, "_GTK_FRAME_EXTENTS", Xatom.CARDINAL)
    pids = _cardinals(conn, window, "_NET_WM_PID", Xatom.CARDINAL) or _client_pids(conn, window_id)
    wm_class = window.get_wm_class() or ("", "")
    transient = window.get_wm_transient_for()
    return XWindow(
        window_id=window_id,
        pid=pids[0] if pids else 0,
        title=_title(conn, window),
        wm_class=(str(wm_class[0]), str(wm_class[1])),
        frame=client_frame(conn, window_id),
        frame_extents=(
            (extents[0], extents[1], extents[2], extents[3]) if len(extents) >= 4 else (0, 0, 0, 0)
        ),
        z_order=0,
        is_active=False,
        is_minimized=conn.atom("_NET_WM_STATE_HIDDEN") in states,
        is_modal=conn.atom("_NET_WM_STATE_MODAL") in states,
        transient_for=transient.id if transient is not None and transient.id else None,
        gtk_frame_extents=(
            (shadow[0], shadow[1], shadow[2], shadow[3]) if len(shadow) >= 4 else None
        ),
    )


def _client_pids(conn: XConnection, window_id: int) -> list[int]:
    """The pid of the client that made the window, as the X server knows it (X-Resource).

    Plain Xt/Xaw clients (xmessage) set no ``_NET_WM_PID``; a local client's
    pid is still known to the server. [] when the extension or the answer is missing.
    """
    display = conn.display
    if not display.has_extension("X-Resource"):
        return []
    spec = {"client": window_id, "mask": res.LocalClientPIDMask}
    try:
        reply = display.res_query_client_ids([spec])
    except xerror.XError:
        return []
    return [
        int(item.value[0])
        for item in reply.ids
        if item.spec.mask & res.LocalClientPIDMask and item.value
    ]


def _title(conn: XConnection, window: Window) -> str:
    utf8 = conn.atom("UTF8_STRING")
    prop = window.get_full_property(conn.atom("_NET_WM_NAME"), utf8)
    if prop is None or not prop.value:
        prop = window.get_full_property(Xatom.WM_NAME, X.AnyPropertyType)
    if prop is None or not prop.value:
        return ""
    value = prop.value
    if isinstance(value, str):
        return value
    encoding = "utf-8" if prop.property_type == utf8 else "latin-1"
    return bytes(value).decode(encoding, errors="replace")


def _cardinals(conn: XConnection, window: Window, name: str, kind: int) -> list[int]:
    prop = window.get_full_property(conn.atom(name), kind)
    if prop is None or prop.format != 32:
        return []
    return [int(v) for v in prop.value]
