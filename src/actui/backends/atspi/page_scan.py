"""A document's pages off screen, brought on screen by its scroll bar and read.

LibreOffice Writer (7.4) lists only the paragraphs on screen, and no read reaches the
others (measured on a 5,001-paragraph, 193-page document): ``Component.ScrollToPoint``
and ``ScrollTo`` on a paragraph or the page answer false and move nothing; setting the
scroll bar's ``Value`` is ignored; the page has no ``Text`` or ``Document`` interface;
``Collection.GetMatches`` on it answers nothing; a paragraph's flows-to leads only to
the paragraphs on screen; ``GetChildAtIndex`` past them is null. What does work is the
vertical scroll bar's fourth action (VCL's "increment block", named ``incrementBlock``):
one screen down, the caret and the text untouched (the page still said the caret was on
page 1). One action took about 11 ms (50 sent at once: 568 ms, 50 screens down), and a
``GetChildren`` sent after it lists the paragraphs of the new screen. The third action
(``decrementBlock``) is its twin upwards: after ctrl+End, 448 of them, one at a time
with the value and the paragraphs read after each (about 17 ms a screen), brought
paragraph 0 on screen, the value falling each time until 0, the caret still on the last
page.

So a search walks down a screen at a time: the action, the bar's value (unchanged: the
end), the page's children, the text of those not seen yet; it stops at the first screen
holding a paragraph whose text is accepted, at the end, or when the time is up. From the
end (unless the view started at the top) it walks up the same way, reading only the
paragraphs not seen yet, until a match, the top (the value stops falling) or the time.
The view is left where it stopped, so a look shows what was found, to be read and acted
on. Nothing remembers which way a scan went: one the time stopped on its way up says the
pages above were not searched, and a search again starts down again from there.
:func:`scan` walks any :class:`View`; :class:`BarView` is Writer's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from dbus_fast import Variant

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import PROPERTIES, AtspiBus, CallFailed
from actui.backends.atspi.reader import (
    ACCESSIBLE,
    IFACE_PREFIX,
    children_of,
    discard,
    read_basics,
    read_children,
    request_children,
)
from actui.backends.base import PageScan
from actui.deadlines import Deadline

ACTION = IFACE_PREFIX + "Action"
VALUE = IFACE_PREFIX + "Value"
TEXT = IFACE_PREFIX + "Text"
BAR_ACTIONS = 4
"""A VCL scroll bar's actions: decrement line, increment line, decrement block, increment
block."""
DECREMENT_BLOCK = 2
INCREMENT_BLOCK = 3

Item = TypeVar("Item", bound=Hashable)


class View(Protocol[Item]):
    """A document's view, moved a screen at a time by its scroll bar's block actions."""

    async def place(self) -> tuple[float, float, float]:
        """The bar's value (the view's top), its minimum and its maximum."""
        ...

    async def shown(self) -> list[Item]:
        """The paragraphs on screen."""
        ...

    async def move(self, action: int) -> tuple[float, list[Item]]:
        """The block action ``action`` done: the bar's value after it and the paragraphs
        then on screen."""
        ...

    async def text(self, item: Item) -> str:
        """A paragraph's text ("" for what has none)."""
        ...


async def scroll_bar(bus: AtspiBus, document: Address) -> Address | None:
    """The vertical scroll bar beside the page (a sibling in its scroll pane) with VCL's
    four actions; None when there is none."""
    parent = Address.of(await bus.get(document.bus, document.path, ACCESSIBLE, "Parent"))
    siblings = await read_children(bus, parent)
    found = await asyncio.gather(*(read_basics(bus, at) for at in siblings))
    for at, basics in zip(siblings, found, strict=True):
        if basics.role == "scroll bar" and "vertical" in basics.states:
            actions = await bus.get_int(at.bus, at.path, ACTION, "NActions")
            return at if actions == BAR_ACTIONS and "Value" in basics.interfaces else None
    return None


@dataclass(frozen=True)
class _Walk:
    """Where a walk one way stopped: ``ended`` when the bar went no further."""

    matched: int
    screens: int
    ended: bool
    value: float


async def scan(view: View[Item], accepts: Callable[[str], bool], deadline: Deadline) -> PageScan:
    """Screens below the one shown, then above it, until a paragraph's text is accepted,
    both ends, or ``deadline`` (see the module's docstring)."""
    seen = set(await view.shown())
    start, minimum, maximum = await view.place()
    down = await _walk(view, INCREMENT_BLOCK, start, seen, accepts, deadline)
    if down.matched or not down.ended or start <= minimum:
        slow = not down.matched and not down.ended
        place = _place(down.value, maximum)
        top = down.ended and start <= minimum
        return PageScan(down.matched, down.screens, down.ended, slow, place, 0, top)
    up = await _walk(view, DECREMENT_BLOCK, down.value, seen, accepts, deadline)
    slow = not up.matched and not up.ended
    place = _place(up.value, maximum)
    return PageScan(up.matched, down.screens, True, slow, place, up.screens, up.ended)


async def _walk(
    view: View[Item],
    action: int,
    value: float,
    seen: set[Item],
    accepts: Callable[[str], bool],
    deadline: Deadline,
) -> _Walk:
    """Screens one way (``action``) from ``value``, reading the paragraphs not ``seen``."""
    screens = 0
    while not deadline.expired:
        moved, listed = await view.move(action)
        went = moved - value if action == INCREMENT_BLOCK else value - moved
        if went <= 0:  # the bar went no further: the end (or the top)
            return _Walk(0, screens, True, value)
        value, screens = moved, screens + 1
        fresh = [item for item in listed if item not in seen]
        seen.update(fresh)
        texts = await asyncio.gather(*(view.text(item) for item in fresh))
        matched = sum(1 for text in texts if accepts(text))
        if matched:
            return _Walk(matched, screens, False, value)
    return _Walk(0, screens, False, value)


@dataclass(frozen=True)
class BarView:
    """Writer's page and the vertical scroll bar beside it (:func:`scroll_bar`)."""

    bus: AtspiBus
    document: Address
    bar: Address

    async def place(self) -> tuple[float, float, float]:
        names = ("CurrentValue", "MinimumValue", "MaximumValue")
        value, minimum, maximum = await asyncio.gather(*(self._get(name) for name in names))
        return value, minimum, maximum

    async def shown(self) -> list[Address]:
        return await read_children(self.bus, self.document)

    async def move(self, action: int) -> tuple[float, list[Address]]:
        bus, bar = self.bus, self.bar
        # the action, where the bar went and the new screen's paragraphs: one round trip
        # (the application answers in order, so the list is the one after the action)
        acted = bus.request(bar.bus, bar.path, ACTION, "DoAction", "i", (action,))
        place = bus.request(bar.bus, bar.path, PROPERTIES, "Get", "ss", (VALUE, "CurrentValue"))
        listed = request_children(bus, self.document)
        try:
            answers: list[list[Any]] = list(await asyncio.gather(acted, place, listed))
        except BaseException:
            discard([acted, place, listed])
            raise
        return _number(answers[1][0]), children_of(answers[2])

    async def text(self, item: Address) -> str:
        try:
            (text,) = await self.bus.call(item.bus, item.path, TEXT, "GetText", "ii", (0, -1))
        except CallFailed:
            return ""  # not a text (a table, a frame): nothing of it is accepted
        return str(text)

    async def _get(self, name: str) -> float:
        return _number(await self.bus.get(self.bar.bus, self.bar.path, VALUE, name))


def _number(value: object) -> float:
    value = value.value if isinstance(value, Variant) else value
    return float(value) if isinstance(value, int | float) else 0.0


def _place(value: float, maximum: float) -> float:
    return min(1.0, max(0.0, value / maximum)) if maximum > 0 else 0.0
