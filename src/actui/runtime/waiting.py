"""Waiting for a UI condition: snapshot, evaluate, sleep until the next change.

The loop takes the backend's change mark *before* each snapshot, so an event
that lands between the snapshot and the wait wakes it at once; backends with
events wake on them, the others fall back to their declared polling interval.
Every fresh outline is ref-stabilized against the base state so a condition's
``@e`` refs keep meaning the same elements. A condition confined to no element
may also be met in the windows a transaction opened (a dialog the action
raised): those are read on every check as well, and the result names the
window that met it. No rendering, no scheduling here.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from actui.backends.base import Backend, RawNode, Rect, RootInfo, Snapshot
from actui.deadlines import Deadline
from actui.outline.conditions import Evaluation, UiCondition, evaluate
from actui.outline.diff import stabilize
from actui.outline.model import Outline, build_outline
from actui.runtime.reaching import PagesScanned, ReadNote

SnapshotFn = Callable[[], Awaitable[tuple[Snapshot, int]]]
"""Takes a snapshot and says at which epoch of its resource it was taken."""
OpenedFn = Callable[[], Awaitable[list[Snapshot]]]
"""Snapshots of the windows opened since the transaction began (not the waited-on one)."""
RELIST_S = 0.25
"""How often opened windows are looked for while the waited-on window is quiet: a window
of another application wakes no wait on this one."""


class Reader(Protocol):
    """Reads on demand what a look left unread and the condition could be met in
    (``actui.runtime.reaching.ConditionReach``); it keeps its own schedule."""

    def due_in(self) -> float | None:
        """Seconds until it means to read (0 when due), None when there is nothing to read."""

    async def __call__(
        self, root: RootInfo, outline: Outline, budget_s: float
    ) -> tuple[Outline, Sequence[ReadNote]]:
        """``outline`` with what it left unread read in (when due), and what was read."""


@dataclass(frozen=True)
class WaitResult:
    satisfied: bool
    evaluation: Evaluation
    snapshot: Snapshot
    outline: Outline
    epoch: int
    elapsed_ms: int
    checks: int
    event_driven: bool
    met_in: RootInfo | None = None
    """An opened window that shows the condition's element (for ``absent``: where it still
    shows), when the waited-on window alone does not decide it."""
    reached: tuple[ReadNote, ...] = ()
    """What the last check read on demand (``reach``), if anything."""


def observed_outline(snapshot: Snapshot, base: Outline | None, scale: float = 1.0) -> Outline:
    """A snapshot's outline in image pixels, with refs inherited from ``base`` when given."""
    fresh = _built.outline(snapshot.tree, snapshot.root.frame, scale)
    return stabilize(base, fresh) if base is not None else fresh


class _RecentOutlines:
    """The outlines of the last few trees, by identity.

    A backend that finds nothing changed hands back the very tree it gave
    before (the AT-SPI mirror does); numbering its 900 nodes again would be
    most of a repeated observation's time. Outlines are immutable, so sharing
    one between states is safe.
    """

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._recent: OrderedDict[int, tuple[RawNode, Rect | None, float, Outline]] = OrderedDict()

    def outline(self, tree: RawNode, frame: Rect | None, scale: float) -> Outline:
        hit = self._recent.get(id(tree))
        if hit is not None and hit[0] is tree and hit[1] == frame and hit[2] == scale:
            return hit[3]
        outline = build_outline(tree, frame, scale)
        self._recent[id(tree)] = (tree, frame, scale, outline)  # the tree is kept: ids stay unique
        while len(self._recent) > self._size:
            self._recent.popitem(last=False)
        return outline


_built = _RecentOutlines()


async def wait_until(
    backend: Backend,
    root: RootInfo,
    condition: UiCondition,
    base: Outline,
    take_snapshot: SnapshotFn,
    *,
    timeout_ms: int | None = None,
    scale: float = 1.0,
    opened: OpenedFn | None = None,
    reach: Reader | None = None,
) -> WaitResult:
    """Check ``condition`` on fresh snapshots until it holds or time runs out.

    It is always checked at least once, even with a zero timeout. With
    ``opened``, a condition without an anchor is present when any of the
    root and the opened windows shows it (absent when none does). With
    ``reach``, a check the look does not decide reads more on demand first when the
    reader says it is due, and the wait wakes for it.
    """
    across = opened if condition.anchor is None else None
    budget = condition.timeout_ms if timeout_ms is None else timeout_ms
    deadline = Deadline(budget / 1000)
    checks = 0
    scrolled: list[ReadNote] = []
    """Documents a read scrolled: their views stay moved, so every later result says so."""
    while True:
        mark = backend.change_mark(root)
        snapshot, epoch = await take_snapshot()
        outline = observed_outline(snapshot, base, scale)
        evaluation = evaluate(condition, outline)
        reached: Sequence[ReadNote] = ()
        if reach is not None and not evaluation.present:
            outline, reached = await reach(snapshot.root, outline, deadline.left())
            evaluation = evaluate(condition, outline)
            scrolled += [r for r in reached if isinstance(r, PagesScanned) and r.scan.scrolled]
        met_in = None
        if across is not None and not evaluation.present:
            met_in = _shown_in(condition, await across())
            if met_in is not None:
                evaluation = Evaluation(
                    satisfied=condition.until == "present", present=True, matches=()
                )
        checks += 1
        remaining = deadline.left()
        if evaluation.satisfied or remaining <= 0:
            return WaitResult(
                satisfied=evaluation.satisfied,
                evaluation=evaluation,
                snapshot=snapshot,
                outline=outline,
                epoch=epoch,
                elapsed_ms=deadline.elapsed_ms(),
                checks=checks,
                event_driven=backend.waits_are_event_driven(root),
                met_in=met_in,
                reached=tuple(reached) or tuple(scrolled),
            )
        due = None if reach is None else reach.due_in()
        pause = remaining if across is None else min(remaining, RELIST_S)
        await backend.wait_for_change(root, mark, pause if due is None else min(pause, due))


def _shown_in(condition: UiCondition, snapshots: list[Snapshot]) -> RootInfo | None:
    """The first window whose outline shows the condition's element."""
    for snapshot in snapshots:
        if evaluate(condition, observed_outline(snapshot, None)).present:
            return snapshot.root
    return None
