"""How many pages a document has, and which one holds the caret: its page's attributes.

LibreOffice Writer (7.4) says so in the ``Accessible.GetAttributes`` of its page
(``document text``): ``page-number:1``, ``total-pages:193`` on a 5,001-paragraph
document, measured. ``page-number`` is the page holding the caret, not the one on
screen: scrolled with the wheel to page 2 (the status bar said "Page 2 of 193") it still
said 1, and after ctrl+End 193. Its paragraphs carry no page in their attributes, and
the page has no ``Document`` interface. One call a look, sent with the page's children;
a page that says no total (or refuses the call, or answers too late) has no page count.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus, CallFailed
from actui.backends.atspi.reader import ACCESSIBLE
from actui.backends.base import Pages
from actui.errors import CallTimeout

CARET_PAGE = "page-number"
TOTAL_PAGES = "total-pages"
COUNTED_ROLES = frozenset({"document text"})
"""Pages asked for their count: Writer's, where it was measured (an Impress or Draw page
is a slide or a drawing, not a page of running text)."""


def counts_pages(role: str) -> bool:
    """Whether a document page of ``role`` is asked how many pages it has."""
    return role in COUNTED_ROLES


def request_pages(bus: AtspiBus, at: Address) -> asyncio.Future[list[Any]]:
    """The page's attributes, asked (:func:`pages_from` reads the answer)."""
    return bus.request(at.bus, at.path, ACCESSIBLE, "GetAttributes")


async def pages_from(asked: asyncio.Future[list[Any]]) -> Pages | None:
    """The page count in the answer to :func:`request_pages`; None when there is none."""
    try:
        (attributes,) = await asked
    except (CallFailed, CallTimeout):
        return None  # the page is read without its count
    return pages_of(attributes) if isinstance(attributes, Mapping) else None


def pages_of(attributes: Mapping[str, object]) -> Pages | None:
    """``{"page-number": "1", "total-pages": "193"}`` → page 1 of 193; None without a
    positive total (a caret page the application does not give reads 0)."""
    total = _number(attributes.get(TOTAL_PAGES))
    if total is None or total < 1:
        return None
    caret = _number(attributes.get(CARET_PAGE))
    return Pages(caret if caret is not None and 1 <= caret <= total else 0, total)


def _number(value: object) -> int | None:
    try:
        return int(str(value).strip())
    except ValueError:
        return None
