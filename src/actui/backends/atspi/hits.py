"""Whether the point a pointer click goes to belongs to the element it is aimed at.

A click computed from geometry can land on a neighbour: LibreOffice's menus
put every item one title bar low (issue 24: a click on "AutoCorrect Options..."
ran "Redact", the item below). Before a pointer click on an element, the toolkit
is asked two things at the point, in its own coordinates (the screen's minus the
window origin of a window-relative toolkit): ``Component.Contains`` on the
element, and ``Component.GetAccessibleAtPoint`` on its parent, which names the
child under the point (for a menu's items, the item: the toolkit's own menu
geometry). A sibling there, or a point outside the element, is a miss, said
with what is there instead; nothing is sent. A parent that names nothing (or
itself) at the point says nothing against the click. The judgement is pure
(:func:`judge`); this module reads, never acts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus, CallFailed
from actui.backends.atspi.reader import ACCESSIBLE, IFACE_PREFIX
from actui.errors import TargetGone

COMPONENT = IFACE_PREFIX + "Component"
SCREEN = 0


@dataclass(frozen=True)
class AtPoint:
    """What the toolkit says of a point: whether the element contains it, and which
    other child of the element's parent is there (its role and name; '' for none)."""

    contains: bool | None
    """None when the element could not say (no Component, or the call failed)."""
    role: str = ""
    name: str = ""


PART_ROLES = frozenset({"label", "static", "image", "icon"})
"""Roles of a sibling that is a control's own caption or picture (GTK 4 lists a check
button's label beside it): a click on it reaches the control."""


def judge(role: str, name: str, found: AtPoint) -> str | None:
    """Why a click at the point would not land on the element (its ``role`` and
    ``name``), or None when nothing says it would miss. A sibling there misses unless it
    is the element's own caption (a label, or one named as the element)."""
    target = f'{role} "{name}"' if name else f"the {role}"
    if found.role and found.role not in PART_ROLES and found.name != name:
        there = f'{found.role} "{found.name}"' if found.name else f"a {found.role}"
        return f"{there} is there, not {target}"
    if found.contains is False:
        return f"it is outside {target}"
    return None


async def at_point(bus: AtspiBus, at: Address, x: int, y: int) -> AtPoint:
    """Ask the element and its parent about the toolkit point (``x``, ``y``)."""
    try:
        parent = Address.of(await bus.get(at.bus, at.path, ACCESSIBLE, "Parent"))
        asked = [bus.request(at.bus, at.path, COMPONENT, "Contains", "iiu", (x, y, SCREEN))]
        if not parent.is_null:
            asked.append(
                bus.request(
                    parent.bus, parent.path, COMPONENT, "GetAccessibleAtPoint", "iiu",
                    (x, y, SCREEN),
                )
            )  # fmt: skip
        said = await asyncio.gather(*asked, return_exceptions=True)
    except (CallFailed, TargetGone):
        return AtPoint(None)
    contains = None if isinstance(said[0], BaseException) else bool(said[0][0])
    if len(said) < 2 or isinstance(said[1], BaseException):
        return AtPoint(contains)
    there = Address.of(said[1][0])
    if there.is_null or there in (at, parent):
        return AtPoint(contains)
    try:
        name, (role,) = await asyncio.gather(
            bus.get(there.bus, there.path, ACCESSIBLE, "Name"),
            bus.call(there.bus, there.path, ACCESSIBLE, "GetRoleName"),
        )
    except (CallFailed, TargetGone):
        return AtPoint(contains)
    return AtPoint(contains, str(role) or "element", str(name))
