"""One root's tree: from the toolkit cache where it is complete, else a walk.

Owns the breadth-first traversal (level by level, so the node cap always keeps
the same nodes), the node and depth caps with ``truncated`` marked on every
node whose children were cut, and the choice between ``Cache.GetItems``
(GTK3 and Chromium: complete after ``RegisterEvent``; GTK3 omits transient
tree cells, so a node whose cached children fall short of its child count is
walked live) and plain calls. Per-node calls live in ``reader``; caps in
``caps``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus, CallFailed
from actui.backends.atspi.caps import SCROLL_ROLES, derive_caps
from actui.backends.atspi.reader import (
    Basics,
    Details,
    read_basics,
    read_children,
    read_details,
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
    finished: bool = False


@dataclass(frozen=True)
class _Plan:
    """Which calls a node needs: the rules that skip calls which cannot matter."""

    cache: dict[Address, _Cached] | None
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
    def __init__(self, bus: AtspiBus) -> None:
        self._bus = bus

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
        cache = await self._cache(root, at)
        cached_at = time.perf_counter()
        plan = _Plan(cache, origin, is_gtk=root.toolkit.lower().startswith("gtk"))
        visits = await self._walk(at, plan, max(1, max_nodes), max(0, max_depth))
        if visits[0].basics is None:
            raise TargetGone(
                f"the window {root.title!r} of {root.app_name} is gone; call find_roots again."
            )
        tree = _assemble(visits)
        done = time.perf_counter()
        return Snapshot(
            root=root,
            tree=tree,
            captured_at=time.time(),
            node_count=sum(1 for v in visits if v.basics is not None),
            truncated=any(v.truncated for v in visits),
            source="cache" if cache is not None else "walk",
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
        """Visit nodes as soon as their parent is read, admitting children in BFS order.

        There is no per-level barrier: up to the bus's bound of calls are in
        flight across levels. Children are admitted (given their index) strictly
        in breadth-first order, so the node cap keeps the same nodes a level-by-
        level walk would.
        """
        visits = [_Visit(root, 0, -1)]
        seen = {root}
        admitted = 0

        def admit_ready(group: asyncio.TaskGroup) -> None:
            nonlocal admitted
            while admitted < len(visits) and visits[admitted].finished:
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
                    group.create_task(run(group, len(visits) - 1))
                admitted += 1

        async def run(group: asyncio.TaskGroup, index: int) -> None:
            await self._visit(visits, index, plan, max_depth)
            visits[index].finished = True
            admit_ready(group)

        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(run(group, 0))
        except ExceptionGroup as failed:  # a timeout: the app is hung, give up
            raise failed.exceptions[0] from None
        return visits

    async def _visit(self, visits: list[_Visit], index: int, plan: _Plan, max_depth: int) -> None:
        visit = visits[index]
        entry = plan.cache.get(visit.at) if plan.cache is not None else None
        parent = visits[visit.parent] if visit.parent >= 0 else None
        try:
            basics = entry.basics if entry is not None else await read_basics(self._bus, visit.at)
            wants_children = basics.child_count != 0
            if wants_children and visit.depth >= max_depth:
                visit.truncated = True
                wants_children = False
            details, children = await asyncio.gather(
                read_details(
                    self._bus,
                    visit.at,
                    basics,
                    plan.origin,
                    want_rect=plan.wants_rect(basics, parent),
                    want_actions=plan.wants_actions(basics),
                ),
                self._children(visit.at, entry, wants_children),
            )
        except (TargetGone, CallFailed):
            return  # vanished or broken mid-walk: leave it out
        visit.basics, visit.details, visit.child_addresses = basics, details, children

    async def _children(self, at: Address, entry: _Cached | None, wanted: bool) -> list[Address]:
        if not wanted:
            return []
        if entry is not None and entry.complete:
            return list(entry.children)
        return await read_children(self._bus, at)


def _assemble(visits: list[_Visit]) -> RawNode:
    """RawNodes bottom-up; failed nodes are dropped with their subtrees."""
    built: dict[int, RawNode] = {}
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
            children=tuple(built.pop(c) for c in v.children if c in built),
        )
    return built[0]
