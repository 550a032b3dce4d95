"""A document's pages below the screen, brought on screen by its scroll bar and read.

LibreOffice Writer (7.4) lists only the paragraphs on screen, and no read reaches the
others (measured on a 5,001-paragraph, 193-page document): ``Component.ScrollToPoint``
and ``ScrollTo`` on a paragraph or the page answer false and move nothing; setting the
scroll bar's ``Value`` is ignored; the page has no ``Text`` or ``Document`` interface;
``Collection.GetMatches`` on it answers nothing; a paragraph's flows-to leads only to
the paragraphs on screen; ``GetChildAtIndex`` past them is null. What does work is the
vertical scroll bar's fourth action (VCL's "increment block": its four actions carry no
names): one screen down, the caret and the text untouched (the page still said the
caret was on page 1). One action took about 11 ms (50 sent at once: 568 ms, 50 screens
down), and a ``GetChildren`` sent after it lists the paragraphs of the new screen.

So a search walks down a screen at a time: the action, the bar's value (unchanged: the
end), the page's children, the text of those not seen yet; it stops at the first screen
holding a paragraph whose text is accepted, at the end, or when the time is up. The view
is left where it stopped, so a look shows what was found, to be read and acted on.
Nothing scrolls above the screen: an agent that wants the pages above brings them on
screen itself (ctrl+Home).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

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
INCREMENT_BLOCK = 3


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


async def scan_down(
    bus: AtspiBus,
    document: Address,
    bar: Address,
    accepts: Callable[[str], bool],
    deadline: Deadline,
) -> PageScan:
    """Screens below the one shown, until a paragraph's text is accepted, the end, or
    ``deadline`` (see the module's docstring)."""
    seen = set(await read_children(bus, document))
    value, maximum = await _value(bus, bar), await _get(bus, bar, "MaximumValue")
    screens = 0
    while not deadline.expired:
        # the action, where the bar went and the new screen's paragraphs: one round trip
        # (the application answers in order, so the list is the one after the action)
        acted = bus.request(bar.bus, bar.path, ACTION, "DoAction", "i", (INCREMENT_BLOCK,))
        place = bus.request(bar.bus, bar.path, PROPERTIES, "Get", "ss", (VALUE, "CurrentValue"))
        listed = request_children(bus, document)
        try:
            answers: list[list[Any]] = list(await asyncio.gather(acted, place, listed))
        except BaseException:
            discard([acted, place, listed])
            raise
        moved, body = _number(answers[1][0]), answers[2]
        if moved <= value:
            return PageScan(0, screens, True, False, _place(value, maximum))
        value, screens = moved, screens + 1
        fresh = [at for at in children_of(body) if at not in seen]
        seen.update(fresh)
        texts = await asyncio.gather(*(_text(bus, at) for at in fresh))
        matched = sum(1 for text in texts if accepts(text))
        if matched:
            return PageScan(matched, screens, False, False, _place(value, maximum))
    return PageScan(0, screens, False, True, _place(value, maximum))


async def _text(bus: AtspiBus, at: Address) -> str:
    try:
        (text,) = await bus.call(at.bus, at.path, TEXT, "GetText", "ii", (0, -1))
    except CallFailed:
        return ""  # not a text (a table, a frame): nothing of it is accepted
    return str(text)


async def _value(bus: AtspiBus, bar: Address) -> float:
    return await _get(bus, bar, "CurrentValue")


async def _get(bus: AtspiBus, bar: Address, name: str) -> float:
    return _number(await bus.get(bar.bus, bar.path, VALUE, name))


def _number(value: object) -> float:
    value = value.value if isinstance(value, Variant) else value
    return float(value) if isinstance(value, int | float) else 0.0


def _place(value: float, maximum: float) -> float:
    return min(1.0, max(0.0, value / maximum)) if maximum > 0 else 0.0
