"""The live mirror: what the last walk of a root read, kept honest by events.

After a root has been snapshotted, its nodes' fields (basics, text or value,
actions, extents) and child lists are kept here. Every event an application
sends about one of its elements marks that element dirty; the next snapshot of
the root is the same breadth-first walk, but a clean element is taken from the
mirror (no calls) and a dirty or unknown one is read live, so a repeated
snapshot costs only what changed.

Extents are kept relative to the root's top-left corner, because a window
move changes every screen rect but sends no event for most of them (moving a
GTK 3 window changed 148 rects and sent 126 ``BoundsChanged``; cells and
labels send none), while it changes no window-relative one. The snapshot
re-reads the root's own extents (one call) and adds them. What does move
elements inside the window is marked per subtree: ``BoundsChanged`` with
other bounds than the element last announced (GTK 3 emits it on every
size-allocate, also the many that change nothing), ``ChildrenChanged`` and
``showing`` / ``visible`` changes mark the element's whole subtree (its
children may sit in a window of their own that moved without re-allocating
them); a value change of a scroll bar (one read, or one a running walk
reads) and window resizes mark the whole root.

Which toolkits are mirrored is decided from evidence (docs/design-notes.md §6
and the mirror-versus-walk test):

* GTK 3: mirrored. It emits each change before it answers the call that made
  it, children-changed for every structural change inside a window, and
  state changes for popovers, whose nodes already exist.
* GTK 4 (4.8): mirrored behind a settle guard. Its events lag behind the
  changes reads already show (a check box read toggled 20-30 ms after
  ``DoAction``; its ``StateChanged`` arrived 170-340 ms after), while its
  structural and geometry events were complete in the changes tried (page
  switches, text, toggles, a window resize: 109 ``BoundsChanged`` covered
  the 226 rects that moved; mirror equal to a fresh walk). So a GTK 4 mirror
  is trusted only when no action was delivered to the application within
  :data:`EVENT_LAG_S`; inside that window every element is re-read. A page
  switch later moved two fillers with no event, so input also marks every
  rect of a GTK 4 mirror to be read again.
* Qt (6): mirrored. Text, state, name and structure changes arrive as
  events (set text, toggle, a label a press changed: the mirror equalled a
  fresh walk), but a window resize re-laid out five widgets with no event
  at all; so for every toolkit, a root whose size changed since the last
  walk has every rect read again.
* Everything else: not mirrored (their event streams are unmeasured).

An untrusted GTK mirror (GTK 4 just after an action) still saves half of the
per-node calls: every element is re-read, but its role and interfaces, which
GTK fixes for an accessible's lifetime, are taken from the last walk.

Ordering makes the mirror safe to read: a snapshot first makes one call to the
application (the root's extents) and only then takes the dirty set; D-Bus
delivers an application's signals in the order it sent them, so every event
sent before that reply has been counted. A root with no mirror to take gets an
empty one before any call, collecting what changes while it is walked; its extents
and the toolkit's cache are then asked together (:meth:`Mirrors.holds`). An
application whose connection closed loses its mirrors; a reconnected accessibility
bus (events may have been missed) or a restarted registry loses all of them. This
module makes no calls.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace

from dbus_fast import Message, Variant

from actui.backends.atspi.address import Address
from actui.backends.atspi.changes import WINDOW_EVENTS
from actui.backends.atspi.reader import Basics, Details
from actui.backends.base import RawNode, Rect

MIRRORED_TOOLKITS = ("gtk 3", "gtk 4", "qt")
LAGGING_TOOLKITS = ("gtk 4",)
EVENT_LAG_S = 0.5
"""GTK 4's events arrived up to 340 ms after the change they announce."""
IDENTITY_TOOLKITS = ("gtk", "qt")
MAX_MIRRORS = 16
MAX_DIRTY = 4096
MAX_BOUNDS = 16384


@dataclass(frozen=True)
class NodeRecord:
    """One element as last read, its rect relative to the root's top-left corner.

    ``children`` is None when they were not read (the depth cap cut them);
    ``shown`` says whether the element could be seen, so its extents and
    action names were asked (an empty answer is kept as None).
    """

    basics: Basics
    details: Details
    children: tuple[Address, ...] | None
    shown: bool = True


@dataclass(frozen=True)
class Assembled:
    """The tree the last walk assembled, and the root rect it was placed with."""

    tree: RawNode
    node_count: int
    truncated: bool
    frame: Rect | None


@dataclass
class _Mirror:
    key: tuple[int, ...]
    records: dict[Address, NodeRecord]
    assembled: Assembled | None = None
    dirty: set[Address] = field(default_factory=set)
    moved: set[Address] = field(default_factory=set)
    all_moved: bool = False
    valued: set[Address] = field(default_factory=set)
    """Elements whose value changed while a walk ran: scroll bars move their area."""

    def mark(self, at: Address, message: Message) -> None:
        member = str(message.member or "")
        detail = str(message.body[0]) if message.body else ""
        if member == "BoundsChanged":
            self.moved.add(at)
            return
        if message.interface == WINDOW_EVENTS:
            if member.lower() not in ("activate", "deactivate"):
                self.all_moved = True
        elif member == "ChildrenChanged" or (
            member == "StateChanged" and detail in ("showing", "visible")
        ):
            self.moved.add(at)
        elif member == "PropertyChange" and detail == "accessible-value":
            # A scroll bar scrolled everything in its area. An element the last
            # walk did not read is in another window or past the caps (one made
            # since was announced by its parent's ChildrenChanged); while a walk
            # runs, its role is known once the walk stores what it read.
            record = self.records.get(at)
            if record is not None and record.basics.role == "scroll bar":
                self.all_moved = True
            elif not self.records:
                self.valued.add(at)
        elif member == "StateChanged":
            # GTK 3 announces a tree row's selection on the row's cells only: the
            # cells a container cell holds (a file row's icon and name) change
            # with no event of their own (Thunar: 8 StateChanged for two rows of
            # four columns, none for the names).
            record = self.records.get(at)
            if record is not None and record.basics.role == "table cell" and record.children:
                self.dirty.update(record.children)
        self.dirty.add(at)


@dataclass(frozen=True)
class Reuse:
    """What a snapshot may take without calls, and what it must re-read.

    Without ``trusted`` events nothing is clean, but an element's role and
    interfaces are still known: GTK fixes both for an accessible's lifetime
    (GTK 4's role is construct-only, its object paths are UUIDs).
    """

    records: dict[Address, NodeRecord]
    dirty: frozenset[Address]
    trusted: bool = True
    moved: frozenset[Address] = frozenset()
    all_moved: bool = False
    assembled: Assembled | None = None

    def unchanged(self, frame: Rect | None) -> Assembled | None:
        """The last tree, when no event has touched the root since and it has not moved.

        Then a walk would only copy every record: the tree is the same.
        """
        if not self.trusted or self.dirty or self.moved or self.all_moved:
            return None
        if self.assembled is None or self.assembled.frame != frame:
            return None
        return self.assembled

    def sized(self, frame: Rect | None) -> Reuse:
        """This reuse, with every rect to be read again if the root's size changed."""
        last = self.assembled.frame if self.assembled is not None else None
        if last is None or frame is None or (last.w, last.h) == (frame.w, frame.h):
            return self
        return replace(self, all_moved=True)

    def clean(self, at: Address) -> NodeRecord | None:
        return None if not self.trusted or at in self.dirty else self.records.get(at)

    def moves(self, at: Address) -> bool:
        """Whether the element's subtree may have moved inside the window."""
        return self.all_moved or not self.trusted or at in self.moved

    def identity(self, at: Address) -> tuple[str, frozenset[str]] | None:
        """The element's role and interfaces as last read (None when they were not)."""
        record = self.records.get(at)
        if record is None or record.basics.unseen:
            return None
        return (record.basics.role, record.basics.interfaces)

    def role(self, at: Address) -> str | None:
        record = self.records.get(at)
        return None if record is None else record.basics.role


def mirrored(toolkit: str) -> bool:
    """Whether events keep the toolkit's mirror current (see above)."""
    return toolkit.lower().startswith(MIRRORED_TOOLKITS)


def remembered(toolkit: str) -> bool:
    """Whether the toolkit's roles and interfaces can be reused across walks."""
    return toolkit.lower().startswith(IDENTITY_TOOLKITS)


class Mirrors:
    """The mirrors of the most recently snapshotted roots (at most :data:`MAX_MIRRORS`)."""

    def __init__(self) -> None:
        self._mirrors: OrderedDict[str, _Mirror] = OrderedDict()
        self._acted: dict[str, float] = {}
        self._bounds: dict[Address, tuple[int, ...]] = {}
        """The bounds each element last announced in ``BoundsChanged``."""

    def acted(self, app: str, toolkit: str) -> None:
        """An action was just delivered to ``app``: its lagging events are still due.

        GTK 4 also moves elements without telling (after a stack page switch,
        two fillers of gtk4-widget-factory moved 10 px with no event at all),
        so every rect of its mirrors is read again once.
        """
        self._acted[app] = time.monotonic()
        if toolkit.lower().startswith(LAGGING_TOOLKITS):
            for root_id, mirror in self._mirrors.items():
                if Address.parse(root_id).bus == app:
                    mirror.all_moved = True
        if len(self._acted) > 4 * MAX_MIRRORS:
            self._acted.pop(next(iter(self._acted)))

    def trusts(self, app: str, toolkit: str) -> bool:
        """Whether ``app``'s events can be relied on to have marked every change by now."""
        if not mirrored(toolkit):
            return False
        if not toolkit.lower().startswith(LAGGING_TOOLKITS):
            return True
        return time.monotonic() - self._acted.get(app, -EVENT_LAG_S) >= EVENT_LAG_S

    def on_event(self, app: str, message: Message) -> None:
        """A counted event about ``app`` (see ``changes.concerned``)."""
        sender, path = message.sender or "", message.path or ""
        detail = str(message.body[0]) if message.body else ""
        if message.member == "NameOwnerChanged" or (app != sender and detail.startswith("remove")):
            self._drop(app)  # the application exited
            return
        if app != sender:
            return  # the registry announcing the app: its windows, not their trees
        at = Address(sender, path)
        if message.member == "BoundsChanged" and not self._bounds_changed(at, message):
            return
        for root_id, mirror in list(self._mirrors.items()):
            if Address.parse(root_id).bus == app:
                mirror.mark(at, message)
                if len(mirror.dirty) + len(mirror.moved) > MAX_DIRTY:
                    del self._mirrors[root_id]  # cheaper to walk again

    def _bounds_changed(self, at: Address, message: Message) -> bool:
        """Whether ``BoundsChanged`` gives other bounds than the element's last one did.

        GTK 3 announces every size-allocate, also the many that change nothing:
        gtk3-widget-factory's spinner and progress bar re-allocate the window's
        top box, with the same bounds, several times a second, which made
        every successor snapshot re-read all 148 extents. The first
        announcement of an element, or one without bounds, counts as a move.
        """
        bounds = _announced_bounds(message)
        if bounds is None:
            return True
        if len(self._bounds) >= MAX_BOUNDS and at not in self._bounds:
            self._bounds.clear()
        last, self._bounds[at] = self._bounds.get(at), bounds
        return last != bounds

    def paths(self, root_id: str) -> frozenset[str] | None:
        """The object paths last read under the root; None when it is not mirrored now."""
        mirror = self._mirrors.get(root_id)
        if mirror is None or not mirror.records:
            return None
        return frozenset(at.path for at in mirror.records)

    def _drop(self, app: str) -> None:
        for root_id in [r for r in self._mirrors if Address.parse(r).bus == app]:
            del self._mirrors[root_id]
        for at in [a for a in self._bounds if a.bus == app]:
            del self._bounds[at]

    def holds(self, root_id: str, key: tuple[int, ...]) -> bool:
        """Whether :meth:`take` would give a walk with these caps something to reuse."""
        mirror = self._mirrors.get(root_id)
        return mirror is not None and mirror.key == key and bool(mirror.records)

    def take(self, root_id: str, key: tuple[int, ...], *, trusted: bool) -> Reuse | None:
        """The root's mirror for a walk with the same caps and connection.

        Either way an empty mirror starts collecting dirt at once, so an event
        arriving during the walk is not lost; the walk stores what it read.
        """
        mirror = self._mirrors.get(root_id)
        if not self.holds(root_id, key) or mirror is None:
            self._mirrors[root_id] = _Mirror(key, {})
            self._mirrors.move_to_end(root_id)
            self._trim()
            return None
        dirty, moved = frozenset(mirror.dirty), frozenset(mirror.moved)
        reuse = Reuse(mirror.records, dirty, trusted, moved, mirror.all_moved, mirror.assembled)
        # Taken: until the walk stores what it read, dirt collects on an empty
        # mirror, so a walk that fails leaves nothing stale to trust.
        self._mirrors[root_id] = _Mirror(key, {})
        return reuse

    def store(
        self,
        root_id: str,
        key: tuple[int, ...],
        records: dict[Address, NodeRecord],
        assembled: Assembled | None = None,
    ) -> None:
        old = self._mirrors.pop(root_id, None)
        mirror = _Mirror(key, records, assembled)
        if old is not None and old.key == key:  # events that arrived during the walk
            mirror.dirty = {at for at in old.dirty if at in records}
            mirror.moved = {at for at in old.moved if at in records}
            scrolled = (records.get(at) for at in old.valued)
            mirror.all_moved = old.all_moved or any(
                r is not None and r.basics.role == "scroll bar" for r in scrolled
            )
        self._mirrors[root_id] = mirror
        self._trim()

    def _trim(self) -> None:
        while len(self._mirrors) > MAX_MIRRORS:
            self._mirrors.popitem(last=False)


def _announced_bounds(message: Message) -> tuple[int, ...] | None:
    """The rect a ``BoundsChanged`` carries in its ``any_data`` (None when it has none)."""
    body = message.body
    data = body[3] if len(body) > 3 else None
    value = data.value if isinstance(data, Variant) else None
    if not isinstance(value, list | tuple) or len(value) != 4:
        return None
    return tuple(int(v) for v in value)
