"""An element's text formatting, caret and selection, read for ``inspect_ui``.

``Text.GetDefaultAttributes`` gives what the whole text has (Writer: the
paragraph's style, alignment, weight: a Heading 1 reads ``paragraph-style:
Heading 1``, ``weight: 600``); ``Text.GetAttributeRun(offset, false)`` walks the
stretches that differ from it (a bold word reads ``weight: 700``), at most
:data:`MAX_RUNS`; ``CaretOffset``, ``NSelections`` and ``GetSelection`` say where the
caret and selection are. Only the attributes an agent checks are kept
(:data:`KEPT`). It reads, never changes anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.reader import IFACE_PREFIX
from actui.backends.base import TextFormat, TextRun

TEXT = IFACE_PREFIX + "Text"
MAX_RUNS = 16
MAX_SELECTIONS = 4
KEPT = frozenset(
    {
        "paragraph-style",
        "justification",
        "weight",
        "style",
        "underline",
        "strikethrough",
        "size",
        "family-name",
        "fg-color",
        "bg-color",
        "invisible",
    }
)
"""Attributes shown: formatting an agent applies and checks (the toolkits list dozens)."""


def kept(attributes: Mapping[str, str]) -> dict[str, str]:
    return {key: str(value) for key, value in attributes.items() if key in KEPT}


async def read_format(bus: AtspiBus, at: Address) -> TextFormat:
    """The element's defaults, runs, caret and selections (see the module's docstring)."""
    count, caret, selections, (defaults,) = await asyncio.gather(
        bus.get_int(at.bus, at.path, TEXT, "CharacterCount"),
        bus.get_int(at.bus, at.path, TEXT, "CaretOffset"),
        bus.call(at.bus, at.path, TEXT, "GetNSelections"),
        bus.call(at.bus, at.path, TEXT, "GetDefaultAttributes"),
    )
    pairs = await asyncio.gather(
        *(
            bus.call(at.bus, at.path, TEXT, "GetSelection", "i", (i,))
            for i in range(min(int(selections[0]), MAX_SELECTIONS))
        )
    )
    runs: list[TextRun] = []
    offset = 0
    while offset < count and len(runs) < MAX_RUNS:
        attributes, start, end = await bus.call(
            at.bus, at.path, TEXT, "GetAttributeRun", "ib", (offset, False)
        )
        start, end = int(start), int(end)
        if end <= offset:
            break
        if kept(attributes):
            runs.append(TextRun(max(start, offset), end, kept(attributes)))
        offset = end
    return TextFormat(
        caret=caret if 0 <= caret <= count else -1,
        selections=tuple((int(a), int(b)) for a, b in pairs if int(b) > int(a)),
        defaults=kept(defaults),
        runs=tuple(runs),
    )
