"""Wheel scrolling without a pointer: moving a scroll area's scroll bar values.

Owns finding the scroll bars that belong to an element (its own children, or
those of its nearest scrolling ancestor) and the arithmetic of a wheel click
(one ``MinimumIncrement``, or a tenth of the range when the toolkit reports
none). The caller writes ``Value.CurrentValue`` and reads it back; this module
reads but never writes.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.reader import IFACE_PREFIX, read_basics, read_children
from actui.backends.atspi.viewport import is_windowed
from actui.backends.reads import number_of
from actui.errors import ActuiError

VALUE = IFACE_PREFIX + "Value"
MAX_ANCESTORS = 8


@dataclass(frozen=True)
class Bar:
    at: Address
    vertical: bool
    current: float
    minimum: float
    maximum: float
    step: float


def wheel_target(bar: Bar, clicks: int) -> float:
    """Where ``clicks`` wheel clicks (positive: down / right) move the bar, clamped."""
    step = bar.step if bar.step > 0 else (bar.maximum - bar.minimum) / 10
    return min(bar.maximum, max(bar.minimum, bar.current + clicks * step))


async def scroll_bars(bus: AtspiBus, at: Address) -> list[Bar]:
    """The scroll bars of ``at`` or of its nearest ancestor that has some."""
    here = at
    for _ in range(MAX_ANCESTORS):
        bars = await _own_bars(bus, here)
        if bars:
            return bars
        parent = Address.of(
            await bus.get(here.bus, here.path, IFACE_PREFIX + "Accessible", "Parent")
        )
        if parent.is_null:
            break
        here = parent
    return []


async def _own_bars(bus: AtspiBus, at: Address) -> list[Bar]:
    """The element's scroll bars among its children; none of a container read as a window
    (its children are its cells, and asking for them all would wedge the application)."""
    bars: list[Bar] = []
    if is_windowed(await read_basics(bus, at)):
        return bars
    for child in await read_children(bus, at):
        with contextlib.suppress(ActuiError):
            basics = await read_basics(bus, child)
            if basics.role != "scroll bar" or "Value" not in basics.interfaces:
                continue
            props = await bus.get_many(
                child.bus,
                child.path,
                VALUE,
                ("CurrentValue", "MinimumValue", "MaximumValue", "MinimumIncrement"),
            )
            bars.append(
                Bar(
                    at=child,
                    vertical="horizontal" not in basics.states,
                    current=number_of(props, "CurrentValue"),
                    minimum=number_of(props, "MinimumValue"),
                    maximum=number_of(props, "MaximumValue"),
                    step=number_of(props, "MinimumIncrement"),
                )
            )
    return bars
