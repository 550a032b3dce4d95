"""Geometry and element facts for every DOM node, from one ``DOMSnapshot.captureSnapshot``.

One snapshot call replaces a ``DOM.getBoxModel`` per node (measured: 70–100 ms
for 8,500 AX nodes against ~1 s pipelined). This module turns that response
into per-``backendNodeId`` facts: the border box in CSS pixels of the top-level
viewport (frames offset by their owners, scroll removed), the tag, the input
type, whether a click listener is attached and whether the element scrolls.

The response also carries live input values (passwords included); this module
reads only the fields named above and never keeps or returns values. It must
not talk to the browser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from actui.backends.base import Rect
from actui.backends.reads import list_of, number_of, objs_of

SNAPSHOT_PARAMS: Mapping[str, object] = {
    "computedStyles": ["overflow-x", "overflow-y"],
    "includeDOMRects": True,
}
_SCROLLING = frozenset({"auto", "scroll", "overlay"})


@dataclass(frozen=True)
class DomFacts:
    tag: str
    input_type: str = ""
    clickable: bool = False
    scrollable: bool = False
    rect: Rect | None = None


@dataclass(frozen=True)
class PageLayout:
    """Facts by backend node id, and each child frame's owner element."""

    nodes: Mapping[int, DomFacts]
    frame_owners: Mapping[str, int]


def parse_snapshot(
    snapshot: Mapping[str, object], origin: tuple[float, float] = (0.0, 0.0)
) -> PageLayout:
    """Facts for every node; ``origin`` is where the snapshot's viewport sits in the page's
    (an out-of-process frame's snapshot is taken in its own viewport)."""
    strings = [s if isinstance(s, str) else "" for s in list_of(snapshot, "strings")]
    documents = objs_of(snapshot, "documents")
    facts: dict[int, DomFacts] = {}
    owners: dict[str, int] = {}
    offsets: dict[int, tuple[float, float]] = {0: origin} if documents else {}
    # Owners come before the documents they hold, so one pass in order suffices.
    for index, doc in enumerate(documents):
        base_x, base_y = offsets.get(index, (0.0, 0.0))
        origin = (
            base_x - number_of(doc, "scrollOffsetX"),
            base_y - number_of(doc, "scrollOffsetY"),
        )
        doc_facts, children = _document_facts(doc, strings, origin)
        facts.update(doc_facts)
        for child_index, (owner_id, content_x, content_y) in children.items():
            offsets[child_index] = (content_x, content_y)
            if child_index < len(documents):
                frame_id = _string(strings, documents[child_index].get("frameId", -1))
                if frame_id:
                    owners[frame_id] = owner_id
    return PageLayout(nodes=facts, frame_owners=owners)


def _document_facts(
    doc: Mapping[str, Any],  # the columnar arrays of one document, narrowed as they are read
    strings: Sequence[str],
    origin: tuple[float, float],
) -> tuple[dict[int, DomFacts], dict[int, tuple[int, float, float]]]:
    nodes = doc.get("nodes", {})
    layout = doc.get("layout", {})
    backend_ids: Sequence[int] = nodes.get("backendNodeId", ())
    names: Sequence[int] = nodes.get("nodeName", ())
    attributes: Sequence[Sequence[int]] = nodes.get("attributes", ())
    clickable = set(nodes.get("isClickable", {}).get("index", ()))
    content_docs = nodes.get("contentDocumentIndex", {})
    boxes: dict[int, tuple[float, float, float, float]] = {}
    client: dict[int, Sequence[float]] = {}
    scrolling: set[int] = set()
    client_rects: Sequence[Sequence[float]] = layout.get("clientRects", ())
    scroll_rects: Sequence[Sequence[float]] = layout.get("scrollRects", ())
    styles: Sequence[Sequence[int]] = layout.get("styles", ())
    for li, node_index in enumerate(layout.get("nodeIndex", ())):
        x, y, w, h = layout["bounds"][li]
        boxes.setdefault(node_index, (x, y, w, h))
        if li < len(client_rects) and client_rects[li]:
            client[node_index] = client_rects[li]
            overflow = {_string(strings, s) for s in (styles[li] if li < len(styles) else ())}
            if overflow & _SCROLLING and _overflows(client_rects[li], scroll_rects, li):
                scrolling.add(node_index)
    facts: dict[int, DomFacts] = {}
    for index, backend_id in enumerate(backend_ids):
        tag = _string(strings, names[index]).upper() if index < len(names) else ""
        box = boxes.get(index)
        rect = None
        if box is not None:
            rect = Rect(
                round(box[0] + origin[0]), round(box[1] + origin[1]), round(box[2]), round(box[3])
            )
        facts[backend_id] = DomFacts(
            tag=tag,
            input_type=_input_type(tag, attributes, index, strings),
            clickable=index in clickable,
            scrollable=index in scrolling,
            rect=rect,
        )
    children: dict[int, tuple[int, float, float]] = {}
    for owner_index, doc_index in zip(
        content_docs.get("index", ()), content_docs.get("value", ()), strict=False
    ):
        box = boxes.get(owner_index)
        inset = client.get(owner_index, (0.0, 0.0))
        if box is not None:
            children[doc_index] = (
                backend_ids[owner_index],
                box[0] + origin[0] + inset[0],
                box[1] + origin[1] + inset[1],
            )
    return facts, children


def _overflows(client: Sequence[float], scroll_rects: Sequence[Sequence[float]], li: int) -> bool:
    if li >= len(scroll_rects) or len(scroll_rects[li]) < 4 or len(client) < 4:
        return False
    return scroll_rects[li][2] > client[2] or scroll_rects[li][3] > client[3]


def _input_type(
    tag: str, attributes: Sequence[Sequence[int]], index: int, strings: Sequence[str]
) -> str:
    if tag != "INPUT" or index >= len(attributes):
        return ""
    pairs = attributes[index]
    for i in range(0, len(pairs) - 1, 2):
        if _string(strings, pairs[i]).lower() == "type":
            return _string(strings, pairs[i + 1]).strip().lower()
    return "text"


def _string(strings: Sequence[str], index: object) -> str:
    if isinstance(index, int) and 0 <= index < len(strings):
        return strings[index]
    return ""
