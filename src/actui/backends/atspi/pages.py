"""A document's page: the paragraph that typing into it goes to.

Typing into the page goes into one of its paragraphs (LibreOffice Writer's page
has no text interface of its own): the paragraph that holds the caret (focused,
with a caret offset: one the caret left can still read ``focused``; of several,
the last), else the last one on screen, whose caret ``SetCaretOffset`` puts at
its end, which also gives it the keyboard focus (measured: the paragraph reads
``focused`` after it). It reads the page's children and places a caret; it
types nothing itself.
"""

from __future__ import annotations

import asyncio

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.reader import IFACE_PREFIX, read_basics, read_children

TEXT = IFACE_PREFIX + "Text"


async def typing_paragraph(bus: AtspiBus, document: Address) -> Address | None:
    """The paragraph of the page that typing goes to, its caret placed: the one holding
    the caret as it is, else the last one on screen with its caret put at its end; None when the
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
    carets = await asyncio.gather(
        *(bus.get_int(child.bus, child.path, TEXT, "CaretOffset") for child, _ in editable)
    )
    focused = [
        child
        for (child, basics), caret in zip(editable, carets, strict=True)
        if "focused" in basics.states and caret >= 0
    ]
    if focused:
        return focused[-1]
    last, _ = editable[-1]
    count = await bus.get_int(last.bus, last.path, TEXT, "CharacterCount")
    await bus.call(last.bus, last.path, TEXT, "SetCaretOffset", "i", (count,))
    return last
