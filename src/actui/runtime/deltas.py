"""Root deltas: which windows appeared, closed or took focus during a transaction.

Computed from a listing before and listings after the steps; ``settle`` keeps
listing briefly so a window that opens (or a close-then-open) shortly after
the last step is still attributed to the transaction (docs/design-notes.md
§5). Pure apart from the listing callable it is given.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from actui.backends.base import JsonObject, RootInfo, RootKind
from actui.deadlines import Deadline

SETTLE_WINDOW_S = 0.3
SETTLE_POLL_S = 0.03
REDIFF_COUNT = 3
REDIFF_INTERVAL_S = 0.06

RootChange = Literal["appeared", "closed", "focused"]
SettledBy = Literal["events", "window", "launch", "none"]
"""What ended a transaction's settling: events, the window listing, a launch, or nothing."""


@dataclass(frozen=True)
class RootDelta:
    """A window that appeared, closed or took focus, named by its ``@r`` ref."""

    change: RootChange
    kind: RootKind
    ref: str
    title: str
    pid: int
    is_modal: bool

    @classmethod
    def of(cls, change: RootChange, ref: str, root: RootInfo) -> RootDelta:
        return cls(change, root.kind, ref, root.title, root.pid, root.is_modal)

    def to_wire(self) -> JsonObject:
        return {
            "change": self.change,
            "kind": self.kind,
            "ref": self.ref,
            "title": self.title,
            "pid": self.pid,
            "isModal": self.is_modal,
        }


Signature = frozenset[tuple[str, bool, str]]


def signature(roots: Sequence[RootInfo]) -> Signature:
    return frozenset((r.native_id, r.is_focused, r.title) for r in roots)


def root_deltas(
    before: Sequence[RootInfo], after: Sequence[RootInfo], ref_for: Callable[[RootInfo], str]
) -> list[RootDelta]:
    """``appeared`` / ``closed`` / ``focused`` entries, each naming its ``@r`` ref."""
    old = {r.native_id: r for r in before}
    new = {r.native_id: r for r in after}

    def entry(change: RootChange, root: RootInfo) -> RootDelta:
        return RootDelta.of(change, ref_for(root), root)

    deltas = [entry("appeared", r) for key, r in new.items() if key not in old]
    deltas += [entry("closed", r) for key, r in old.items() if key not in new]
    deltas += [
        entry("focused", r)
        for key, r in new.items()
        if r.is_focused and key in old and not old[key].is_focused
    ]
    return deltas


Quiet = Callable[[float], Awaitable[bool]]
"""Waits at most the given seconds; whether the application stayed silent long enough."""
Launched = Callable[[], list[int]]
"""The processes the acted-on application started during the transaction."""
LAUNCH_WAIT_S = 3.0
LAUNCH_POLL_S = 0.1


async def settle(
    before: Sequence[RootInfo],
    list_roots: Callable[[], Awaitable[list[RootInfo]]],
    *,
    window_s: float = SETTLE_WINDOW_S,
    since: float | None = None,
    went_quiet: Quiet | None = None,
    launched: Launched | None = None,
) -> tuple[list[RootInfo], SettledBy]:
    """The root listing once the desktop has settled after a transaction, and how it settled.

    By events where the backend can tell (``went_quiet``): once the acted-on
    application has been silent, the desktop is listed. Otherwise by the fixed
    window: polled until the signature differs from ``before`` or ``window_s``
    passes. The window runs from ``since`` (``time.monotonic``; default now):
    when the last step was sent, so the time a press spent waiting for its
    evidence (GTK 4: 250 ms) counts. When the application started a process
    (``launched``) that has no window yet, its window is waited for too, up to
    :data:`LAUNCH_WAIT_S` ("launch"). After a change, it re-lists a few more
    times to catch close-then-open.
    """
    base = signature(before)
    deadline = Deadline(window_s, start=since)
    how: SettledBy = "window" if window_s > 0 else "none"
    if went_quiet is not None and window_s > 0:
        while (left := deadline.left()) > 0:
            if await went_quiet(left):
                how = "events"
                break
        after = await list_roots()
    else:
        after = await list_roots()
        while signature(after) == base and not deadline.expired:
            await deadline.pause(SETTLE_POLL_S)
            after = await list_roots()
    if launched is not None and _awaited(launched(), after):
        how = "launch"
        launch = Deadline(LAUNCH_WAIT_S)
        while _awaited(launched(), after) and not launch.expired:
            await launch.pause(LAUNCH_POLL_S)
            after = await list_roots()
    if signature(after) != base:
        for _ in range(REDIFF_COUNT):
            await asyncio.sleep(REDIFF_INTERVAL_S)
            again = await list_roots()
            if signature(again) == signature(after):
                break
            after = again
    return after, how


def _awaited(started: list[int], listed: Sequence[RootInfo]) -> bool:
    """Whether processes were started and none of them has a window listed yet."""
    return bool(started) and not any(root.pid in started for root in listed)


MAX_PROCESSES = 256
"""Processes whose shown windows are remembered (the oldest are forgotten first)."""


class Announced:
    """Which windows of each process the agent was last shown, and changes it was not.

    A transaction's root deltas end when the application has settled: a window
    it opens later (a timer, an answer from another process) is on no delta.
    Every later call that lists the process's windows (resolving a root,
    observing one) compares that listing with what the agent was last shown;
    what opened or closed meanwhile waits here until a result reports it, once.
    Focus changes are not news. Pure bookkeeping: the listings come from callers.
    """

    def __init__(self) -> None:
        self._shown: dict[int, tuple[RootInfo, ...]] = {}
        self._unreported: dict[int, list[RootDelta]] = {}

    def shown(self, listed: Sequence[RootInfo], pids: set[int]) -> None:
        """The agent now knows ``pids``' windows as ``listed`` (a find_roots, root deltas)."""
        for pid in pids:
            self._remember(pid, listed)
            self._unreported.pop(pid, None)

    def listed(
        self, pid: int, listed: Sequence[RootInfo], ref_for: Callable[[RootInfo], str]
    ) -> None:
        """A fresh listing of ``pid``'s windows; what changed since last shown is kept."""
        before = self._shown.get(pid)
        now = self._remember(pid, listed)
        if before is None:
            return
        news = [d for d in root_deltas(before, now, ref_for) if d.change != "focused"]
        if news:
            self._unreported.setdefault(pid, []).extend(news)

    def take(self, pid: int) -> list[RootDelta]:
        """The changes to ``pid``'s windows not reported yet; reported from now on."""
        return self._unreported.pop(pid, [])

    def _remember(self, pid: int, listed: Sequence[RootInfo]) -> tuple[RootInfo, ...]:
        mine = tuple(r for r in listed if r.pid == pid)
        self._shown.pop(pid, None)
        self._shown[pid] = mine
        while len(self._shown) > MAX_PROCESSES:
            forgotten = next(iter(self._shown))
            del self._shown[forgotten]
            self._unreported.pop(forgotten, None)
        return mine
