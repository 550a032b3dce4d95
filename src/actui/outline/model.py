"""The outline: an immutable, ref-addressed tree built from one snapshot.

This module owns the node model and its construction from backend data
(breadth-first ``@e`` numbering in reading order, neutral roles,
window-relative rects, the names of unnamed fields from ``reading``). It must
not render, fold, diff or talk to a platform.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from actui.backends.base import Pages, RawNode, Rect, Window
from actui.outline.reading import (
    FIELD_ROLES,
    LABEL_ROLES,
    Box,
    editor_names,
    infer_labels,
    panes,
    reading_order,
)
from actui.outline.roles import neutral_role


@dataclass(frozen=True)
class Node:
    """One element of an outline. ``wire`` is the backend's native id."""

    ref: str
    wire: str | None
    role: str
    raw_role: str
    name: str = ""
    description: str = ""
    value: str = ""
    value_length: int = 0
    states: frozenset[str] = frozenset()
    actions: tuple[str, ...] = ()
    caps: frozenset[str] = frozenset()
    rect: Rect | None = None
    secure: bool = False
    truncated: bool = False
    picture_only: bool = False
    ocr_text: tuple[str, ...] = ()
    parent: str | None = None
    children: tuple[str, ...] = ()
    depth: int = 0
    name_inferred: bool = False
    """The name is the text of a label found beside or above the node, not the platform's."""
    window: Window | None = None
    """Set on a container read as a window onto its data: its children are the shown part."""
    pages: Pages | None = None
    """A document's page count and the caret's page, where its application says them."""
    unread: int = 0
    """Children not read because the node is not shown (``RawNode.unread``)."""

    @property
    def label(self) -> str:
        """The first non-empty of name, description, value."""
        return self.name or self.description or self.value

    @property
    def focused(self) -> bool:
        return "focused" in self.states


def is_hidden(node: Node) -> bool:
    """Whether the node is not displayed at all (a closed find bar, a widget its app hid),
    as a backend says with ``hidden``: a first view leaves it out, a search ranks it after
    what is shown, and a condition does not count it unless it names it."""
    return "hidden" in node.states


def is_offscreen(node: Node) -> bool:
    """Whether the node exists but is not on screen (a hidden page, a closed popover, a
    hidden widget).

    A backend may say so directly (``offscreen``, ``hidden``); AT-SPI says ``visible``
    without ``showing``.
    """
    states = node.states
    return (
        "offscreen" in states
        or "hidden" in states
        or ("visible" in states and "showing" not in states)
    )


def ref_number(ref: str) -> int:
    return int(ref[2:])


@dataclass(frozen=True)
class Outline:
    """An immutable tree; ``nodes`` is in breadth-first order."""

    root: str
    nodes: Mapping[str, Node] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.nodes, MappingProxyType):
            object.__setattr__(self, "nodes", MappingProxyType(dict(self.nodes)))

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes.values())

    def get(self, ref: str) -> Node | None:
        return self.nodes.get(ref)

    @property
    def root_node(self) -> Node:
        return self.nodes[self.root]

    @property
    def max_ref(self) -> int:
        return max((ref_number(r) for r in self.nodes), default=0)

    def by_wire(self) -> dict[str, Node]:
        return {n.wire: n for n in self.nodes.values() if n.wire}

    def children(self, node: Node) -> list[Node]:
        return [self.nodes[c] for c in node.children]

    def ancestors(self, node: Node) -> list[Node]:
        """From the root down to the node's parent."""
        chain: list[Node] = []
        cur = node.parent
        while cur is not None:
            parent = self.nodes[cur]
            chain.append(parent)
            cur = parent.parent
        chain.reverse()
        return chain

    def subtree(self, node: Node) -> Iterator[Node]:
        """The node and all its descendants, pre-order."""
        nodes = self.nodes
        stack = [node]
        while stack:
            cur = stack.pop()
            yield cur
            if cur.children:
                stack.extend(nodes[c] for c in reversed(cur.children))

    def descendant_count(self, node: Node) -> int:
        return self._sizes[node.ref] - 1

    def holds_text(self, node: Node) -> bool:
        """Whether the node or a descendant has a label (name, description or value)."""
        return node.ref in self._texty

    @functools.cached_property
    def _texty(self) -> frozenset[str]:
        """Refs of nodes with a label in their subtree, computed once per outline."""
        texty: set[str] = set()
        for node in reversed(list(self.subtree(self.root_node))):  # descendants first
            if node.label or any(c in texty for c in node.children):
                texty.add(node.ref)
        return frozenset(texty)

    @functools.cached_property
    def _sizes(self) -> dict[str, int]:
        """Subtree sizes, computed once per outline (every fold asks for some)."""
        sizes: dict[str, int] = {}
        for node in reversed(list(self.subtree(self.root_node))):  # descendants first
            sizes[node.ref] = 1 + sum(sizes[c] for c in node.children)
        return sizes


def build_outline(tree: RawNode, origin: Rect | None, scale: float = 1.0) -> Outline:
    """Number ``tree`` breadth-first from ``@e1`` with rects relative to ``origin``.

    ``origin`` is the root's frame in screen pixels; rects become
    window-relative and are multiplied by ``scale`` (image pixels per screen
    pixel) so they are in the observed image's pixel space.
    """
    ox, oy = (origin.x, origin.y) if origin else (0, 0)
    queue: list[tuple[RawNode, str | None, int]] = [(tree, None, 0)]
    ordered: list[tuple[RawNode, str | None, int, str]] = []
    index = 0
    while index < len(queue):
        raw, parent, depth = queue[index]
        index += 1
        ref = f"@e{index}"
        ordered.append((raw, parent, depth, ref))
        kids = raw.children
        order = reading_order([c.rect for c in kids]) if len(kids) > 1 else range(len(kids))
        queue.extend((kids[i], ref, depth + 1) for i in order)
    children: dict[str, list[str]] = {}
    for _, parent, _, ref in ordered:
        if parent is not None:
            children.setdefault(parent, []).append(ref)
    nodes: dict[str, Node] = {}
    for raw, parent, depth, ref in ordered:
        rect = None
        if raw.rect is not None and not raw.rect.empty:
            r = raw.rect
            rect = Rect(
                round((r.x - ox) * scale),
                round((r.y - oy) * scale),
                max(1, round(r.w * scale)),
                max(1, round(r.h * scale)),
            )
        nodes[ref] = Node(
            ref=ref,
            wire=raw.native_id,
            role="password" if raw.secure else neutral_role(raw.raw_role),
            raw_role=raw.raw_role,
            name=raw.name.strip(),
            description=raw.description.strip(),
            value="" if raw.secure or raw.value is None else raw.value,
            value_length=0 if raw.secure else raw.value_length,
            states=raw.states,
            actions=raw.actions,
            caps=raw.caps,
            rect=rect,
            secure=raw.secure,
            truncated=raw.truncated,
            window=raw.window,
            pages=raw.pages,
            unread=raw.unread,
            parent=parent,
            children=tuple(children.get(ref, ())),
            depth=depth,
        )
    refs_by_id = {raw.native_id: ref for raw, _, _, ref in ordered if raw.native_id}
    labelled_by = {
        ref: tuple(refs_by_id[i] for i in raw.labelled_by if i in refs_by_id)
        for raw, _, _, ref in ordered
        if raw.labelled_by
    }
    return Outline(root="@e1", nodes=_named(nodes, labelled_by))


def _named(nodes: dict[str, Node], labelled_by: Mapping[str, tuple[str, ...]]) -> dict[str, Node]:
    """``nodes`` with unnamed fields named as a person would read them (see ``reading``)."""
    involved = set(labelled_by).union(*labelled_by.values())
    pane = panes({n.ref: n.parent for n in nodes.values()}, {n.ref: n.role for n in nodes.values()})
    boxes = [
        Box(
            key=node.ref,
            role=node.role,
            text="" if node.secure else node.name,
            rect=None if is_offscreen(node) else node.rect,
            named=bool(node.name),
            labelled_by=labelled_by.get(node.ref, ()),
            pane=pane[node.ref],
        )
        for node in nodes.values()
        if node.role in FIELD_ROLES or node.role in LABEL_ROLES or node.ref in involved
    ]
    for ref, (name, inferred) in infer_labels(boxes).items():
        nodes[ref] = replace(nodes[ref], name=name, name_inferred=inferred)
    editors = [
        n
        for n in nodes.values()
        if n.role == "textbox" and "multi_line" in n.states and not n.name and not n.secure
    ]
    shown = [n.ref for n in editors if not is_offscreen(n)]
    away = [n.ref for n in editors if is_offscreen(n)]
    for ref, name in editor_names(shown, away).items():
        nodes[ref] = replace(nodes[ref], name=name, name_inferred=True)
    return nodes


def renumbered(outline: Outline, mapping: Mapping[str, str]) -> Outline:
    """The same tree with refs renamed by ``mapping`` (old ref → new ref)."""
    nodes: dict[str, Node] = {}
    for node in outline:
        new_ref = mapping[node.ref]
        nodes[new_ref] = replace(
            node,
            ref=new_ref,
            parent=mapping[node.parent] if node.parent else None,
            children=tuple(mapping[c] for c in node.children),
        )
    return Outline(root=mapping[outline.root], nodes=nodes)


def grafted(
    outline: Outline, parent: str, children: tuple[RawNode, ...], origin: Rect | None, scale: float
) -> Outline:
    """A successor outline with ``children`` read on demand added under ``parent``.

    They are numbered after every existing ref, so refs of the base outline
    keep their meaning; ones already in the outline, or given twice (by native id), join
    once.
    """
    known = outline.by_wire()
    fresh = tuple({c.native_id: c for c in children if c.native_id not in known}.values())
    if not fresh:
        return outline
    holder = outline.nodes[parent]
    piece = build_outline(RawNode(native_id="", raw_role="", children=fresh), origin, scale)
    start = outline.max_ref
    mapping = {ref: f"@e{start + ref_number(ref) - 1}" for ref in piece.nodes}
    mapping[piece.root] = parent
    added = renumbered(piece, mapping)
    nodes = dict(outline.nodes)
    for node in added:
        if node.ref != parent:
            nodes[node.ref] = replace(node, depth=node.depth + holder.depth)
    extra = added.nodes[parent].children
    nodes[parent] = replace(holder, children=holder.children + extra)
    return Outline(root=outline.root, nodes=nodes)


def opened(
    outline: Outline, ref: str, below: RawNode, origin: Rect | None, scale: float
) -> Outline:
    """A successor outline with what ``ref`` held unread (``Node.unread``) read in: ``below``
    is the element read on demand, its children join under ``ref``, numbered as
    :func:`grafted` numbers them."""
    grown = grafted(outline, ref, below.children, origin, scale)
    nodes = dict(grown.nodes)
    nodes[ref] = replace(nodes[ref], unread=0)
    return Outline(root=grown.root, nodes=nodes)
