"""The honesty rule of a delivered step, written once: read before, act, read after.

Every backend knows how to deliver a step and how to read its effect back;
this module alone says what the readings mean and how long to wait for them:

- ``worked`` only when the intended effect was read back on the acted element
  (or, for a step whose effect is not named beforehand, such as a press, when
  something observable changed);
- ``didnt`` when the read-back equals what was read before: nothing happened;
- ``unknown`` when the effect could not be read, or something else changed.

It never talks to a platform and never chooses a delivery: deciding between
background and foreground input, and retrying, belong to ``actui.tools.actions``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from actui.backends.base import Outcome
from actui.deadlines import Deadline, poll

T = TypeVar("T")

SETTLE_S = 0.3
"""How long a delivered step waits for its effect to show, re-reading on each event."""


def settle_window(lag_s: float = 0.0) -> float:
    """The settle window of a platform whose events arrive ``lag_s`` after the effect."""
    return SETTLE_S + max(0.0, lag_s)


def verdict(
    *, effect: bool, unchanged: bool, readable: bool = True, effect_named: bool = True
) -> Outcome:
    """The outcome from what the read-back showed.

    ``effect``: the intended effect shows; ``unchanged``: the reading equals the
    one taken before delivery; ``readable``: the effect could be read at all.
    ``effect_named`` is False for a step whose effect is not known beforehand
    (a press): any change is its effect, and no change proves nothing, since a
    press may do what no reading shows.
    """
    if not readable:
        return "unknown"
    if effect:
        return "worked"
    if unchanged and effect_named:
        return "didnt"
    return "unknown"


def judge(
    before: T,
    after: T,
    wanted: Callable[[T], bool],
    *,
    readable: bool = True,
    effect_named: bool = True,
) -> Outcome:
    """:func:`verdict` of two readings of the same thing and the effect wanted of it."""
    return verdict(
        effect=wanted(after),
        unchanged=after == before,
        readable=readable,
        effect_named=effect_named,
    )


def explain(outcome: Outcome, *, didnt: str = "", unknown: str = "", worked: str = "") -> str:
    """What a result says for the outcome it got (a ``worked`` usually needs no words)."""
    return {"worked": worked, "didnt": didnt, "unknown": unknown}[outcome]


async def settle(
    check: Callable[[], Awaitable[bool]],
    wake: Callable[[float], Awaitable[object]],
    budget_s: float,
) -> bool:
    """Re-read until ``check`` holds or ``budget_s`` has passed; whether it held.

    ``budget_s`` is the caller's settle window (:func:`settle_window`), never
    implied. ``wake`` waits at most the time it is given for the platform's next
    event (or its polling interval), so a reading is taken after each change.
    """

    async def held() -> bool | None:
        return True if await check() else None

    return await poll(held, Deadline(budget_s), wake) is not None


async def read_back(
    before: T,
    read: Callable[[], Awaitable[T]],
    wanted: Callable[[T], bool],
    wake: Callable[[float], Awaitable[object]],
    budget_s: float,
    *,
    effect_named: bool = True,
) -> tuple[Outcome, T]:
    """After delivery: re-read until the wanted effect shows, then judge; the last reading."""
    after = before
    held = False

    async def check() -> bool:
        nonlocal after, held
        after = await read()
        held = wanted(after)
        return held

    await settle(check, wake, budget_s)
    return verdict(effect=held, unchanged=after == before, effect_named=effect_named), after
