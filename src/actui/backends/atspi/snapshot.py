"""One root's tree: from the toolkit cache where it is complete, else a walk.

Owns the breadth-first traversal, the node and depth caps with ``truncated``
marked on every node whose children were cut, and the choice of calls per
node. The walk has no per-level barrier: a node's children start as soon as
its child list is known (the bus bounds the calls in flight), yet children are
admitted strictly in breadth-first order, so the node cap keeps the same nodes
a level-by-level walk would. Calls that cannot matter are skipped: extents of
elements inside an element with empty extents (GTK 4 never says ``showing``;
its hidden stack pages are two thirds of gtk4-widget-factory), action lists of
GTK containers, labels and images (only clipboard and popup-menu actions),
``CharacterCount`` when the text is shorter than the cap.

``Cache.GetItems`` supplies name, role, states, interfaces and children in one
call where it is complete (GTK 3 and Chromium, after ``RegisterEvent``; GTK 3
omits transient tree cells, so a node whose cached children fall short of its
child count is walked live). Where the live ``mirror`` applies, clean nodes
are taken from it and only dirty or new ones are read; where it is not trusted
(GTK 4), known nodes skip only the role and interface calls. A dead application
aborts the walk (``TargetGone``), never yields a partial tree. Per-node calls
live in ``reader``; caps in ``caps``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AppGone, AtspiBus, CallFailed
from actui.backends.atspi.caps import SCROLL_ROLES, derive_caps
from actui.backends.atspi.mirror import Mirrors, NodeRecord, Reuse, mirrored, remembered
from actui.backends.atspi.reader import (
    Basics,
    Details,
    read_basics,
    read_children,
    read_details,
    read_extents,
    short_interfaces,
)
from actui.backends.atspi.tables import role_name, state_names
from actui.backends.base import RawNode, RootInfo, Snapshot
from actui.errors import TargetGone

CACHE_PATH = "/org/a11y/atspi/cache"
CACHE_IFACE = "org.a11y.atspi.Cache"
CACHE_TOOLKITS = ("gtk 3", "chromium")
GTK_INERT_ROLES = frozenset({"panel", "filler", "label", "separator", "image"})


@dataclass
class _Visit:
    """A node during the walk (mutable only while the walk runs)."""

    at: Address
    depth: int
    parent: int
    basics: Basics | None = None
    details: Details | None = None
    child_addresses: list[Address] = field(default_factory=list)
    children: list[int] = field(default_factory=list)
    truncated: bool = False
    children_known: bool = False
    children_read: bool = False
    settled: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(frozen=True)
class _Plan:
    """Which calls a node needs: the rules that skip calls which cannot matter."""

    cache: dict[Address, _Cached] | None
    reuse: Reuse | None
    origin: tuple[int, int]
    is_gtk: bool

    def wants_rect(self, basics: Basics, parent: _Visit | None) -> bool:
        """Extents only where they can be non-empty.

        The cache's toolkits report ``showing`` reliably; GTK 4 never sets it,
        but a child of an element with empty extents (a hidden stack page) is
        empty too, which skips about two thirds of gtk4-widget-factory.
        """
        if self.cache is not None:
            return "showing" in basics.states
        if parent is None or parent.basics is None or parent.details is None:
            return True
        return parent.details.rect is not None or "Component" not in parent.basics.interfaces

    @property
    def rect_follows_parent(self) -> bool:
        """Whether :meth:`wants_rect` needs the parent's extents first."""
        return self.cache is None

    def wants_actions(self, basics: Basics) -> bool:
        """GTK 4 puts an Action interface on every widget; its containers, labels
        and images only list clipboard or popup-menu actions, never a capability."""
        return not (self.is_gtk and basics.role in GTK_INERT_ROLES)


@dataclass(frozen=True)
class _Cached:
    basics: Basics
    children: tuple[Address, ...]
    complete: bool


def uses_cache(toolkit: str) -> bool:
    """Whether the toolkit's ``Cache.GetItems`` holds its whole tree (linux-stack.md)."""
    return toolkit.lower().startswith(CACHE_TOOLKITS)


def index_cache(items: list[Any]) -> dict[Address, _Cached]:
    """Cache items by address, with children ordered by their index in the parent."""
    basics: dict[Address, Basics] = {}
    counts: dict[Address, int] = {}
    kids: dict[Address, list[tuple[int, Address]]] = {}
    for obj, _app, parent, index, count, ifaces, name, role, desc, states in items:
        at, up = Address.of(obj), Address.of(parent)
        basics[at] = Basics(
            role=role_name(int(role)),
            name=str(name),
            description=str(desc),
            states=state_names(states),
            interfaces=short_interfaces(ifaces),
            child_count=int(count),
        )
        counts[at] = int(count)
        if not up.is_null:
            kids.setdefault(up, []).append((int(index), at))
    result: dict[Address, _Cached] = {}
    for at, b in basics.items():
        ordered = tuple(a for _, a in sorted(kids.get(at, []), key=lambda pair: pair[0]))
        result[at] = _Cached(b, ordered, complete=counts[at] == len(ordered))
    return result


class SnapshotReader:
    def __init__(self, bus: AtspiBus, mirrors: Mirrors) -> None:
        self._bus = bus
        self._mirrors = mirrors

    async def _cache(self, root: RootInfo, at: Address) -> dict[Address, _Cached] | None:
        if not uses_cache(root.toolkit):
            return None
        await self._bus.ensure_events()
        try:
            body = await self._bus.call(at.bus, CACHE_PATH, CACHE_IFACE, "GetItems")
        except CallFailed:
            return None  # no cache yet (or an old signature): walk instead
        return index_cache(list(body[0]))

    async def snapshot(
        self, root: RootInfo, origin: tuple[int, int], *, max_nodes: int, max_depth: int
    ) -> Snapshot:
        started = time.perf_counter()
        at = Address.parse(root.native_id)
        max_nodes, max_depth = max(1, max_nodes), max(0, max_depth)
        cache = await self._cache(root, at)
        cached_at = time.perf_counter()
        # After a round trip to the app (its extents, read by the caller, or the
        # cache): every event it sent before answering has been counted.
        key = (max_nodes, max_depth, self._bus.connection_epoch)
        keep = remembered(root.toolkit)
        trusted = mirrored(root.toolkit)
        reuse = self._mirrors.take(root.native_id, key, trusted=trusted) if keep else None
        gtk = root.toolkit.lower().startswith("gtk")
        plan = _Plan(cache, reuse, origin, is_gtk=gtk)
        try:
            visits = await self._walk(at, plan, max_nodes, max_depth)
        except AppGone as exc:
            raise AppGone(
                f"{root.app_name} (pid {root.pid}) exited while its window {root.title!r} was "
                "being read; call find_roots again."
            ) from exc
        first = visits[0].basics
        if first is None:
            raise TargetGone(
                f"the window {root.title!r} of {root.app_name} is gone; call find_roots again."
            )
        if not first.states & {"showing", "visible"}:
            # GTK 3 keeps a closed window's accessible, hidden.
            raise TargetGone(
                f"the window {root.title!r} of {root.app_name} was closed; call find_roots again."
            )
        tree, node_count = _assemble(visits)
        if keep:
            self._mirrors.store(root.native_id, key, _records(visits))
        done = time.perf_counter()
        source = "cache" if cache is not None else "walk"
        return Snapshot(
            root=root,
            tree=tree,
            captured_at=time.time(),
            node_count=node_count,
            truncated=any(v.truncated for v in visits),
            source=_source(source, reuse),
            timings_ms={
                "cache_ms": (cached_at - started) * 1000,
                "tree_ms": (done - cached_at) * 1000,
                "total_ms": (done - started) * 1000,
            },
        )

    async def _walk(
        self,
        root: Address,
        plan: _Plan,
        max_nodes: int,
        max_depth: int,
    ) -> list[_Visit]:
        """Visit nodes as soon as their parent's children are known, in BFS order.

        There is no per-level barrier: up to the bus's bound of calls are in
        flight across levels, and a node's children start before its own
        details are read. Children are admitted (given their index) strictly in
        breadth-first order, so the node cap keeps the same nodes a level-by-
        level walk would.
        """
        visits = [_Visit(root, 0, -1)]
        seen = {root}
        admitted = 0

        def admit_ready(group: asyncio.TaskGroup) -> None:
            nonlocal admitted
            while admitted < len(visits) and visits[admitted].children_known:
                visit = visits[admitted]
                for child in visit.child_addresses:
                    if child in seen:
                        continue
                    if len(visits) >= max_nodes:
                        visit.truncated = True
                        break
                    seen.add(child)
                    visit.children.append(len(visits))
                    visits.append(_Visit(child, visit.depth + 1, admitted))
                    group.create_task(self._visit(visits, len(visits) - 1, plan, max_depth, admit))
                admitted += 1

        try:
            async with asyncio.TaskGroup() as group:

                def admit() -> None:
                    admit_ready(group)

                group.create_task(self._visit(visits, 0, plan, max_depth, admit))
        except ExceptionGroup as failed:  # a timeout: the app is hung, give up
            raise failed.exceptions[0] from None
        return visits

    async def _visit(
        self,
        visits: list[_Visit],
        index: int,
        plan: _Plan,
        max_depth: int,
        admit: Callable[[], None],
    ) -> None:
        visit = visits[index]
        entry = plan.cache.get(visit.at) if plan.cache is not None else None
        known = plan.reuse.clean(visit.at) if plan.reuse is not None else None
        parent = visits[visit.parent] if visit.parent >= 0 else None

        async def children(wanted: bool) -> None:
            visit.child_addresses = await self._children(visit.at, entry, known, wanted)
            visit.children_known = True
            admit()

        async def details(basics: Basics) -> Details:
            if plan.rect_follows_parent and parent is not None:
                await parent.settled.wait()
            want_rect = plan.wants_rect(basics, parent)
            if known is not None:
                return await self._mirrored_details(visit.at, known, basics, plan.origin, want_rect)
            return await read_details(
                self._bus,
                visit.at,
                basics,
                plan.origin,
                want_rect=want_rect,
                want_actions=plan.wants_actions(basics),
            )

        try:
            if entry is not None:
                basics = entry.basics
            elif known is not None:
                basics = known.basics
            else:
                identity = plan.reuse.identity(visit.at) if plan.reuse is not None else None
                basics = await read_basics(self._bus, visit.at, identity)
            wants_children = basics.child_count != 0
            if wants_children and visit.depth >= max_depth:
                visit.truncated = True
                wants_children = False
            _, read = await asyncio.gather(children(wants_children), details(basics))
            visit.basics, visit.details = basics, read
            visit.children_read = wants_children or basics.child_count == 0
        except AppGone:
            raise  # a partial tree of a dead app would look like a real one
        except (TargetGone, CallFailed):
            pass  # vanished or broken mid-walk: left out with its subtree
        finally:
            visit.settled.set()
            if not visit.children_known:
                visit.child_addresses = []
                visit.children_known = True
                admit()

    async def _mirrored_details(
        self,
        at: Address,
        known: NodeRecord,
        basics: Basics,
        origin: tuple[int, int],
        want_rect: bool,
    ) -> Details:
        """The mirror's fields with fresh extents (layout moves things silently)."""
        rect = None
        if want_rect and "Component" in basics.interfaces:
            rect = await read_extents(self._bus, at, origin)
        return replace(known.details, rect=rect)

    async def _children(
        self, at: Address, entry: _Cached | None, known: NodeRecord | None, wanted: bool
    ) -> list[Address]:
        if not wanted:
            return []
        if entry is not None and entry.complete:
            return list(entry.children)
        if known is not None and known.children is not None:
            return list(known.children)
        return await read_children(self._bus, at)


def _source(source: str, reuse: Reuse | None) -> str:
    if reuse is None:
        return source
    return f"mirror+{source}" if reuse.trusted else f"{source}+known-roles"


def _records(visits: list[_Visit]) -> dict[Address, NodeRecord]:
    return {
        v.at: NodeRecord(v.basics, v.details, tuple(v.child_addresses) if v.children_read else None)
        for v in visits
        if v.basics is not None and v.details is not None
    }


def _assemble(visits: list[_Visit]) -> tuple[RawNode, int]:
    """RawNodes bottom-up and their count; failed nodes are dropped with their subtrees."""
    built: dict[int, RawNode] = {}
    sizes: dict[int, int] = {}
    scroll_area = [False] * len(visits)
    for i, v in enumerate(visits):
        if v.basics is not None:
            inherited = scroll_area[v.parent] if v.parent >= 0 else False
            scroll_area[i] = inherited or v.basics.role in SCROLL_ROLES
    for i in range(len(visits) - 1, -1, -1):
        v = visits[i]
        if v.basics is None or v.details is None:
            continue
        parent = visits[v.parent].basics if v.parent >= 0 else None
        b, d = v.basics, v.details
        kept = [c for c in v.children if c in built]
        sizes[i] = 1 + sum(sizes[c] for c in kept)
        built[i] = RawNode(
            native_id=v.at.native_id,
            raw_role=b.role,
            name=b.name,
            description=b.description,
            value=None if b.secure else d.value,
            value_length=0 if b.secure else d.value_length,
            states=b.states,
            interfaces=b.interfaces,
            actions=d.actions,
            caps=derive_caps(
                b.role,
                b.interfaces,
                d.actions,
                b.states,
                parent_selects=parent is not None and "Selection" in parent.interfaces,
                in_scroll_area=v.parent >= 0 and scroll_area[v.parent],
            ),
            rect=d.rect,
            secure=b.secure,
            truncated=v.truncated,
            children=tuple(built.pop(c) for c in kept),
        )
    return built[0], sizes[0]
