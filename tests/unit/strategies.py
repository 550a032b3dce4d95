"""Random and hand-built outlines for the outline unit tests.

Trees are made of backend ``RawNode``s and turned into ``Outline``s by the real
``build_outline``, so the tests exercise the same construction as the runtime.
Names come from a small pool so that siblings collide on structural keys.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from actui.backends.base import CAPABILITIES, RawNode, Rect
from actui.outline.model import Outline, build_outline

RAW_ROLES = (
    "frame",
    "panel",
    "filler",
    "push button",
    "button",
    "toggle button",
    "check box",
    "label",
    "text",
    "password text",
    "menu item",
    "list item",
    "table cell",
    "scroll pane",
    "dialog",
)
NAMES = ("", "", "Save", "Open", "OK", "Cancel", "Name", "File", "Save changes")
STATES = (
    "enabled",
    "sensitive",
    "showing",
    "visible",
    "focusable",
    "checked",
    "selected",
    "expandable",
    "expanded",
    "editable",
)

_ids = itertools.count(1)


def raw(
    role: str,
    name: str = "",
    *children: RawNode,
    wire: str | None = None,
    **fields: Any,
) -> RawNode:
    """A hand-built node; ``wire`` defaults to a fresh unique native id."""
    node = RawNode(
        native_id=wire or f"/test/{next(_ids)}",
        raw_role=role,
        name=name,
        children=tuple(children),
    )
    return replace(node, **fields)


def outline_of(tree: RawNode) -> Outline:
    return build_outline(tree, None)


def rewired(tree: RawNode, prefix: str) -> RawNode:
    """The same tree with every native id regenerated (as Linux looks may do)."""
    return replace(
        tree,
        native_id=prefix + tree.native_id,
        children=tuple(rewired(child, prefix) for child in tree.children),
    )


def paths(tree: RawNode, at: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """Child-index paths of every node, the root's being ``()``."""
    found = [at]
    for index, child in enumerate(tree.children):
        found.extend(paths(child, (*at, index)))
    return found


def inserted(tree: RawNode, at: Sequence[int], index: int, node: RawNode) -> RawNode:
    """``tree`` with ``node`` inserted as child ``index`` of the node at path ``at``."""
    if not at:
        kids = list(tree.children)
        kids.insert(index, node)
        return replace(tree, children=tuple(kids))
    head, rest = at[0], at[1:]
    kids = list(tree.children)
    kids[head] = inserted(kids[head], rest, index, node)
    return replace(tree, children=tuple(kids))


def removed(tree: RawNode, at: Sequence[int]) -> RawNode:
    """``tree`` without the subtree at path ``at`` (which must not be the root)."""
    head, rest = at[0], at[1:]
    kids = list(tree.children)
    if rest:
        kids[head] = removed(kids[head], rest)
    else:
        del kids[head]
    return replace(tree, children=tuple(kids))


def size(tree: RawNode) -> int:
    return 1 + sum(size(child) for child in tree.children)


@st.composite
def raw_nodes(draw: st.DrawFn, wire: str) -> RawNode:
    """One childless node with random role, name, states and capabilities."""
    role = draw(st.sampled_from(RAW_ROLES))
    secure = role == "password text"
    states = set(draw(st.frozensets(st.sampled_from(STATES), max_size=5)))
    if draw(st.integers(0, 7)) == 0:
        states.add("focused")
    rect = draw(
        st.none()
        | st.builds(
            Rect, st.integers(0, 500), st.integers(0, 500), st.integers(1, 90), st.integers(1, 40)
        )
    )
    return RawNode(
        native_id=wire,
        raw_role=role,
        name=draw(st.sampled_from(NAMES)),
        description=draw(st.sampled_from(("", "", "hint"))),
        value=None if secure else draw(st.none() | st.text('ab €\n"', max_size=6)),
        states=frozenset(states),
        caps=draw(st.frozensets(st.sampled_from(CAPABILITIES), max_size=3)),
        actions=draw(st.sampled_from(((), ("click",), ("press", "activate")))),
        rect=rect,
        secure=secure,
        truncated=draw(st.integers(0, 11)) == 0,
    )


@st.composite
def raw_trees(draw: st.DrawFn, max_nodes: int = 40, wire_prefix: str = "/w/") -> RawNode:
    """A random tree: node ``i`` hangs under some earlier node, often the previous one."""
    count = draw(st.integers(1, max_nodes))
    parents = [draw(st.sampled_from((i - 1,)) | st.integers(0, i - 1)) for i in range(1, count)]
    nodes = [draw(raw_nodes(f"{wire_prefix}{i}")) for i in range(count)]
    kids: dict[int, list[int]] = {}
    for child, parent in enumerate(parents, 1):
        kids.setdefault(parent, []).append(child)
    for i in reversed(range(count)):
        nodes[i] = replace(nodes[i], children=tuple(nodes[c] for c in kids.get(i, ())))
    return nodes[0]


def outlines(max_nodes: int = 40) -> st.SearchStrategy[Outline]:
    return raw_trees(max_nodes).map(outline_of)
