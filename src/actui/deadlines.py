"""One way to wait: a deadline, the time between looks, and what was last seen.

Every wait in actui that looks again until something holds or time runs out
(a condition, an app going quiet, a window leaving the listing, a process
ending, a page appearing) counts its time with a :class:`Deadline` and, when it
looks at intervals, with :func:`poll`. A wait that wakes on events passes the
event wait as ``wake``; one that polls passes its interval, stated where it is
declared. Like playwright's ``Waiter``, a deadline keeps what the wait saw last,
so a timeout can say what the UI showed instead of only that time ran out.
It is ground: it knows clocks, not what is waited for.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

Wake = Callable[[float], Awaitable[object]]
"""Waits at most the seconds it is given for the next reason to look again (an event,
or simply the polling interval): it returns early, never late."""


class Deadline:
    """A time budget on the monotonic clock (``asyncio``'s too), started now or at ``start``."""

    def __init__(self, seconds: float, *, start: float | None = None) -> None:
        self.start = time.monotonic() if start is None else start
        self.end = self.start + max(0.0, seconds)
        self.seen = ""
        """What the wait saw last, in words, for the message of its timeout."""

    def left(self) -> float:
        """Seconds until the deadline, never below zero."""
        return max(0.0, self.end - time.monotonic())

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.end

    def elapsed_ms(self) -> int:
        return round((time.monotonic() - self.start) * 1000)

    def timed_out(self, what_failed: str) -> str:
        """The sentence of a timeout: what did not happen in how long, and what was seen."""
        said = f"{what_failed} within {self.end - self.start:g} s"
        return f"{said}; last seen: {self.seen}" if self.seen else said

    async def pause(self, interval: float) -> bool:
        """Sleep ``interval`` or until the deadline, whichever is first; whether time is left."""
        left = self.left()
        if left > 0:
            await asyncio.sleep(min(interval, left))
        return not self.expired


async def poll(
    look: Callable[[], Awaitable[T | None]], deadline: Deadline, wake: Wake | float
) -> T | None:
    """Look until a look finds something (its answer) or the deadline passes (None).

    It always looks once, even with no time left. Between looks it waits ``wake``
    seconds (a polling interval) or for ``wake(seconds left)`` to return (an event).
    """
    while True:
        found = await look()
        if found is not None:
            return found
        left = deadline.left()
        if left <= 0:
            return None
        if callable(wake):
            await wake(left)
        else:
            await asyncio.sleep(min(wake, left))
