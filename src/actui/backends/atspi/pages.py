"""A document's page: the paragraph that typing into it goes to.

Typing into the page goes into one of its paragraphs (LibreOffice Writer's page
has no text interface of its own): the paragraph that holds the caret (focused,
with a caret offset: one the caret left can still read ``focused``; of several,
the last), else the last one on screen, whose caret ``SetCaretOffset`` puts at
its end, which also gives it the keyboard focus (measured: the paragraph reads
``focused`` after it). It reads the page's children and places a caret; it
types nothing itself.

A window's root pane that holds the focus stands for its page: when a menu command ends,
LibreOffice announces its root pane taking the focus and nothing when the page's paragraph
has it again, while the keys typed next go to that paragraph (measured on Writer 7.4: the
root pane reads ``focused``, and text typed at the focus arrives in the paragraph holding
the caret). ``page_under`` finds the page under the pane.
"""

from __future__ import annotations

import asyncio

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.reader import IFACE_PREFIX, Basics, read_basics, read_children
from actui.backends.atspi.viewport import DOCUMENT_ROLES

TEXT = IFACE_PREFIX + "Text"
PANE_DEPTH = 4
PANE_READS = 96
"""Bounds of the walk from a root pane to its page (LibreOffice 7.4 Writer: the page is
3 levels under the root pane, after about 20 elements)."""
PANE_ROLES = frozenset({"root pane", "scroll pane", "panel", "filler", "layered pane", "viewport"})
"""Containers the walk goes into; a page is never inside a menu, a tool bar or a control."""


async def caret_paragraph(bus: AtspiBus, document: Address) -> Address | None:
    """The paragraph of the page that holds the caret, or None: one with a caret offset,
    focused ones first, the last of several."""
    editable = await _editable(bus, document)
    carets = await asyncio.gather(
        *(bus.get_int(child.bus, child.path, TEXT, "CaretOffset") for child, _ in editable)
    )
    held = [
        ("focused" in basics.states, index, child)
        for index, ((child, basics), caret) in enumerate(zip(editable, carets, strict=True))
        if caret >= 0
    ]
    return max(held)[2] if held else None


async def typing_paragraph(bus: AtspiBus, document: Address) -> Address | None:
    """The paragraph of the page that typing goes to, its caret placed: the one holding
    the caret as it is, else the last one on screen with its caret put at its end; None when the
    page holds no editable paragraph."""
    holding = await caret_paragraph(bus, document)
    if holding is not None:
        return holding
    editable = await _editable(bus, document)
    if not editable:
        return None
    last, _ = editable[-1]
    count = await bus.get_int(last.bus, last.path, TEXT, "CharacterCount")
    await bus.call(last.bus, last.path, TEXT, "SetCaretOffset", "i", (count,))
    return last


async def _editable(bus: AtspiBus, document: Address) -> list[tuple[Address, Basics]]:
    children = await read_children(bus, document)
    found = await asyncio.gather(*(read_basics(bus, child) for child in children))
    return [
        (child, basics)
        for child, basics in zip(children, found, strict=True)
        if "EditableText" in basics.interfaces and "editable" in basics.states
    ]


async def page_under(bus: AtspiBus, pane: Address) -> Address | None:
    """The document page under a window's root pane, breadth-first: at most
    :data:`PANE_DEPTH` levels and :data:`PANE_READS` elements, never into the menu bar,
    tool bars or controls."""
    level, read = [pane], 0
    for _ in range(PANE_DEPTH):
        children = [c for found in await _children(bus, level) for c in found]
        children = children[: max(0, PANE_READS - read)]
        read += len(children)
        found = await asyncio.gather(*(read_basics(bus, child) for child in children))
        for child, basics in zip(children, found, strict=True):
            if basics.role in DOCUMENT_ROLES:
                return child
        level = [c for c, b in zip(children, found, strict=True) if b.role in PANE_ROLES]
    return None


async def _children(bus: AtspiBus, level: list[Address]) -> list[list[Address]]:
    return list(await asyncio.gather(*(read_children(bus, at) for at in level)))
