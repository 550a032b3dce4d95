"""A document's paragraphs: the one typing goes to, and those beyond the screen.

Typing into the page goes into one of its paragraphs (the page itself has no
text interface in LibreOffice Writer): the paragraph that holds the caret (the
focused one), else the last one on screen, whose caret ``SetCaretOffset`` puts at
its end, which also gives it the keyboard focus (measured: the paragraph reads
``focused`` after it).

LibreOffice Writer's page (``document text``) has as children only the
paragraphs on screen; the others exist as objects that the paragraphs'
``FLOWS_TO`` / ``FLOWS_FROM`` relations chain in reading order (measured on a
1,400-paragraph document: every one reached from the last shown paragraph,
none of them children of the page). This module follows that chain forward from
the last shown child, then backward from the first, reading each paragraph's
role, states and text, until the chain ends, ``max_nodes`` were read or the
budget is spent. It sends nothing but reads: nothing scrolls. The chain is
sequential (each step needs the one before), so a step's reads go out with the
next relation's ask.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus, CallFailed
from actui.backends.atspi.reader import (
    ACCESSIBLE,
    IFACE_PREFIX,
    Basics,
    Details,
    children_of,
    read_basics,
    read_children,
    read_text,
    request_children,
)
from actui.backends.base import RawNode
from actui.errors import TargetGone

FLOWS_TO = 10
FLOWS_FROM = 11
"""AT-SPI's ``RELATION_FLOWS_TO`` and ``RELATION_FLOWS_FROM``."""
TEXT_CAP = 4096
"""Characters of a paragraph read on demand (``read_text`` pages through the rest)."""

Build = Callable[[Address, Basics, Details], RawNode]
"""Makes the seam's node of a paragraph from what was read of it (``snapshot``)."""


async def _next(bus: AtspiBus, at: Address, kind: int) -> Address | None:
    """The element ``at``'s relation of ``kind`` names first, None at the chain's end."""
    try:
        (relations,) = await bus.call(at.bus, at.path, ACCESSIBLE, "GetRelationSet")
    except (CallFailed, TargetGone):
        return None
    for relation, targets in relations:
        if relation == kind:
            for target in targets:
                found = Address.of(target)
                if not found.is_null:
                    return found
    return None


async def _paragraph(bus: AtspiBus, at: Address, build: Build) -> RawNode | None:
    try:
        basics = await read_basics(bus, at)
        text, count = ("", 0)
        if "Text" in basics.interfaces:
            text, count = await read_text(bus, at, 0, TEXT_CAP)
    except (CallFailed, TargetGone):
        return None
    return build(at, basics, Details(None, text, count, None))


async def _follow(
    bus: AtspiBus, start: Address, kind: int, build: Build, room: int, deadline: float
) -> list[RawNode]:
    """The paragraphs along ``kind`` from ``start`` (not included), in the chain's order."""
    found: list[asyncio.Task[RawNode | None]] = []
    at = start
    try:
        while len(found) < room and time.perf_counter() < deadline:
            step = await _next(bus, at, kind)
            if step is None:
                break
            at = step
            found.append(asyncio.ensure_future(_paragraph(bus, at, build)))
        read = await asyncio.gather(*found)
    finally:
        for task in found:
            task.cancel()
    return [node for node in read if node is not None]


async def read_flow(
    bus: AtspiBus, document: Address, build: Build, *, max_nodes: int, budget_s: float
) -> tuple[RawNode, ...]:
    """The document's paragraphs that are not its children: those after the shown ones,
    in reading order, then those before them (nearest first), marked by having no rect."""
    deadline = time.perf_counter() + budget_s
    shown = children_of(await request_children(bus, document))
    if not shown:
        return ()
    after = await _follow(bus, shown[-1], FLOWS_TO, build, max_nodes, deadline)
    before = await _follow(bus, shown[0], FLOWS_FROM, build, max_nodes - len(after), deadline)
    return (*after, *before)


async def typing_paragraph(bus: AtspiBus, document: Address) -> Address | None:
    """The paragraph of the page that typing goes to, its caret placed: the focused one
    as it is, else the last one on screen with its caret put at its end; None when the
    page holds no editable paragraph."""
    children = await read_children(bus, document)
    found = await asyncio.gather(*(read_basics(bus, child) for child in children))
    editable = [
        (child, basics)
        for child, basics in zip(children, found, strict=True)
        if "EditableText" in basics.interfaces and "editable" in basics.states
    ]
    if not editable:
        return None
    for child, basics in editable:
        if "focused" in basics.states:
            return child
    last, _ = editable[-1]
    text = IFACE_PREFIX + "Text"
    count = await bus.get_int(last.bus, last.path, text, "CharacterCount")
    await bus.call(last.bus, last.path, text, "SetCaretOffset", "i", (count,))
    return last
