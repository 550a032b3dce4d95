"""Visual evidence: folding recognised text into an outline (pure).

Owns the rules that join OCR boxes with accessible nodes: text a node already
carries becomes evidence on that node (``ocr_text``); text no node carries
becomes a picture-only node, which an agent can reach by coordinates only; and
nothing read inside a password field's area survives, whatever the engine saw.
It must not run the engine (:mod:`actui.runtime.ocr`) or talk to a platform.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import replace

from actui.backends.base import Rect
from actui.outline.model import Node, Outline
from actui.runtime.ocr import TextBox

PICTURE_ROLE = "label"
"""Neutral role of recognised text: static text, never an input (``text`` would
read as a text box in the role vocabulary)."""
PICTURE_RAW_ROLE = "ocr text"
SIMILARITY = 0.8
"""How alike (difflib ratio) recognised and accessible text must be to count as
the same words: absorbs one misread letter in a short label ("Onville")."""
MIN_CONTAINED = 3
"""A node's text found inside a longer recognised line must be at least this long."""
_SPACE = re.compile(r"\s+")


def add_visual_evidence(outline: Outline, boxes: Sequence[TextBox]) -> Outline:
    """A new outline with ``boxes`` (in the outline's image pixels) folded in.

    Existing refs are never renumbered; picture-only nodes get refs above
    ``outline.max_ref``, in reading order, under the root.
    """
    secure = [n.rect for n in outline if n.secure and n.rect is not None]
    evidence: dict[str, list[str]] = {}
    uncovered: list[TextBox] = []
    for box in boxes:
        if not _normal(box.text) or any(_overlaps(box.rect, r) for r in secure):
            continue
        carrier = _carrier(outline, box)
        if carrier is None:
            uncovered.append(box)
        else:
            evidence.setdefault(carrier.ref, []).append(box.text)
    nodes = dict(outline.nodes)
    for ref, texts in evidence.items():
        nodes[ref] = replace(nodes[ref], ocr_text=nodes[ref].ocr_text + tuple(texts))
    root = nodes[outline.root]
    added: list[str] = []
    for number, box in enumerate(
        sorted(uncovered, key=lambda b: (b.rect.y, b.rect.x)), start=outline.max_ref + 1
    ):
        ref = f"@e{number}"
        nodes[ref] = Node(
            ref=ref,
            wire=None,
            role=PICTURE_ROLE,
            raw_role=PICTURE_RAW_ROLE,
            name=box.text,
            rect=box.rect,
            picture_only=True,
            ocr_text=(box.text,),
            parent=root.ref,
            depth=root.depth + 1,
        )
        added.append(ref)
    nodes[root.ref] = replace(root, children=root.children + tuple(added))
    return Outline(root=outline.root, nodes=nodes)


def _carrier(outline: Outline, box: TextBox) -> Node | None:
    """The accessible node that already shows ``box``'s text, if any.

    Among overlapping nodes whose text matches, the best match wins, then a
    showing node over a hidden one, then the smallest (most specific) one.
    """
    seen = _normal(box.text)
    best: tuple[float, bool, int] | None = None
    chosen: Node | None = None
    for node in outline:
        if node.picture_only or node.secure or node.rect is None:
            continue
        if not _overlaps(node.rect, box.rect):
            continue
        quality = max((_match(seen, t) for t in _texts(node)), default=0.0)
        if quality == 0.0:
            continue
        rank = (quality, "showing" in node.states, -node.rect.w * node.rect.h)
        if best is None or rank > best:
            best, chosen = rank, node
    return chosen


def _texts(node: Node) -> list[str]:
    return [t for t in (_normal(node.name), _normal(node.description), _normal(node.value)) if t]


def _match(seen: str, carried: str) -> float:
    """1 when equal or one contains the other, else the similarity if high enough."""
    if seen == carried or seen in carried:
        return 1.0
    if len(carried) >= MIN_CONTAINED and carried in seen:
        return 1.0
    ratio = difflib.SequenceMatcher(None, seen, carried).ratio()
    return ratio if ratio >= SIMILARITY else 0.0


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def _overlaps(a: Rect, b: Rect) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h
