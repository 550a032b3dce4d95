"""The resource scheduler: one FIFO lane per resource, and its epoch.

A resource is what one action can disturb as a whole (a desktop process, a
browser page). Work on the same resource runs one job at a time, in arrival
order, so an observation never interleaves with an action on that app; work on
different resources runs concurrently. Each resource has an epoch, bumped by
every write *before* the write runs, so a half-failed action still invalidates
the state it was planned on, and a write planned on an older epoch is refused
before anything is sent. A write's optional first check runs in the lane
before the bump, so it can still refuse the write with the epoch unchanged.
This module must not know what the jobs do: it schedules callables and keeps
counters, nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from actui.errors import SchedulerClosed, StaleResourceStateError

T = TypeVar("T")
Job = Callable[[int], Awaitable[T]]
Check = Callable[[], Awaitable[None]]


class _Lane:
    """A resource's queue; it lives only while some job holds or awaits it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()  # FIFO: waiters are woken in arrival order
        self.users = 0


class Scheduler:
    """Per-resource lanes and epochs on one event loop; epochs start at 0."""

    def __init__(self) -> None:
        self._epochs: dict[str, int] = {}
        self._lanes: dict[str, _Lane] = {}
        self._closed = False
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def epoch(self, key: str) -> int:
        return self._epochs.get(key, 0)

    def check_current(self, key: str, epoch: int) -> None:
        """Refuse a state from an older epoch at once, without queueing."""
        current = self.epoch(key)
        if epoch != current:
            raise StaleResourceStateError(key, epoch, current)

    async def read(self, key: str, fn: Job[T]) -> T:
        """Run ``fn(epoch)`` in the lane; it may observe whatever the epoch is then."""
        return await self._run(key, None, fn, bump=False)

    async def read_at(self, key: str, epoch: int, fn: Job[T]) -> T:
        """Run ``fn`` only if ``epoch`` is still current when its turn comes."""
        return await self._run(key, epoch, fn, bump=False)

    async def write(
        self, key: str, base_epoch: int, fn: Job[T], *, first: Check | None = None
    ) -> T:
        """Like :meth:`read_at`, then bump the epoch and run ``fn(new_epoch)``.

        ``first`` runs in the lane before the bump: what it raises refuses the
        write with the epoch unchanged, as nothing was sent yet.
        """
        return await self._run(key, base_epoch, fn, bump=True, first=first)

    async def close(self) -> None:
        """Refuse new work and wait until every accepted job has finished."""
        self._closed = True
        await self._idle.wait()

    async def _run(
        self, key: str, expected: int | None, fn: Job[T], *, bump: bool, first: Check | None = None
    ) -> T:
        if self._closed:
            raise SchedulerClosed("actui is shutting down; no new work is accepted.")
        if expected is not None:
            # Epochs only grow, so a state stale now is stale on its turn too.
            self.check_current(key, expected)
        lane = self._lanes.setdefault(key, _Lane())
        lane.users += 1
        self._in_flight += 1
        self._idle.clear()
        try:
            async with lane.lock:
                if expected is not None:
                    self.check_current(key, expected)
                if first is not None:
                    await first()
                epoch = self.epoch(key)
                if bump:
                    epoch += 1
                    self._epochs[key] = epoch
                return await fn(epoch)
        finally:
            lane.users -= 1
            if lane.users == 0:
                del self._lanes[key]
            self._in_flight -= 1
            if self._in_flight == 0:
                self._idle.set()
