"""The live mirror: what the last walk of a root read, kept honest by events.

After a root has been snapshotted, its nodes' fields (basics, text or value,
actions) and child lists are kept here. Every event an application sends about
one of its elements marks that element dirty; the next snapshot of the root is
the same breadth-first walk, but a clean element is taken from the mirror
(no calls) and a dirty or unknown one is read live, so a repeated snapshot
costs only what changed. Extents are never mirrored: layout moves elements
without any event, so they are re-read on every snapshot.

Which toolkits are mirrored is decided from evidence (linux-stack.md and the
mirror-versus-walk test):

* GTK 3: mirrored. It emits each change before it answers the call that made
  it, children-changed for every structural change inside a window, and
  state changes for popovers, whose nodes already exist.
* GTK 4 (4.8): not mirrored. Its events lag ~250 ms behind a button's action,
  so a snapshot taken right after an action would serve stale fields.
* Qt and everything else: not mirrored (their event streams are unmeasured).

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

from actui.backends.atspi.address import Address
from actui.backends.atspi.reader import Basics, Details

MIRRORED_TOOLKITS = ("gtk 3",)
MAX_MIRRORS = 16


@dataclass(frozen=True)
class NodeRecord:
    """One element as last read: everything but its extents."""

    basics: Basics
    details: Details
    children: tuple[Address, ...]


@dataclass
class _Mirror:
    key: tuple[int, int, int]
    records: dict[Address, NodeRecord]
    dirty: set[Address] = field(default_factory=set)


@dataclass(frozen=True)
class Reuse:
    """What a snapshot may take without calls, and what it must re-read."""

    records: dict[Address, NodeRecord]
    dirty: frozenset[Address]

    def clean(self, at: Address) -> NodeRecord | None:
        return None if at in self.dirty else self.records.get(at)


def mirrored(toolkit: str) -> bool:
    return toolkit.lower().startswith(MIRRORED_TOOLKITS)


class Mirrors:
    """The mirrors of the most recently snapshotted roots (at most :data:`MAX_MIRRORS`)."""

    def __init__(self) -> None:
        self._mirrors: OrderedDict[str, _Mirror] = OrderedDict()

    def on_event(self, app: str, sender: str, path: str, gone: bool) -> None:
        """An event ``sender`` sent about ``path``; ``gone`` when ``app`` is no more."""
        if gone:
            for root_id in [r for r in self._mirrors if Address.parse(r).bus == app]:
                del self._mirrors[root_id]
            return
        if app != sender:
            return  # the registry speaking about the app: its windows, not their trees
        at = Address(sender, path)
        for mirror in self._mirrors.values():
            if at in mirror.records:
                mirror.dirty.add(at)

    def take(self, root_id: str, key: tuple[int, int, int]) -> Reuse | None:
        """The root's mirror for a walk with the same caps and connection, its dirt cleared.

        Events arriving during the walk dirty the mirror for the next snapshot.
        """
        mirror = self._mirrors.get(root_id)
        if mirror is None or mirror.key != key:
            return None
        dirty, mirror.dirty = frozenset(mirror.dirty), set()
        return Reuse(mirror.records, dirty)

    def store(self, root_id: str, key: tuple[int, int, int], records: dict[Address, NodeRecord]) -> None:
        old = self._mirrors.pop(root_id, None)
        dirty = old.dirty if old is not None and old.key == key else set()
        self._mirrors[root_id] = _Mirror(key, records, {at for at in dirty if at in records})
        while len(self._mirrors) > MAX_MIRRORS:
            self._mirrors.popitem(last=False)
