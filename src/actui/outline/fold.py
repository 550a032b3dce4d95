"""How an outline reads as text: display names, label lines, paths and the fold.

An agent sees a window through this module, so every line must be bounded and
honest: folded nodes say how many descendants they hide, a budget cut ends in a
receipt, focused nodes are shown whatever the budget, and a long run of alike
unlabeled siblings (a browser's hidden popup menus) is one line, not dozens.
Roles are the neutral vocabulary; native ids (object paths, wire refs) are
never printed, and a password field never shows a value.

This module only renders. It must not search, diff, mutate outlines or know
about states and tools beyond the stateId it is handed for a header.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

from actui.backends.base import CAPABILITIES
from actui.errors import UnknownRef
from actui.outline.documents import pages_text
from actui.outline.model import Node, Outline, is_offscreen
from actui.outline.windows import window_text
from actui.quoting import inline, quote

LABEL_CAP = 120
"""Characters of a label shown in a fold line or a path."""
INSPECT_LABEL_CAP = 512
"""Characters of a label shown in the expand/inspect label line."""
VALUE_CAP = 80
"""Characters of a value shown inline; the rest is paged through read_text."""
SUMMARY_ROLES = 4
"""Roles listed in a fold summary."""

_CAP_ORDER = {name: index for index, name in enumerate(CAPABILITIES)}
_SENSITIVITY = frozenset({"enabled", "sensitive"})
_VISIBILITY = frozenset({"visible", "showing"})
TEXT_FIELDS = frozenset({"textbox", "password"})
"""Roles whose elements are editable unless marked ``read-only``."""
INFERRED = "(label inferred)"
"""Follows a name found by layout (``reading``), not given by the platform."""


def quoted(text: str, cap: int) -> str:
    """``text`` cut to ``cap``, quoted on one line by the one rule (``actui.quoting``)."""
    return quote(text, cap)


def _label_is_value(node: Node) -> bool:
    return not node.name and not node.description


def display_name(node: Node) -> str:
    """The neutral role, then the quoted label when there is one.

    A label taken from the value is cut like a value, since it is one.
    """
    if not node.label:
        return node.role
    cap = VALUE_CAP if _label_is_value(node) else LABEL_CAP
    inferred = f" {INFERRED}" if node.name_inferred else ""
    return f"{node.role} {quoted(node.label, cap)}{inferred}"


def is_disabled(node: Node) -> bool:
    """Whether the platform says the node does not accept input.

    A backend may say so directly (``disabled``). AT-SPI instead reports
    ``enabled``/``sensitive`` on every widget that accepts input, alongside
    ``visible``/``showing``; a node that reports its visibility but neither of
    those is disabled. A node with no such states reported is not judged.
    """
    if "disabled" in node.states:
        return True
    return bool(node.states & _VISIBILITY) and not node.states & _SENSITIVITY


def marks(node: Node) -> list[str]:
    """The states and annotations that matter to an agent, in a fixed order."""
    states = node.states
    found: list[str] = [n for n in ("focused", "checked", "pressed", "selected") if n in states]
    if "indeterminate" in states or "mixed" in states:
        found.append("mixed")
    if "expanded" in states:
        found.append("expanded")
    elif "collapsed" in states or "expandable" in states:
        found.append("collapsed")
    if is_disabled(node):
        found.append("disabled")
    if node.role in TEXT_FIELDS:  # a text field is editable unless it says otherwise
        found.extend(() if "editable" in states else ("read-only",))
    elif "editable" in states:
        found.append("editable")
    if "modal" in states:
        found.append("modal")
    if is_offscreen(node) and not node.unread:  # else its line says "not shown"
        found.append("offscreen")
    if node.picture_only:
        found.append("picture-only")
    if node.truncated:
        found.append("truncated")
    return found


def ordered_caps(node: Node) -> tuple[str, ...]:
    """The node's capabilities in the vocabulary's order (unknown ones last, sorted)."""
    return _in_order(node.caps)


@functools.lru_cache(maxsize=512)
def _in_order(caps: frozenset[str]) -> tuple[str, ...]:
    """Cached: a window's elements share a handful of capability sets, and sorting each
    element's again was a visible part of every view's rendering."""
    return tuple(sorted(caps, key=lambda cap: (_CAP_ORDER.get(cap, len(_CAP_ORDER)), cap)))


_PRESS = frozenset({"press", "focus"})
_TOGGLE = frozenset({"press", "toggle", "focus"})
_FIELD = frozenset({"press", "setText", "typeText", "focus"})
_VALUE = frozenset({"setValue", "increment", "decrement", "focus"})
USUAL_CAPS: dict[str, frozenset[str]] = {
    "button": _PRESS,
    "link": _PRESS,
    "menuitem": _PRESS,
    "tab": _PRESS,
    "checkbox": _TOGGLE,
    "radio": _TOGGLE,
    "toggle": _TOGGLE,
    "textbox": _FIELD,
    "password": _FIELD,
    "combobox": frozenset({"press", "select", "focus", "expand"}),
    "listitem": frozenset({"press", "select", "focus"}),
    "slider": _VALUE,
    "spinbutton": _VALUE,
    "document": frozenset({"focus", "scroll"}),
}
"""What a role can be asked to do unless its line says otherwise: lines list only the
capabilities beyond these, and ``-cap`` for one of these the element lacks. A button
that presses says nothing; most of a window's lines are such controls."""


def caps_text(role: str, caps: Collection[str]) -> str:
    """`` {scroll,-press}``: the capabilities ``caps`` has beyond its role's usual ones
    (``USUAL_CAPS``), then those it lacks; empty when it has exactly the usual ones."""
    return _caps_text(role, frozenset(caps))


@functools.lru_cache(maxsize=512)
def _caps_text(role: str, have: frozenset[str]) -> str:
    """``caps_text`` of one (role, capability set), cached as ``_in_order`` is."""
    usual = USUAL_CAPS.get(role, frozenset())
    parts = [*_in_order(have - usual), *(f"-{cap}" for cap in _in_order(usual - have))]
    return " {" + ",".join(parts) + "}" if parts else ""


def _value_text(node: Node) -> str:
    """`` value="…"`` unless the value is the label or repeats the name (Gecko's and
    Chromium's headings, labels and buttons carry their text as both); never for a
    password field.

    A value cut here (or by the backend) says its full length, so the agent
    knows to page it through read_text.
    """
    if node.secure or not node.value or node.value == node.name:
        return ""
    text = "" if _label_is_value(node) else f" value={quoted(node.value, VALUE_CAP)}"
    total = max(node.value_length, len(node.value))
    if total > min(len(node.value), VALUE_CAP):
        text += f" ({total} chars)"
    return text


def node_details(node: Node, *, every_cap: bool = False) -> str:
    """Value, capabilities and marks: what every rendering of a node appends. The
    capabilities are those beyond the role's usual ones (``caps_text``), or with
    ``every_cap`` all of them (an element's own head line)."""
    text = _value_text(node)
    if every_cap:
        text += " {" + ",".join(ordered_caps(node)) + "}" if node.caps else ""
    else:
        text += caps_text(node.role, node.caps)
    found = marks(node)
    if found:
        text += " [" + ", ".join(found) + "]"
    return text


def node_line(node: Node) -> str:
    """A node as one fold line, without indent or fold summary."""
    return (
        f"{node.ref} {display_name(node)}{_window(node)}{_pages(node)}{_unread(node)}"
        f"{node_details(node)}"
    )


def _unread(node: Node) -> str:
    """`` (not shown; 212 items unread)``: expand_ui or search_ui reads them (a count of
    -1: the toolkit did not say how many)."""
    if not node.unread:
        return ""
    count = f"{node.unread:,} {plural('item', node.unread)}" if node.unread > 0 else "items"
    return f" (not shown; {count} unread)"


def _window(node: Node) -> str:
    return f" {window_text(node.window)}" if node.window is not None else ""


def _pages(node: Node) -> str:
    """`` (caret on page 1 of 193)``: where a document stands, where its app says so."""
    return f" ({pages_text(node.pages)})" if node.pages is not None else ""


def label_line(node: Node) -> str:
    """The head line of expand_ui and inspect_ui.

    The raw platform role follows the neutral one in brackets when they
    differ, so an agent can see what the toolkit really said.
    """
    role = node.role
    raw = node.raw_role.strip()
    if raw and raw.lower() != role:
        role += f" [{inline(raw, LABEL_CAP)}]"
    label = quoted(node.label, INSPECT_LABEL_CAP) if node.label else "(unlabeled)"
    if node.name_inferred:
        label += f" {INFERRED}"
    return (
        f"{node.ref} {role} {label}{_window(node)}{_pages(node)}"
        f"{node_details(node, every_cap=True)}"
    )


def path_text(outline: Outline, node: Node) -> str:
    """Display names from the root down to ``node``, joined with `` ▸ ``."""
    return " ▸ ".join(display_name(n) for n in [*outline.ancestors(node), node])


def plural(word: str, count: int) -> str:
    if count == 1:
        return word
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def fold_summary(outline: Outline, node: Node) -> str:
    """``(N: 3 buttons, 2 labels, …)``: all descendants, the top roles by count."""
    return role_summary([n for n in outline.subtree(node) if n is not node])


def role_counts(nodes: Iterable[Node]) -> Counter[str]:
    """How many of ``nodes`` have each role (picture-only ones counted apart)."""
    return Counter("picture-only" if n.picture_only else n.role for n in nodes)


def role_summary(nodes: list[Node]) -> str:
    return counts_summary(role_counts(nodes))


def counts_summary(counts: Counter[str]) -> str:
    """``(N: 3 buttons, 2 labels, …)``: the total, then the top roles by count."""
    total = sum(counts.values())
    if not total:
        return "(0 children)"
    top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:SUMMARY_ROLES]
    listed = ", ".join(f"{count} {plural(role, count)}" for role, count in top)
    if len(counts) > SUMMARY_ROLES:
        listed += ", …"
    return f"({total}: {listed})"


@dataclass(frozen=True)
class Fold:
    """A rendered fold.

    ``shown`` counts rendered node lines (a run of blank siblings is one) of
    the folded subtree out of ``total``
    (the whole tree when rendering from the root); ``lines`` counts every line
    of ``text``, path and receipt lines included. ``cut`` is true when the line
    budget, not folding, hid nodes.
    """

    text: str
    lines: int
    shown: int
    cut: bool
    total: int


def resolve(outline: Outline, ref: str) -> Node:
    """The node behind ``ref`` or a stale-ref error the agent can act on."""
    node = outline.get(ref)
    if node is None:
        raise UnknownRef(
            f"{ref} is not an element of this state; use a ref from the same stateId "
            "or observe again."
        )
    return node


def _unfolded(outline: Outline, top: Node, unfold: Collection[str]) -> set[str]:
    """Refs whose children are shown whatever their depth.

    The top node; the path and children of focused nodes and of ``unfold``
    refs; the paths down to truncated nodes and dialogs, so they stay visible.
    """
    wanted = set(unfold)
    opened = {top.ref}
    for node in outline.subtree(top):
        if node.focused or node.ref in wanted:
            opened.add(node.ref)
        if node.focused or node.ref in wanted or node.truncated or node.role == "dialog":
            opened.update(a.ref for a in outline.ancestors(node))
    return opened


def _required(outline: Outline, top: Node) -> set[str]:
    """Refs rendered whatever the line budget: the top node and focused paths."""
    required = {top.ref}
    above = {a.ref for a in outline.ancestors(top)}
    for node in outline.subtree(top):
        if node.focused:
            required.add(node.ref)
            required.update(a.ref for a in outline.ancestors(node) if a.ref not in above)
    return required


RUN_MIN = 4
"""Siblings alike and unlabeled in a row that are rendered as one line, not one by one."""


def _blank(outline: Outline, node: Node, keep: Collection[str]) -> bool:
    """Nothing to tell this node from its like siblings: no text in its whole subtree, no
    focus, not asked for (a run of empty popup menus, never rows that hold cells)."""
    return not outline.holds_text(node) and node.ref not in keep and not node.focused


def sibling_runs(
    outline: Outline, children: list[Node], keep: Collection[str]
) -> list[tuple[Node, ...]]:
    """``children`` grouped: runs of at least :data:`RUN_MIN` blank siblings that render
    alike (role, capabilities, marks) together, every other child alone."""
    groups: list[list[Node]] = []
    for child in children:
        last = groups[-1] if groups else None
        if (
            last is not None
            and _blank(outline, child, keep)
            and _blank(outline, last[0], keep)
            and node_details(child) == node_details(last[0])
            and child.role == last[0].role
        ):
            last.append(child)
        else:
            groups.append([child])
    split: list[tuple[Node, ...]] = []
    for group in groups:
        if len(group) >= RUN_MIN:
            split.append(tuple(group))
        else:
            split.extend((node,) for node in group)
    return split


def _visible(
    outline: Outline, top: Node, max_depth: int, opened: set[str], keep: Collection[str]
) -> Iterator[tuple[tuple[Node, ...], int, bool]]:
    """Pre-order ``(nodes, depth below top, folded)`` of every line folding leaves visible.

    ``nodes`` is one node, or a run of blank siblings shown as one folded line.
    """
    stack: list[tuple[tuple[Node, ...], int]] = [((top,), 0)]
    while stack:
        nodes, depth = stack.pop()
        node = nodes[0]
        if len(nodes) > 1:
            yield nodes, depth, any(n.children for n in nodes)
            continue
        unfolded = depth < max_depth or node.ref in opened
        yield nodes, depth, bool(node.children) and not unfolded
        if unfolded:
            groups = sibling_runs(outline, outline.children(node), keep)
            stack.extend((group, depth + 1) for group in reversed(groups))


def run_line(outline: Outline, nodes: tuple[Node, ...]) -> str:
    """``@e5 … @e27: 23 × menu [offscreen] (unlabeled)``, with what they hold together."""
    first = nodes[0]
    line = f"{first.ref} … {nodes[-1].ref}: {len(nodes)} × {first.role}{node_details(first)}"
    line += " (unlabeled; search_ui by role lists them)"
    inside = [d for n in nodes for d in outline.subtree(n) if d is not n]
    if inside:
        line += f" ▸ together {role_summary(inside)}"
    return line


def _path_line(node: Node, depth: int) -> str:
    """An ancestor of an expanded node; its other children stay hidden."""
    others = len(node.children) - 1
    hidden = f"; {others} other {'child' if others == 1 else 'children'} hidden" if others else ""
    return f"{'  ' * depth}{node_line(node)} (path{hidden})"


def render_fold(
    outline: Outline,
    *,
    max_depth: int = 2,
    max_lines: int = 150,
    unfold: Collection[str] = (),
    start: str | None = None,
) -> Fold:
    """The outline folded to ``max_depth`` and cut at ``max_lines`` node lines.

    With ``start`` (expand_ui), the fold covers that node's subtree only: depth
    counts from it and the whole budget is spent on it; its ancestors come
    first as path lines. Focused nodes and their paths are rendered even past
    the budget, whose share they take first.
    """
    for ref in unfold:
        resolve(outline, ref)
    top = outline.root_node if start is None else resolve(outline, start)
    path = outline.ancestors(top)
    lines = [_path_line(node, depth) for depth, node in enumerate(path)]
    required = _required(outline, top)
    free = max(0, max_lines - len(required))
    shown = 0
    cut = False
    opened = _unfolded(outline, top, unfold)
    for nodes, depth, folded in _visible(
        outline, top, max(0, max_depth), opened, opened | required
    ):
        node = nodes[0]
        if node.ref not in required:
            if cut or free == 0:
                cut = True
                continue
            free -= 1
        shown += 1
        indent = "  " * (len(path) + depth)
        if len(nodes) > 1:
            lines.append(indent + run_line(outline, nodes))
            continue
        line = f"{indent}{node_line(node)}"
        if folded:
            line += f" ▸ {fold_summary(outline, node)}"
        lines.append(line)
    total = outline.descendant_count(top) + 1
    if cut:
        lines.append(
            f"… {total - shown} of {total} nodes not shown (line budget {max_lines}); "
            "search_ui finds any node, expand_ui opens a subtree."
        )
    return Fold(text="\n".join(lines), lines=len(lines), shown=shown, cut=cut, total=total)


def fold_header(fold: Fold, state_id: str, full_view_reason: str | None = None) -> str:
    """The line above a fold: node count, stateId, and why the view is full or cut."""
    text = f"outline: {fold.total} nodes, {fold.shown} shown; stateId {state_id}"
    if full_view_reason:
        text += f"; full view: {full_view_reason}"
    if fold.cut:
        text += "; folded output truncated"
    return text
