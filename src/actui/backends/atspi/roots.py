"""Root discovery: the applications under the registry and their top-levels.

Owns the mapping from AT-SPI applications and their children to ``RootInfo``
(identity, pid, kind, title, frame, focus/modal/minimized flags, toolkit) and
the screen offset of window-relative toolkits. Applications are read
concurrently; the bus bounds the calls in flight. It does not read trees.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import REGISTRY, REGISTRY_ROOT, AtspiBus
from actui.backends.atspi.reader import Basics, read_basics, read_children, read_extents
from actui.backends.atspi.window_origin import WindowOrigins
from actui.backends.base import Rect, RootInfo, RootKind
from actui.errors import ActuiError

APPLICATION = "org.a11y.atspi.Application"
DIALOG_ROLES = frozenset({"dialog", "alert", "file chooser", "color chooser", "font chooser"})
MENU_ROLES = frozenset({"menu", "popup menu", "menu bar", "menu item"})


@dataclass(frozen=True)
class AppInfo:
    address: Address
    pid: int
    name: str
    toolkit: str
    toolkit_version: str


def root_kind(role: str, child_roles: frozenset[str]) -> RootKind:
    """Dialogs, menus and tooltips by role; a bare ``window`` holding a menu is a menu."""
    if role in DIALOG_ROLES:
        return "dialog"
    if role in ("menu", "popup menu") or (role == "window" and child_roles & MENU_ROLES):
        return "menu"
    if role == "tool tip":
        return "tooltip"
    return "window"


class RootLister:
    """Lists the roots of every application (or of one pid)."""

    def __init__(self, bus: AtspiBus, origins: WindowOrigins) -> None:
        self._bus = bus
        self._origins = origins

    async def applications(self, pid: int | None = None) -> list[AppInfo]:
        found = await read_children(self._bus, Address(REGISTRY, REGISTRY_ROOT))
        apps = await asyncio.gather(*(self._application(at) for at in found))
        return [a for a in apps if a is not None and (pid is None or a.pid == pid)]

    async def _application(self, at: Address) -> AppInfo | None:
        try:
            pid, props, name = await asyncio.gather(
                self._bus.connection_pid(at.bus),
                self._bus.get_many(at.bus, at.path, APPLICATION, ("ToolkitName", "Version", "Id")),
                self._bus.get(at.bus, at.path, "org.a11y.atspi.Accessible", "Name"),
            )
        except ActuiError:
            return None  # exited while being listed
        if pid <= 0:
            app_id = int(str(props.get("Id", 0) or 0))
            pid = app_id if app_id > 0 else 0
        return AppInfo(
            address=at,
            pid=pid,
            name=str(name),
            toolkit=str(props.get("ToolkitName", "")),
            toolkit_version=str(props.get("Version", "")),
        )

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        apps = await self.applications(pid)
        per_app = await asyncio.gather(*(self._app_roots(app) for app in apps))
        return [root for roots in per_app for root in roots]

    async def _app_roots(self, app: AppInfo) -> list[RootInfo]:
        try:
            children = await read_children(self._bus, app.address)
        except ActuiError:
            return []
        roots = await asyncio.gather(*(self._root(app, at) for at in children))
        return [r for r in roots if r is not None]

    async def _root(self, app: AppInfo, at: Address) -> RootInfo | None:
        try:
            basics = await read_basics(self._bus, at)
            if not basics.states & {"showing", "visible"}:
                return None  # a hidden toplevel (GTK3 keeps closed dialogs)
            frame = None
            if "Component" in basics.interfaces:
                frame = await read_extents(self._bus, at, (0, 0))
            child_roles = await self._child_roles(at, basics)
        except ActuiError:
            return None
        title = basics.name or app.name
        window_id = None
        if frame is not None:
            placement = await self._origins.placement(app.pid, title, frame)
            if placement is not None:
                window_id = placement.window_id
                dx, dy = placement.offset
                frame = Rect(frame.x + dx, frame.y + dy, frame.w, frame.h)
        return RootInfo(
            native_id=at.native_id,
            pid=app.pid,
            app_name=app.name,
            title=title,
            kind=root_kind(basics.role, child_roles),
            raw_role=basics.role,
            frame=frame,
            window_id=window_id,
            is_focused="active" in basics.states,
            is_minimized="iconified" in basics.states,
            is_modal="modal" in basics.states,
            is_onscreen="showing" in basics.states,
            toolkit=f"{app.toolkit} {app.toolkit_version}".strip(),
            resource_key=f"desktop-pid:{app.pid}",
        )

    async def _child_roles(self, at: Address, basics: Basics) -> frozenset[str]:
        """Roles of a bare window's children (menus show up as such windows)."""
        if basics.role != "window" or basics.child_count == 0:
            return frozenset()
        children = await read_children(self._bus, at)
        roles: set[str] = set()
        for child in children[:8]:
            with contextlib.suppress(ActuiError):
                roles.add((await read_basics(self._bus, child)).role)
        return frozenset(roles)
