"""Root discovery: the applications under the registry and their top-levels.

Owns the mapping from AT-SPI applications and their children to ``RootInfo``
(identity, pid, kind, title, frame, focus/modal/minimized flags, toolkit) and
the screen offset of window-relative toolkits. Applications are read
concurrently; the bus bounds the calls in flight. It does not read trees.

Listings are cheap because they are remembered. An application's identity
(pid, name, toolkit) is fixed for its connection's lifetime. Its roots are
kept while no event says they changed: a window event, children-changed on
the application, or a state or name change on one of its roots (GTK 3 sends
all of these, docs/design-notes.md §6; other toolkits' roots are re-read
every time). A remembered listing still asks each application for its
children and each root for its extents (window moves send nothing reliable),
all concurrently; those replies also prove every earlier event of the
application has been counted, so an answer that differs, or an event that
arrived meanwhile, falls back to a full read of that application.

The registry's list of applications is bookkeeping of its own: one that
restarts knows only those that register again (GTK 3's bridge does when it
sees the registry's name owned again; GTK 4.8's gtk4-demo and Qt 5's
featherpad had not 2 s after a restart) and lists none of them in the moment
before they do. So applications listed before a restart (or before the
registry left the bus), and still connected, go on being read directly at
their own bus names ("carried") until the registry lists them again or their
connection closes: an application is never reported gone because the
registry forgot it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from dbus_fast import Message

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import REGISTRY, REGISTRY_ROOT, AppGone, AtspiBus
from actui.backends.atspi.changes import WINDOW_EVENTS
from actui.backends.atspi.insets import measure_inset
from actui.backends.atspi.names import clean_name
from actui.backends.atspi.reader import (
    Basics,
    children_of,
    discard,
    extents_of,
    read_basics,
    read_children,
    read_extents,
    request_children,
    request_extents,
)
from actui.backends.atspi.toolkits import FIRST_CONTACT, Toolkit, window_relative
from actui.backends.atspi.window_origin import WindowOrigins
from actui.backends.base import Geometry, Rect, RootCapabilities, RootInfo, RootKind
from actui.errors import ActuiError, CallTimeout

APPLICATION = "org.a11y.atspi.Application"
APP_ROOT = "/org/a11y/atspi/accessible/root"
TRUSTED_TOOLKITS = ("gtk 3",)
ROOT_STATES = frozenset(
    {"active", "showing", "visible", "iconified", "modal", "defunct", "focused"}
)
DIALOG_ROLES = frozenset({"dialog", "alert", "file chooser", "color chooser", "font chooser"})
MENU_ROLES = frozenset({"menu", "popup menu", "menu bar", "menu item"})
PROBE_TIMEOUT_S = 0.3
"""How long an application last seen not answering gets to answer a listing.

A stopped or hung application would otherwise cost every listing the bus's
full call timeout (3 s), and an ``act_ui`` on any other application lists
twice. An answering GTK application replies to ``GetChildren`` in
milliseconds; 0.3 s leaves room for a loaded machine's scheduling while
keeping the two listings of an act_ui within 0.6 s. An application that misses it is
served from its kept listing, still marked not answering, and probed again by
the next listing; one that answers is read in full as before.
"""


@dataclass(frozen=True)
class AppInfo:
    address: Address
    pid: int
    name: str
    toolkit: str
    toolkit_version: str

    @property
    def toolkit_label(self) -> str:
        """``GTK 3.24.38``: what ``RootInfo.toolkit`` says."""
        return f"{self.toolkit} {self.toolkit_version}".strip()


def root_kind(role: str, child_roles: frozenset[str]) -> RootKind:
    """Dialogs, menus and tooltips by role; a bare ``window`` holding a menu is a menu."""
    if role in DIALOG_ROLES:
        return "dialog"
    if role in ("menu", "popup menu") or (role == "window" and child_roles & MENU_ROLES):
        return "menu"
    if role == "tool tip":
        return "tooltip"
    return "window"


def keeps_roots(toolkit: str) -> bool:
    """Whether the toolkit's events are trusted to announce every root change."""
    return toolkit.lower().startswith(TRUSTED_TOOLKITS)


def touches_roots(message: Message, app_root: str, roots: frozenset[str] | None) -> bool:
    """Whether an application's own event may change its root listing (``roots``: the
    paths of its roots, None when not known yet: then any element may be one)."""
    member = str(message.member or "")
    path = message.path or ""
    if message.interface == WINDOW_EVENTS:
        return True
    if path == app_root:
        return member == "ChildrenChanged"
    if roots is not None and path not in roots:
        return False
    detail = str(message.body[0]) if message.body else ""
    if member == "StateChanged":
        return detail in ROOT_STATES
    if member == "PropertyChange":
        return detail in ("accessible-name", "accessible-role")
    return member == "ChildrenChanged"  # a bare window's children decide its kind


@dataclass(frozen=True)
class _Kept:
    """An application's roots as last read, with the raw extents each had."""

    generation: int
    children: tuple[Address, ...]
    roots: tuple[tuple[RootInfo, Rect | None], ...]


_AppRoots = tuple[list[RootInfo], bool]
"""An application's roots, and whether it answered (``RootLister._app_roots``)."""


async def _cancelled(reads: list[asyncio.Task[_AppRoots]]) -> None:
    """Reads whose answers no longer matter: cancelled, and waited for."""
    for read in reads:
        read.cancel()
    await asyncio.gather(*reads, return_exceptions=True)


@dataclass(frozen=True)
class Listing:
    """One listing's roots, and the pids of the applications behind it.

    ``described``: every listed application's pid; ``silent``: those whose
    application did not answer in time (their roots, if any, are the last ones
    read, marked ``not_answering``).
    """

    roots: list[RootInfo]
    described: frozenset[int]
    silent: frozenset[int]


class RootLister:
    """Lists the roots of every application (or of one pid)."""

    def __init__(self, bus: AtspiBus, origins: WindowOrigins) -> None:
        self._bus = bus
        self._origins = origins
        self._apps: dict[Address, AppInfo] = {}
        self._kept: dict[str, _Kept] = {}
        self._listed: dict[str, list[RootInfo]] = {}
        """Each application's last listing, for when it does not answer."""
        self._silent: set[str] = set()
        """Applications that did not answer the last listing: probed with a short timeout."""
        self._unread: frozenset[int] = frozenset()
        """Pids of the last listing's applications that did not say who they are in time."""
        self._generations: defaultdict[str, int] = defaultdict(int)
        self._epoch = -1
        self._registry_epoch = 0
        self._carried: dict[Address, AppInfo] = {}
        """Applications known before the registry restarted that it does not list (yet)."""
        self.registry_missing = False
        """Whether the last listing found no registry on the bus (known applications only)."""

    def on_event(self, app: str, message: Message) -> None:
        """A counted event about ``app`` (see ``changes.concerned``)."""
        if app != message.sender or message.member == "NameOwnerChanged":
            self._generations[app] += 1  # the registry (or the bus) announcing the app
            self._kept.pop(app, None)
            if message.member == "NameOwnerChanged":  # its connection closed
                for at in [at for at in self._carried if at.bus == app]:
                    del self._carried[at]
            return
        kept = self._kept.get(app)
        if kept is None:
            # A read of its roots may be under way: an event that may touch any root must
            # keep that read from being kept, or the listing keeps what the event changed
            # (Evince renames its window just after mapping it: 4 of 8 launches kept
            # "Document Viewer" while the frame's name was already the file's).
            if touches_roots(message, APP_ROOT, None):
                self._generations[app] += 1
            return
        paths = frozenset(Address.parse(r.native_id).path for r, _ in kept.roots)
        if touches_roots(message, APP_ROOT, paths):
            self._generations[app] += 1
            del self._kept[app]

    async def applications(self, pid: int | None = None) -> list[AppInfo]:
        if self._epoch != self._bus.connection_epoch:
            self._apps.clear()
            self._kept.clear()
            self._listed.clear()
            self._silent.clear()
            self._carried.clear()
            self._epoch = self._bus.connection_epoch
            self._registry_epoch = self._bus.registry_epoch
        found = await self._registered()
        if self._registry_epoch != self._bus.registry_epoch:
            self._carried.update(self._apps)  # the new registry may not know them
            self._kept.clear()
            self._registry_epoch = self._bus.registry_epoch
        for at in found:
            self._carried.pop(at, None)
        found += [at for at in self._carried if at not in found]
        fresh = [at for at in found if at not in self._apps]
        read = await asyncio.gather(*(self._application(at) for at in fresh))
        for app in read:
            if app is not None:
                self._apps[app.address] = app
        unread = [at for at, app in zip(fresh, read, strict=True) if app is None]
        self._unread = await self._unread_pids(unread, pid)
        listed = set(found)
        for gone in [at for at in self._apps if at not in listed]:
            del self._apps[gone]
            self._forget(gone.bus)
        apps = (self._apps.get(at) for at in found)
        return [a for a in apps if a is not None and (pid is None or a.pid == pid)]

    def _forget(self, bus: str) -> None:
        """Drop what is kept of an application that is no longer listed."""
        self._kept.pop(bus, None)
        self._listed.pop(bus, None)
        self._silent.discard(bus)

    async def _registered(self) -> list[Address]:
        """The registry's applications; none when no registry is on the bus at all.

        Without one (killed, and not started again) the applications listed
        before are still read directly, as after a restart.
        """
        try:
            found = await read_children(self._bus, Address(REGISTRY, REGISTRY_ROOT))
        except AppGone:
            self.registry_missing = True
            self._carried.update(self._apps)
            return []
        self.registry_missing = False
        return found

    @property
    def carried(self) -> int:
        """How many listed applications the registry does not list (see the module doc)."""
        return len(self._carried)

    async def _unread_pids(self, unread: list[Address], pid: int | None) -> frozenset[int]:
        """The pids of applications still on the bus whose identity could not be read:
        they did not answer, and their windows are theirs, not windows without a tree."""
        if not unread:
            return frozenset()
        with contextlib.suppress(ActuiError):
            pids = await asyncio.gather(*(self._bus.connection_pid(at.bus) for at in unread))
            return frozenset(p for p in pids if p > 0 and (pid is None or p == pid))
        return frozenset()

    async def _application(self, at: Address) -> AppInfo | None:
        """The first contact: single ``Get`` calls only, answered by every toolkit probed.

        The toolkit's name and version decide what the application may be sent
        next (``toolkits.py``): Qt 5 dies of ``GetAll``, the call this used to be.
        """
        try:
            (toolkit, version), pid, name = await asyncio.gather(
                asyncio.gather(*(self._bus.get(at.bus, at.path, i, p) for i, p in FIRST_CONTACT)),
                self._bus.connection_pid(at.bus),
                self._bus.get(at.bus, at.path, "org.a11y.atspi.Accessible", "Name"),
            )
            self._bus.identify(at.bus, Toolkit.parse(str(toolkit), str(version)))
            if pid <= 0:
                with contextlib.suppress(ActuiError):
                    pid = max(0, await self._bus.get_int(at.bus, at.path, APPLICATION, "Id"))
        except ActuiError:
            return None  # exited while being listed
        return AppInfo(
            address=at,
            pid=pid,
            name=str(name),
            toolkit=str(toolkit),
            toolkit_version=str(version),
        )

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        return (await self.listing(pid)).roots

    async def listing(self, pid: int | None = None) -> Listing:
        """The roots of the applications the registry lists (of ``pid``'s, when given).

        The roots of applications already known are asked with the registry's
        list, not after it: one round trip of every listing instead of two. Such
        a read is dropped when the registry no longer lists its application, or
        when the bus or the registry restarted meanwhile (then it is read again).
        """
        epochs = (self._bus.connection_epoch, self._bus.registry_epoch)
        early = self._ask_known(pid)
        try:
            apps = await self.applications(pid)
        except BaseException:
            await _cancelled(list(early.values()))
            raise
        if epochs != (self._bus.connection_epoch, self._bus.registry_epoch):
            await _cancelled(list(early.values()))
            for at in early:
                self._kept.pop(at.bus, None)  # it may have been kept after the reset
            early = {}
        listed = {app.address for app in apps}
        gone = [at for at in early if at not in listed]
        await _cancelled([early.pop(at) for at in gone])
        for at in gone:
            self._forget(at.bus)
        per_app = await asyncio.gather(
            *(early.get(app.address) or self._app_roots(app) for app in apps)
        )
        roots = [root for found, _ in per_app for root in found]
        silent = {app.pid for app, (_, answered) in zip(apps, per_app, strict=True) if not answered}
        silent |= self._unread
        return Listing(roots, frozenset(a.pid for a in apps) | silent, frozenset(silent))

    def _ask_known(self, pid: int | None) -> dict[Address, asyncio.Task[_AppRoots]]:
        """Reads of the known applications' roots (of ``pid``'s), started now; none while
        what is known belongs to an earlier connection or registry."""
        if (self._epoch, self._registry_epoch) != (
            self._bus.connection_epoch,
            self._bus.registry_epoch,
        ):
            return {}
        return {
            at: asyncio.ensure_future(self._app_roots(app))
            for at, app in self._apps.items()
            if pid is None or app.pid == pid
        }

    async def _app_roots(self, app: AppInfo) -> _AppRoots:
        """The application's roots, and whether it answered; its last listing, marked
        not answering, when it does not answer in time.

        A busy or stopped application (a long handler, a modal loop, SIGSTOP)
        still has its windows on screen: listing none would report them closed,
        and end the transaction that acted on one as if its target had gone.
        Once it has not answered, it gets :data:`PROBE_TIMEOUT_S` to answer.
        """
        bus = app.address.bus
        probe = PROBE_TIMEOUT_S if bus in self._silent else None
        try:
            self._listed[bus] = await self._read_app_roots(app, probe)
            self._silent.discard(bus)
        except CallTimeout:
            self._silent.add(bus)
            kept = self._listed.get(bus, [])
            return [replace(r, accessibility="not_answering") for r in kept], False
        except ActuiError:
            self._listed.pop(bus, None)  # exited: nothing to keep
            self._silent.discard(bus)
            self._carried.pop(app.address, None)
            return [], True
        return self._listed.get(bus, []), True

    async def _read_app_roots(self, app: AppInfo, probe_s: float | None) -> list[RootInfo]:
        """``probe_s``: the timeout of the first call, when shorter than the bus's."""
        generation = self._generations[app.address.bus]
        kept = self._kept.get(app.address.bus)
        await self._bus.a11y()
        asked = request_children(self._bus, app.address, timeout_s=probe_s)
        # The kept roots' frames with the children, not after them: one round trip of
        # every look instead of two. Not to an application that last did not answer:
        # its first call alone is bounded by the probe.
        frames = self._frames(kept) if kept is not None and probe_s is None else []
        try:
            children = tuple(children_of(await asked))
        except BaseException:
            discard([f for f in frames if f is not None])
            raise
        if kept is not None and kept.children == children:
            frames = frames or self._frames(kept)
            moved = (
                self._moved(app, r, raw, f) for (r, raw), f in zip(kept.roots, frames, strict=True)
            )
            roots = await asyncio.gather(*moved)
            if self._generations[app.address.bus] == generation and None not in roots:
                return [r for r in roots if r is not None]
            generation = self._generations[app.address.bus]
        else:
            discard([f for f in frames if f is not None])
        read = await asyncio.gather(*(self._root(app, at) for at in children))
        found = [r for r in read if r is not None]
        if keeps_roots(app.toolkit_label) and self._generations[app.address.bus] == generation:
            self._kept[app.address.bus] = _Kept(generation, children, tuple(found))
        return [r for r, _ in found]

    def _frames(self, kept: _Kept) -> list[asyncio.Future[list[Any]] | None]:
        """The kept roots' extents, asked now (None for a root kept without a frame)."""
        return [
            None if raw is None else request_extents(self._bus, Address.parse(r.native_id))
            for r, raw in kept.roots
        ]

    async def _moved(
        self,
        app: AppInfo,
        root: RootInfo,
        raw: Rect | None,
        asked: asyncio.Future[list[Any]] | None,
    ) -> RootInfo | None:
        """The kept root with its current frame (``asked``: its extents, asked already);
        None when that cannot be read."""
        if raw is None or asked is None:
            return root
        try:
            now = extents_of(await asked, (0, 0))
        except ActuiError:
            return None
        if now is None:
            return None
        if (now.x, now.y) != (0, 0):
            return replace(root, frame=now)  # screen extents: no X offset to find
        _, frame, geometry = await self._placed(app, Address.parse(root.native_id), root.title, now)
        return replace(
            root, frame=frame, capabilities=replace(root.capabilities, geometry=geometry)
        )

    async def _placed(
        self, app: AppInfo, at: Address, title: str, raw: Rect
    ) -> tuple[int | None, Rect, Geometry]:
        """The root's X window, screen frame (window-relative extents are offset) and how
        sure that frame is."""
        placement = await self._origins.placement(
            app.pid,
            title,
            raw,
            relative=window_relative(app.toolkit_label),
            measure=lambda size: measure_inset(self._bus, at, raw, size),
        )
        if placement is None:
            return None, raw, "exact"
        dx, dy = placement.offset
        return placement.window_id, Rect(raw.x + dx, raw.y + dy, raw.w, raw.h), placement.geometry

    async def _root(self, app: AppInfo, at: Address) -> tuple[RootInfo, Rect | None] | None:
        try:
            basics = await read_basics(self._bus, at)
            if not basics.states & {"showing", "visible"}:
                return None  # a hidden toplevel (GTK3 keeps closed dialogs)
            raw = None
            if "Component" in basics.interfaces:
                raw = await read_extents(self._bus, at, (0, 0))
            child_roles = await self._child_roles(at, basics)
        except ActuiError:
            return None
        title = clean_name(basics.name, app.toolkit_label) or app.name
        window_id: int | None = None
        frame: Rect | None = None
        geometry: Geometry = "exact"
        if raw is not None:
            window_id, frame, geometry = await self._placed(app, at, title, raw)
        info = RootInfo(
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
            toolkit=app.toolkit_label,
            resource_key=f"desktop-pid:{app.pid}",
            capabilities=RootCapabilities(geometry=geometry),
        )
        return info, raw

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
