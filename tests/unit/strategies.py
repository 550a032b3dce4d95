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


_RECTS = st.none() | st.builds(
    Rect, st.integers(0, 500), st.integers(0, 500), st.integers(1, 90), st.integers(1, 40)
)
_NODE_FIELDS = st.fixed_dictionaries(
    {
        "raw_role": st.sampled_from(RAW_ROLES),
        "name": st.sampled_from(NAMES),
        "description": st.sampled_from(("", "", "hint")),
        "value": st.none() | st.text('ab €\n"', max_size=6),
        "states": st.frozensets(st.sampled_from(STATES), max_size=5),
        "focused": st.integers(0, 7).map(lambda n: n == 0),
        "caps": st.frozensets(st.sampled_from(CAPABILITIES), max_size=3),
        "actions": st.sampled_from(((), ("click",), ("press", "activate"))),
        "rect": _RECTS,
        "truncated": st.integers(0, 11).map(lambda n: n == 0),
        "parent": st.integers(0, 1 << 16),
    }
)
"""One node's random fields; ``parent`` picks the node it hangs under."""


def _tree(rows: list[dict[str, Any]], wire_prefix: str) -> RawNode:
    """Node ``i`` hangs under the previous node half the time, else any earlier one."""
    nodes: list[RawNode] = []
    kids: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        fields = dict(row)
        pick = fields.pop("parent")
        if i:
            kids.setdefault(i - 1 if pick % 2 else pick % i, []).append(i)
        states = fields.pop("states") | ({"focused"} if fields.pop("focused") else set())
        secure = fields["raw_role"] == "password text"
        fields["value"] = None if secure else fields["value"]
        nodes.append(RawNode(native_id=f"{wire_prefix}{i}", states=states, secure=secure, **fields))
    for i in reversed(range(len(nodes))):
        nodes[i] = replace(nodes[i], children=tuple(nodes[c] for c in kids.get(i, ())))
    return nodes[0]


def raw_trees(max_nodes: int = 40, wire_prefix: str = "/w/") -> st.SearchStrategy[RawNode]:
    """Random trees of up to ``max_nodes`` nodes with unique native ids."""
    rows = st.lists(_NODE_FIELDS, min_size=1, max_size=max_nodes)
    return rows.map(lambda found: _tree(found, wire_prefix))


def outlines(max_nodes: int = 40) -> st.SearchStrategy[Outline]:
    return raw_trees(max_nodes).map(outline_of)
