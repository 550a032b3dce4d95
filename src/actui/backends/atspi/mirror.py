"""The live mirror: what the last walk of a root read, kept honest by events.

After a root has been snapshotted, its nodes' fields (basics, text or value,
actions) and child lists are kept here. Every event an application sends about
one of its elements marks that element dirty; the next snapshot of the root is
the same breadth-first walk, but a clean element is taken from the mirror
(no calls) and a dirty or unknown one is read live, so a repeated snapshot
costs only what changed. Extents are never mirrored but re-read on every
snapshot: even with ``object:bounds-changed`` registered, moving a GTK 3
window changed 148 rects and sent only 126 ``BoundsChanged`` (cells and
labels send none).

Which toolkits are mirrored is decided from evidence (linux-stack.md and the
mirror-versus-walk test):

* GTK 3: mirrored. It emits each change before it answers the call that made
  it, children-changed for every structural change inside a window, and
  state changes for popovers, whose nodes already exist.
* GTK 4 (4.8): not mirrored. Its events lag behind the changes reads already
  show (a check box read toggled 20-30 ms after ``DoAction``; its
  ``StateChanged`` arrived 170-340 ms after), so a snapshot in between would
  serve stale fields. Structure was complete in the changes tried (page
  switches, text, toggles: mirror equal to a fresh walk after settling), and a
  warm snapshot would cost ~0.23 s instead of 1.2-2.5 s: worth revisiting with
  a settle guard.
* Qt and everything else: not mirrored (their event streams are unmeasured).

An untrusted GTK mirror (GTK 4) still saves half of the per-node calls: every
element is re-read, but its role and interfaces, which GTK fixes for an
accessible's lifetime, are taken from the last walk (gtk4-widget-factory:
~1.0-1.3 s instead of 1.4-2.2 s under the same load).

Ordering makes the mirror safe to read: a snapshot first makes one call to the
application (the root's extents) and only then takes the dirty set; D-Bus
delivers an application's signals in the order it sent them, so every event
sent before that reply has been counted. An application whose connection
closed loses its mirrors; a reconnected accessibility bus (events may have
been missed) loses all of them. This module makes no calls.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from dbus_fast import Message

from actui.backends.atspi.address import Address
from actui.backends.atspi.reader import Basics, Details

MIRRORED_TOOLKITS = ("gtk 3",)
IDENTITY_TOOLKITS = ("gtk",)
MAX_MIRRORS = 16
MAX_DIRTY = 4096


@dataclass(frozen=True)
class NodeRecord:
    """One element as last read: everything but its extents.

    ``children`` is None when they were not read (the depth cap cut them).
    """

    basics: Basics
    details: Details
    children: tuple[Address, ...] | None


@dataclass
class _Mirror:
    key: tuple[int, int, int]
    records: dict[Address, NodeRecord]
    dirty: set[Address] = field(default_factory=set)


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

    def clean(self, at: Address) -> NodeRecord | None:
        return None if not self.trusted or at in self.dirty else self.records.get(at)

    def identity(self, at: Address) -> tuple[str, frozenset[str]] | None:
        """The element's role and interfaces as last read."""
        record = self.records.get(at)
        return None if record is None else (record.basics.role, record.basics.interfaces)


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

    def on_event(self, app: str, message: Message) -> None:
        """A counted event about ``app`` (see ``changes.concerned``)."""
        sender, path = message.sender or "", message.path or ""
        detail = str(message.body[0]) if message.body else ""
        if message.member == "NameOwnerChanged" or (app != sender and detail.startswith("remove")):
            self._drop(app)  # the application exited
            return
        if app != sender:
            return  # the registry announcing the app: its windows, not their trees
        for root_id, mirror in list(self._mirrors.items()):
            if Address.parse(root_id).bus == app:
                mirror.dirty.add(Address(sender, path))
                if len(mirror.dirty) > MAX_DIRTY:
                    del self._mirrors[root_id]  # cheaper to walk again

    def _drop(self, app: str) -> None:
        for root_id in [r for r in self._mirrors if Address.parse(r).bus == app]:
            del self._mirrors[root_id]

    def take(self, root_id: str, key: tuple[int, int, int], *, trusted: bool) -> Reuse | None:
        """The root's mirror for a walk with the same caps and connection, its dirt cleared.

        Without one, an empty mirror starts collecting dirt at once, so an event
        arriving during this (cold) walk is not lost either.
        """
        mirror = self._mirrors.get(root_id)
        if mirror is None or mirror.key != key or not mirror.records:
            self._mirrors[root_id] = _Mirror(key, {})
            self._mirrors.move_to_end(root_id)
            self._trim()
            return None
        dirty, mirror.dirty = frozenset(mirror.dirty), set()
        return Reuse(mirror.records, dirty, trusted)

    def store(
        self, root_id: str, key: tuple[int, int, int], records: dict[Address, NodeRecord]
    ) -> None:
        old = self._mirrors.pop(root_id, None)
        dirty = old.dirty if old is not None and old.key == key else set()
        self._mirrors[root_id] = _Mirror(key, records, {at for at in dirty if at in records})
        self._trim()

    def _trim(self) -> None:
        while len(self._mirrors) > MAX_MIRRORS:
            self._mirrors.popitem(last=False)
