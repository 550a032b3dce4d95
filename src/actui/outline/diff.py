"""Successor outlines: stable refs across looks, and what changed between two.

A ref an agent saw in one state should name the same element in the next, so
successors inherit refs from their base: by wire id first, then by a
structural key (the chain of role/name/description tokens down from the root),
then by a looser key that ignores ancestors' names, so renaming a container
does not re-key everything under it. The diff is then a per-ref comparison of
plain fields; when too much changed to read as a diff, a full view is asked
for instead.

Password values never enter a comparison or a rendering. This module must not
fold by itself (it asks ``fold`` for full views), search, or talk to a backend.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

from actui.outline.documents import pages_text
from actui.outline.fold import (
    VALUE_CAP,
    display_name,
    node_line,
    ordered_caps,
    quoted,
)
from actui.outline.model import Node, Outline, renumbered
from actui.outline.view import (
    WINDOW_TOKENS,
    Drawn,
    Place,
    ViewLines,
    drawn,
    is_layout,
    render_view,
)
from actui.quoting import quote
from actui.tokens import estimate_tokens

FULL_VIEW_MIN_NODES = 8
FULL_VIEW_MIN_CONFIDENCE = 0.4
MAX_CHANGES = 100
RATIO_MIN_CHANGES = 20
MAX_CHANGE_RATIO = 0.65
PRINTED_FIELDS = 6

Step = tuple[str, ...]
Key = tuple[Step, ...]
_ROOT = "root"


def _token(node: Node) -> tuple[str, ...]:
    return tuple(part.strip().lower() for part in (node.raw_role, node.name, node.description))


def _keys(outline: Outline) -> tuple[dict[str, Key], dict[str, Key]]:
    """Every node's structural key and loose key.

    A step is a token plus the node's index among siblings with the same
    token. The structural key chains full tokens (role, name, description)
    from the root; the loose key chains role-only steps for the ancestors and
    ends with the node's full step.
    """
    root = outline.root_node
    full: dict[str, Step] = {root.ref: (*_token(root), "0")}
    role: dict[str, Step] = {root.ref: (_token(root)[0], "0")}
    for node in outline:
        same_token: dict[tuple[str, ...], int] = {}
        same_role: dict[str, int] = {}
        for child in outline.children(node):
            token = _token(child)
            full[child.ref] = (*token, str(same_token.get(token, 0)))
            role[child.ref] = (token[0], str(same_role.get(token[0], 0)))
            same_token[token] = same_token.get(token, 0) + 1
            same_role[token[0]] = same_role.get(token[0], 0) + 1
    structural: dict[str, Key] = {}
    roles: dict[str, Key] = {}
    loose: dict[str, Key] = {}
    for node in outline.subtree(root):
        above, above_roles = (
            (structural[node.parent], roles[node.parent]) if node.parent else ((), ())
        )
        structural[node.ref] = (*above, full[node.ref])
        roles[node.ref] = (*above_roles, role[node.ref])
        loose[node.ref] = (*above_roles, full[node.ref])
    return structural, loose


def structural_key(outline: Outline, node: Node) -> str:
    """The node's structural key, readable: ``role|name|description#k`` steps joined by ``/``."""
    key = _keys(outline)[0][node.ref]
    return "/".join("|".join(step[:-1]) + "#" + step[-1] for step in key)


def _claim(
    successor: Outline,
    mapping: dict[str, str],
    base_keys: Mapping[str, Hashable],
    successor_keys: Mapping[str, Hashable],
) -> None:
    """Give unmapped successor nodes the base ref with the same key, first claimant first."""
    lookup = {key: ref for ref, key in base_keys.items()}
    claimed = set(mapping.values())
    for node in successor:
        if node.ref in mapping or node.ref not in successor_keys:
            continue
        ref = lookup.get(successor_keys[node.ref])
        if ref is not None and ref not in claimed:
            mapping[node.ref] = ref
            claimed.add(ref)


def _text_leaves(outline: Outline, node: Node) -> list[Node]:
    return [c for c in outline.children(node) if c.role == "label" and not c.children]


def _claim_retexted(base: Outline, successor: Outline, mapping: dict[str, str]) -> None:
    """A text leaf whose text changed in place (a clock, a score, a status line) keeps its
    ref: it claims the unclaimed base text leaf at the same index among the text leaves of
    the same parent, when that parent holds as many as before. Pages replace such a node
    when its text changes, so no other key can tell it is the same slot."""
    claimed = set(mapping.values())
    for node in successor:
        if node.ref in mapping or node.role != "label" or node.children or node.parent is None:
            continue
        parent = mapping.get(node.parent)
        if parent is None:
            continue
        now = _text_leaves(successor, successor.nodes[node.parent])
        before = _text_leaves(base, base.nodes[parent])
        if len(now) != len(before):
            continue
        old = before[now.index(node)]
        if old.ref not in claimed:
            mapping[node.ref] = old.ref
            claimed.add(old.ref)


def stabilize(base: Outline, successor: Outline) -> Outline:
    """``successor`` with refs inherited from ``base`` where the element is the same.

    Passes over the successor in breadth-first order, each claiming base refs
    not yet taken: equal wire id; the root (the caller only stabilizes
    successors of the same root); equal structural key; equal loose key; a text
    leaf's slot (``_claim_retexted``).
    Everything left gets a fresh number above the base's highest ref.
    """
    mapping: dict[str, str] = {}
    wires = ({n.ref: n.wire for n in base if n.wire}, {n.ref: n.wire for n in successor if n.wire})
    _claim(successor, mapping, *wires)
    _claim(successor, mapping, {base.root: _ROOT}, {successor.root: _ROOT})
    if len(mapping) < len(successor):
        (base_structural, base_loose), (structural, loose) = _keys(base), _keys(successor)
        _claim(successor, mapping, base_structural, structural)
        _claim(successor, mapping, base_loose, loose)
        _claim_retexted(base, successor, mapping)
    fresh = base.max_ref
    for node in successor:
        if node.ref not in mapping:
            fresh += 1
            mapping[node.ref] = f"@e{fresh}"
    if all(old == new for old, new in mapping.items()):
        return successor
    return renumbered(successor, mapping)


def node_fields(node: Node) -> dict[str, object]:
    """The compared fields of a node as JSON-safe values (a password's value excluded)."""
    fields: dict[str, object] = {
        "role": node.role,
        "rawRole": node.raw_role,
        "name": node.name,
        "description": node.description,
        "states": sorted(node.states),
        "actions": list(node.actions),
        "caps": list(ordered_caps(node)),
        "rect": None
        if node.rect is None
        else {"x": node.rect.x, "y": node.rect.y, "w": node.rect.w, "h": node.rect.h},
        "secure": node.secure,
        "truncated": node.truncated,
        "pictureOnly": node.picture_only,
        "parent": node.parent,
    }
    if not node.secure:
        fields["value"] = node.value
        fields["valueLength"] = node.value_length
    if node.pages is not None:
        fields["pages"] = pages_text(node.pages)
    return fields


@dataclass(frozen=True)
class Added:
    ref: str
    parent: str | None
    fields: Mapping[str, object]


@dataclass(frozen=True)
class Updated:
    """``fields`` holds the new values of the changed fields, ``previous`` the old."""

    ref: str
    path: tuple[str, ...]
    fields: Mapping[str, object]
    previous: Mapping[str, object]


@dataclass(frozen=True)
class Removed:
    """``under`` is the nearest ancestor a view draws (not layout-only); ``layout`` says
    the removed node was layout-only itself."""

    ref: str
    parent: str | None
    name: str
    under: str | None = None
    layout: bool = False
    paragraph: tuple[str, ...] = ()
    """The refs of the paragraph (``view.Place.paragraph``) it was a piece of, if any."""


@dataclass(frozen=True)
class Changes:
    """What changed from a base to its stabilized successor, and whether to show it all."""

    added: tuple[Added, ...]
    updated: tuple[Updated, ...]
    removed: tuple[Removed, ...]
    full_view_reason: str | None
    identity_confidence: float
    change_ratio: float
    undrawn: frozenset[str] = frozenset()
    """Elements of both outlines a view of the base drew no line for (layout-only ones,
    a caption that repeated its parent). One a view of the successor draws has never
    been read by the agent, so the diff adds its line as it does an added element's."""

    @property
    def count(self) -> int:
        return len(self.added) + len(self.updated) + len(self.removed)


def _updated(base_node: Node, node: Node, successor: Outline) -> Updated | None:
    old, new = node_fields(base_node), node_fields(node)
    changed = sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))
    if not changed:
        return None
    return Updated(
        ref=node.ref,
        path=tuple(a.ref for a in successor.ancestors(node)),
        fields={name: new.get(name) for name in changed},
        previous={name: old.get(name) for name in changed},
    )


def _full_view_reason(
    base: Outline, successor: Outline, count: int, confidence: float
) -> str | None:
    old_root, new_root = base.root_node, successor.root_node
    if (old_root.role, old_root.raw_role) != (new_root.role, new_root.raw_role):
        return "root_replaced"
    if len(successor) > FULL_VIEW_MIN_NODES and confidence < FULL_VIEW_MIN_CONFIDENCE:
        return "identity_confidence_low"
    ratio = count / max(1, len(base), len(successor))
    if count > MAX_CHANGES or (count > RATIO_MIN_CHANGES and ratio > MAX_CHANGE_RATIO):
        return "change_budget_exceeded"
    return None


def _drawn_ancestor(outline: Outline, node: Node) -> str | None:
    """The nearest ancestor of ``node`` a view draws: layout-only ones are not lines."""
    for above in reversed(outline.ancestors(node)):
        if above.parent is None or not is_layout(above):
            return above.ref
    return None


def compute_changes(base: Outline, successor: Outline, recent: ViewLines | None = None) -> Changes:
    """Per-ref changes from ``base`` to a successor already stabilized against it;
    ``recent``: the session's recent outlines' lines (``view.ViewLines``)."""
    added = tuple(
        Added(ref=n.ref, parent=n.parent, fields=node_fields(n))
        for n in successor
        if n.ref not in base.nodes
    )
    gone = [
        n for n in base if n.ref not in successor.nodes and not _left_unread(base, successor, n)
    ]
    updated = tuple(
        change
        for n in successor
        if n.ref in base.nodes and (change := _updated(base.nodes[n.ref], n, successor)) is not None
    )
    labels_gone = any(n.role == "label" for n in gone)
    # one drawing of the base serves both the paragraphs a removed label was a piece of
    # and the captions an addition or an update may bring back as lines
    base_drawn = drawn(base, recent) if labels_gone or added or updated else None
    pieces = base_drawn.places if base_drawn is not None and labels_gone else {}
    removed = tuple(
        Removed(
            ref=n.ref,
            parent=n.parent,
            name=display_name(n),
            under=_drawn_ancestor(base, n),
            layout=is_layout(n),
            paragraph=tuple(p.ref for p in place.unit)
            if (place := pieces.get(n.ref)) is not None and place.paragraph
            else (),
        )
        for n in gone
    )
    count = len(added) + len(updated) + len(removed)
    confidence = (len(successor) - len(added)) / max(1, len(successor))
    return Changes(
        added=added,
        updated=updated,
        removed=removed,
        full_view_reason=_full_view_reason(base, successor, count, confidence),
        identity_confidence=confidence,
        change_ratio=count / max(1, len(base), len(successor)),
        undrawn=frozenset(r for r in base_drawn.dissolved if r in successor.nodes)
        if base_drawn is not None and (added or updated)
        else frozenset(),
    )


def _surfaced(changes: Changes, successor: Outline, now: Drawn) -> tuple[str, ...]:
    """Elements of both outlines that only a view of the successor draws a line for.

    A caption that repeats its parent is dissolved into the parent's line; once it
    gains a child, an action or a mark, or the parent is renamed, it is a line again,
    although the element itself may not have changed at all.
    """
    return tuple(
        sorted(
            ref
            for ref in changes.undrawn
            if ref not in now.dissolved and not is_layout(successor.nodes[ref])
        )
    )


def _left_unread(base: Outline, successor: Outline, node: Node) -> bool:
    """Whether ``node`` is missing from ``successor`` only because an ancestor there was left
    unread (a hidden page read on demand into ``base``, not shown since): not removed."""
    up = node.parent
    while up is not None and up not in successor.nodes:
        up = base.nodes[up].parent
    return up is not None and successor.nodes[up].unread > 0


def _set_change(name: str, old: object, new: object) -> str:
    """``+focused -checked`` for states (the common change), ``caps +press`` otherwise."""
    gained, lost = _moves(old, new)
    moves = [f"+{item}" for item in sorted(gained)] + [f"-{item}" for item in sorted(lost)]
    return " ".join(moves) if name == "states" else f"{name} {' '.join(moves)}"


def _field_text(name: str, old: object, new: object) -> str:
    if name in ("states", "caps"):
        return _set_change(name, old, new)
    if isinstance(new, str):
        return f"{name}={quoted(new, VALUE_CAP)}"
    return f"{name}={json.dumps(new, ensure_ascii=False)}"


_UNPRINTED = frozenset({"rect", "actions", "valueLength"})
_FIRST = ("value", "states", "caps", "name", "role", "description", "truncated")
"""The changed fields a line prints first: what an agent acts on before what it rarely needs."""


def _printable(change: Updated) -> bool:
    """Whether anything but the element's place or size (or its value's length) changed."""
    return any(name not in ("rect", "valueLength") for name in change.fields)


def _updated_line(change: Updated, successor: Outline, ambiguous: Collection[str]) -> str:
    """``~ @e5 textbox "hi": value="hi"``: the element as it now reads, then what else
    changed (a new name is the line's own; the old one is in structuredContent); the
    drawn ancestors' refs only where the name is not unique and they tell it apart."""
    node = successor.nodes[change.ref]
    shown = display_name(node)
    drawn = _drawn_path(successor, node) if shown in ambiguous else ()
    where = f" ({' > '.join(drawn) or 'root'})" if shown in ambiguous else ""
    printable = sorted(
        (n for n in change.fields if n not in _UNPRINTED and not (n == "name" and node.name)),
        key=lambda n: (_FIRST.index(n) if n in _FIRST else len(_FIRST), n),
    )
    parts = [
        _field_text(name, change.previous.get(name), change.fields[name])
        for name in printable[:PRINTED_FIELDS]
    ]
    if len(printable) > PRINTED_FIELDS:
        parts.append(f"{len(printable) - PRINTED_FIELDS} more in structuredContent")
    if "actions" in change.fields:
        parts.append(f"actions=[{', '.join(quote(a) for a in node.actions)}]")
    return f"~ {change.ref}{where} {shown}" + (f": {', '.join(parts)}" if parts else "")


def _drawn_path(outline: Outline, node: Node) -> tuple[str, ...]:
    """The refs a view draws above ``node``: its ancestors less the layout-only ones."""
    return tuple(a.ref for a in outline.ancestors(node) if a.parent is None or not is_layout(a))


def _ambiguous(changes: Changes, successor: Outline) -> set[str]:
    """Display names an updated element shares with another element of the successor,
    where the drawn paths tell them apart (a path of the same refs would not)."""
    wanted = {display_name(successor.nodes[u.ref]) for u in changes.updated}
    if not wanted:
        return set()
    paths: dict[str, list[tuple[str, ...]]] = {}
    for node in successor:
        if (name := display_name(node)) in wanted:
            paths.setdefault(name, []).append(_drawn_path(successor, node))
    return {name for name, found in paths.items() if len(found) > 1 and len(set(found)) > 1}


def _where(successor: Outline, node: Node, place: Place | None) -> str:
    """``under @e2`` (the line it is drawn under), then ``after @e9`` (the line before
    it there) or ``first``, unless it is the only line there: enough to put it where a
    view would draw it. The line before, not after: a view folds a page's foot first."""
    if place is None:
        return f"under {_drawn_ancestor(successor, node) or 'root'}"
    where = "" if place.alone else f" after {place.after}" if place.after else " first"
    return f"under {place.parent or 'root'}{where}"


def _added_lines(
    fresh: list[tuple[Node, Place | None]],
    new: Collection[str],
    successor: Outline,
    said: set[str],
) -> list[str]:
    """The ``+`` lines, in reading order, as fragments of a view: a line says where it goes
    (``under @e2 after @e9``) unless it goes right where an indented line of the fragment
    above puts it: first under the line one indent up, or after the last line at its indent
    below that one. A paragraph with a piece kept reads as ``~``, whole."""
    lines: list[str] = []
    path: list[str] = []  # the keys of the fragment's lines, one per indent, down to the last
    last_under: dict[str, str] = {}
    for node, place in sorted(fresh, key=lambda item: item[1].order if item[1] else 1 << 30):
        if place is not None and place.paragraph:
            said.update(n.ref for n in place.unit)
            if not all(n.ref in new for n in place.unit):
                lines.append(f"~ {place.text()}")
                continue
        paragraph = place is not None and place.paragraph
        text = place.text() if place is not None and paragraph else node_line(node)
        parent = place.parent if place is not None else None
        after = place.after if place is not None else None
        depth = path.index(parent) + 1 if parent in path else 0
        if depth and last_under.get(parent or "") == after:
            lines.append(f"+ {'  ' * depth}{text}")
        else:
            depth = 0
            glue = ": text " if paragraph else " "
            first, _, rest = text.partition(glue)
            lines.append(f"+ {first} {_where(successor, node, place)}{glue}{rest}")
        del path[depth:]
        path.append(node.ref)
        if parent:
            last_under[parent] = node.ref
    return lines


def _told(removed: Removed, said: Collection[str]) -> bool:
    """Whether a removed piece's paragraph is on a line of the diff already."""
    return any(ref in said for ref in removed.paragraph if ref != removed.ref)


def _paragraphs_left(changes: Changes, successor: Outline, now: Drawn) -> list[Place]:
    """The lines now drawn for what is left of paragraphs that lost a piece: the agent's
    line of such a paragraph no longer reads right, and a piece's ``-`` line cannot say how."""
    found: dict[str, Place] = {}
    for r in changes.removed:
        left = [ref for ref in r.paragraph if ref in successor.nodes]
        place = now.places.get(left[0]) if left else None
        if place is not None:
            found.setdefault(place.unit[0].ref, place)
    return list(found.values())


def _removed_inside(removed: Sequence[Removed]) -> dict[str, list[str]]:
    """The removed elements with no removed element above them (layout-only ones are
    not elements), each with the refs of the removed elements below it: those are gone
    with it, so their refs are all a line needs to say (structuredContent has their names)."""
    by_ref = {r.ref: r for r in removed}
    tops: dict[str, list[str]] = {}
    for r in removed:
        if r.layout:
            continue
        top, up = r.ref, by_ref.get(r.parent or "")
        while up is not None:
            top = top if up.layout else up.ref
            up = by_ref.get(up.parent or "")
        tops.setdefault(top, [])
        if top != r.ref:
            tops[top].append(r.ref)
    return tops


def _focus_left(updated: Sequence[Updated]) -> set[str]:
    """Elements whose only change is losing focus to one whose line says it gained it:
    focus is in one place, so the gaining line tells both."""
    if not any("focused" in _state_moves(u)[0] for u in updated):
        return set()
    return {
        u.ref
        for u in updated
        if set(u.fields) - {"rect", "valueLength"} == {"states"}
        and _state_moves(u) == (set(), {"focused"})
    }


def _state_moves(change: Updated) -> tuple[set[str], set[str]]:
    """The states ``change`` gained and lost."""
    if "states" not in change.fields:
        return set(), set()
    return _moves(change.previous.get("states"), change.fields["states"])


def _moves(old: object, new: object) -> tuple[set[str], set[str]]:
    """The items a list field gained and lost."""
    before = set(old) if isinstance(old, list) else set()
    after = set(new) if isinstance(new, list) else set()
    return after - before, before - after


def _unlisted(moved: int, unfocused: int, layout: int, listed: int) -> list[str]:
    """The changes an agent does not act on, counted on one line rather than listed:
    elements that only moved or resized (their refs still work) and that only lost focus
    to the element a line says gained it (structuredContent lists both). Layout-only
    nodes a view never draws are not counted, as a view's header does not count them;
    only when nothing else changed does a line say so."""
    parts = [f"{moved} moved or resized"] if moved else []
    if unfocused:
        parts.append(f"{unfocused} unfocused")
    if not parts and not listed and layout:
        parts.append("only layout-only nodes changed")
    return [f"({'; '.join(parts)})"] if parts else []


SHORT_DIFF_TOKENS = 120
"""A diff this short is kept without rendering the successor's view to compare: views are longer."""


def render_changes(
    changes: Changes,
    successor: Outline,
    base_state_id: str,
    state_id: str,
    budget: int = WINDOW_TOKENS,
) -> str:
    """The diff text of an act or a repeated observe, or the view it asks for."""
    return diff_or_view(changes, successor, base_state_id, state_id, budget)[0]


def diff_or_view(
    changes: Changes,
    successor: Outline,
    base_state_id: str,
    state_id: str,
    budget: int,
    recent: ViewLines | None = None,
) -> tuple[str, str | None]:
    """The diff text, or the successor's first view and why it was given instead.

    The successor's id is named once. A diff longer than the successor's first
    view, or over ``budget`` tokens, is not worth reading: the view (within
    ``budget``) is given instead, with the reason ``diff_longer_than_view``.
    """
    if changes.full_view_reason:
        reason = changes.full_view_reason
        return render_view(successor, state_id, budget, reason, recent).text, reason
    if not changes.count:
        return f"{base_state_id} → {state_id}: no changes", None
    lines = [f"{base_state_id} → {state_id}"]  # a line per change, or a count of the unlisted
    drawn_now = drawn(successor, recent)
    said: set[str] = set()
    """Refs a paragraph's line told: its pieces get no lines of their own."""
    layout = 0
    fresh: list[tuple[Node, Place | None]] = []
    surfaced = _surfaced(changes, successor, drawn_now)
    for ref in (*(a.ref for a in changes.added), *surfaced):
        node, place = successor.nodes[ref], drawn_now.places.get(ref)
        if ref in drawn_now.dissolved or (place is None and is_layout(node)):
            layout += 1
        elif place is not None and place.paragraph and ref != place.unit[0].ref:
            continue  # its paragraph's first piece stands for it
        else:
            fresh.append((node, place))
    new = {a.ref for a in changes.added} | set(surfaced)
    lines.extend(_added_lines(fresh, new, successor, said))
    said.update(surfaced)  # a line that surfaced says its fields already
    ambiguous = _ambiguous(changes, successor)
    moved = sum(1 for u in changes.updated if not _printable(u))
    left = _focus_left(changes.updated)
    for u in changes.updated:
        if not _printable(u) or u.ref in left or u.ref in said:
            continue
        place = drawn_now.places.get(u.ref)
        if place is not None and place.paragraph:
            said.update(n.ref for n in place.unit)
            lines.append(f"~ {place.text()}")
        else:
            lines.append(_updated_line(u, successor, ambiguous))
    for survivor in _paragraphs_left(changes, successor, drawn_now):
        if survivor.unit[0].ref not in said:
            said.update(n.ref for n in survivor.unit)
            lines.append(f"~ {survivor.text()}")
    inside = _removed_inside(changes.removed)
    for r in changes.removed:
        if r.layout:
            layout += 1
        elif r.ref in inside and not _told(r, said):
            with_ = f"; with {' '.join(inside[r.ref])}" if inside[r.ref] else ""
            lines.append(f"- {r.ref} (was {r.name}{with_})")
    lines.extend(_unlisted(moved, len(left), layout, len(lines) - 1))
    text = "\n".join(lines)
    cost = estimate_tokens(text)
    if cost <= min(SHORT_DIFF_TOKENS, budget):
        return text, None
    reason = "diff_longer_than_view"
    view = render_view(successor, state_id, budget, reason, recent).text
    return (view, reason) if cost > budget or cost > estimate_tokens(view) else (text, None)


_KEPT = frozenset({"role", "parent"})


def changes_json(changes: Changes) -> list[dict[str, object]]:
    """The changes as JSON-safe details: plain values, no node objects. An added
    element's empty fields (``""``, ``[]``, false, 0, null) are left out: absent is empty."""
    details: list[dict[str, object]] = [
        {
            "change": "added",
            "ref": a.ref,
            **{k: v for k, v in a.fields.items() if k in _KEPT or v not in ("", [], False, None)},
        }
        for a in changes.added
    ]
    details += [
        {
            "change": "updated",
            "ref": u.ref,
            "path": list(u.path),
            "fields": dict(u.fields),
            "previous": dict(u.previous),
        }
        for u in changes.updated
    ]
    details += [
        {"change": "removed", "ref": r.ref, "parent": r.parent, "name": r.name}
        for r in changes.removed
    ]
    return details
