"""What a person reads on screen: sibling order by position, and the labels of unnamed fields.

Toolkits list children in whatever order they were added (GTK's grid reverses
them) and leave many fields unnamed because the visible label was never linked
to its field. Both are repaired here from geometry alone, so every backend
gets the same repair: siblings are put in reading order (rows top to bottom,
left to right within a row) when the platform order contradicts it, and an
unnamed field takes its name from the labelled-by relation, else from the
label beside it on the same row (to its left), else from the label just above
it, of its own pane only (:func:`panes`); an unnamed multi-line editor that none
names is called ``editor`` (:func:`editor_names`). A name found by layout is
marked as inferred wherever it is shown.

Only the text of ``label`` nodes is ever used as a name: never a value, so a
password's secret (or any field's content) can never become another node's
name. This module only computes; it must not render, search or talk to a
platform.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from actui.backends.base import Rect

FIELD_ROLES = frozenset({"textbox", "password", "combobox", "spinbutton", "slider"})
"""Neutral roles of fields that a visible label, not their own text, names."""
LABEL_ROLES = frozenset({"label"})
"""Neutral roles whose text may name a field."""
EDGE_SLACK = 4
"""Pixels a label may overlap the field's edge and still be beside or above it."""
MAX_GAP_ROWS = 2.0
"""How far above a field its label may sit, in field heights (at least ``MIN_GAP``)."""
MAX_GAP_COLUMNS = 12.0
"""How far left of a field its label may sit, in field heights (at least ``MIN_GAP``)."""
MIN_GAP = 48
"""Pixels a label may always sit away from its field, however small the field."""
PANE_ROLES = frozenset({"window", "dialog", "tab", "list", "table", "statusbar", "document"})
"""Neutral roles of elements that are panes of their own: a label inside one (a list's
placeholder, a status text, another page) never names a field outside it, nor the reverse
(Geany's editor was named after the empty symbol list beside it, "No symbols found")."""
SPLIT_ROLES = frozenset({"split pane"})
"""Roles whose every child is a pane (the two sides of a divider)."""
PAIR_CAP = 100_000
"""Label-field pairs measured per outline at most: stacked, overlapping layouts (thousands
of fields in one band) would otherwise cost seconds; fields past it stay unnamed."""


def reading_order(rects: Sequence[Rect | None]) -> list[int]:
    """A permutation of ``range(len(rects))``: the siblings' indices in reading order.

    Siblings are grouped into rows: sorted by their top edge, a sibling joins
    the current row when its vertical centre is above the bottom of the row's
    first sibling. Rows run top to bottom, a row left to right (ties keep the
    platform order). Siblings without a rect keep their slots, so a platform
    order that already reads right comes back unchanged.
    """
    placed = [(i, r) for i, r in enumerate(rects) if r is not None and not r.empty]
    order = list(range(len(rects)))
    if len(placed) < 2:
        return order
    rows: list[list[tuple[int, Rect]]] = []
    bottom = 0.0
    for i, r in sorted(placed, key=lambda item: (item[1].y, item[0])):
        if rows and r.y + r.h / 2 < bottom:
            rows[-1].append((i, r))
        else:
            rows.append([(i, r)])
            bottom = r.y + r.h
    ordered = [i for row in rows for i, _ in sorted(row, key=lambda it: (it[1].x, it[1].y, it[0]))]
    for slot, index in zip(sorted(i for i, _ in placed), ordered, strict=True):
        order[slot] = index
    return order


@dataclass(frozen=True)
class Box:
    """One node as label inference sees it: a key, its neutral role, text and rect."""

    key: str
    role: str
    text: str
    rect: Rect | None
    named: bool = False
    """The node has a name of its own (only unnamed fields get one)."""
    labelled_by: tuple[str, ...] = ()
    """Keys of the nodes the platform says label this one."""
    pane: str = ""
    """The key of the pane the node is in (:func:`panes`): a label names only a field of
    its own pane."""


def _beside(label: Rect, field: Rect) -> float | None:
    """The gap when ``label`` is on ``field``'s row and to its left, else None."""
    centre = label.y + label.h / 2
    if not field.y <= centre <= field.y + field.h:
        return None
    gap = field.x - (label.x + label.w)
    limit = max(MIN_GAP, MAX_GAP_COLUMNS * field.h)
    return float(max(gap, 0)) if -EDGE_SLACK <= gap <= limit else None


def _above(label: Rect, field: Rect) -> float | None:
    """The gap when ``label`` is above ``field`` and overlaps its columns, else None."""
    if label.x >= field.x + field.w or label.x + label.w <= field.x:
        return None
    gap = field.y - (label.y + label.h)
    limit = max(MIN_GAP, MAX_GAP_ROWS * field.h)
    return float(max(gap, 0)) if -EDGE_SLACK <= gap <= limit else None


class _Bands:
    """Labels and fields sorted by their vertical centre and by their bottom edge, so the
    candidates beside or above a field are found by bisection, not by a scan of all."""

    def __init__(self, boxes: Sequence[Box]) -> None:
        placed = [(order, box, box.rect) for order, box in enumerate(boxes) if box.rect]
        self._centres = sorted((r.y + r.h / 2, order, box) for order, box, r in placed)
        self._bottoms = sorted((float(r.y + r.h), order, box) for order, box, r in placed)
        self._centre_keys = [item[0] for item in self._centres]
        self._bottom_keys = [item[0] for item in self._bottoms]

    def near(self, field: Rect, where: str) -> list[tuple[int, Box]]:
        """Boxes that may be beside (centre within the field's rows) or above it."""
        if where == "beside":
            keys, items = self._centre_keys, self._centres
            low, high = float(field.y), float(field.y + field.h)
        else:
            keys, items = self._bottom_keys, self._bottoms
            limit = max(MIN_GAP, MAX_GAP_ROWS * field.h)
            low, high = field.y - limit, float(field.y + EDGE_SLACK)
        return [
            (order, box)
            for _, order, box in items[bisect_left(keys, low) : bisect_right(keys, high)]
        ]


def panes(parents: Mapping[str, str | None], roles: Mapping[str, str]) -> dict[str, str]:
    """Each node's pane: the nearest element, itself included, of :data:`PANE_ROLES` or
    on one side of a :data:`SPLIT_ROLES` divider, else the root. ``parents`` must list every
    parent before its children (breadth-first order does)."""
    found: dict[str, str] = {}
    for key, parent in parents.items():
        if parent is None or roles[key] in PANE_ROLES or roles[parent] in SPLIT_ROLES:
            found[key] = key
        else:
            found[key] = found[parent]
    return found


def _nearest(
    field: Box, candidates: list[tuple[int, Box]], where: str, free: Collection[str]
) -> Box | None:
    """The nearest of ``candidates`` in ``where`` relation to ``field``, if it is a free label.

    Fields and labels already taken count as obstacles: a label with another
    field between it and this one belongs to that field. Only boxes of the field's own
    pane are candidates.
    """
    assert field.rect is not None
    measure = _beside if where == "beside" else _above
    best: tuple[float, int, Box] | None = None
    for order, box in candidates:
        if box.key == field.key or box.rect is None or box.pane != field.pane:
            continue
        gap = measure(box.rect, field.rect)
        if gap is not None and (best is None or (gap, order) < best[:2]):
            best = (gap, order, box)
    return best[2] if best is not None and best[2].key in free else None


def infer_labels(boxes: Sequence[Box]) -> dict[str, tuple[str, bool]]:
    """Names for unnamed fields: key → (name, inferred from layout).

    The labelled-by relation comes first (not inferred); then, per field, the
    nearest label beside it on its row, then the nearest label above it. A
    label taken by a field beside it is not offered to a field below. The work
    is bounded by :data:`PAIR_CAP`.
    """
    by_key = {box.key: box for box in boxes}
    labels = {
        b.key: b for b in boxes if b.role in LABEL_ROLES and b.text.strip() and b.rect is not None
    }
    names: dict[str, tuple[str, bool]] = {}
    for box in boxes:
        if box.named or not box.labelled_by:
            continue
        texts = [by_key[k].text.strip() for k in box.labelled_by if k in by_key]
        text = " ".join(t for t in texts if t)
        if text:
            names[box.key] = (text, False)
    fields = [
        b
        for b in boxes
        if b.role in FIELD_ROLES and not b.named and b.rect is not None and b.key not in names
    ]
    bands = _Bands([b for b in boxes if b.key in labels or b.role in FIELD_ROLES])
    taken: set[str] = set()
    budget = PAIR_CAP
    for where in ("beside", "above"):
        free = labels.keys() - taken
        for field in fields:
            if field.key in names or field.rect is None:
                continue
            candidates = bands.near(field.rect, where)
            budget -= len(candidates)
            if budget < 0:
                return names
            label = _nearest(field, candidates, where, free)
            if label is not None:
                names[field.key] = (label.text.strip(), True)
                taken.add(label.key)
    return names


EDITOR = "editor"
"""The name of a multi-line text field nothing names (the text area of an editor)."""


def editor_names(shown: Sequence[str], away: Sequence[str] = ()) -> dict[str, str]:
    """Names for unnamed multi-line editors, given in reading order: ``editor``, or
    ``editor 1``, ``editor 2`` … when a window shows several; those out of sight (on
    another tab: Geany's scribble) are each ``editor``, as what is shown is numbered."""
    names = {key: EDITOR for key in away}
    if len(shown) == 1:
        names[shown[0]] = EDITOR
    else:
        names.update((key, f"{EDITOR} {n}") for n, key in enumerate(shown, 1))
    return names
