"""``AtspiBackend``: the AT-SPI half of the Linux desktop backend.

Composes the bus connections, root listing, snapshots (with the live mirror),
semantic actions, text reads and event-driven waits behind the ``Backend``
seam. Waits wake on the application's own AT-SPI events (``changes``) within
milliseconds; toolkits not known to send events are polled at the seam's
declared interval, so ``waits_are_event_driven`` answers per root. It holds the only state (the two
connections, the change counters, the mirrors and a read-only X connection for
window origins) and knows nothing of refs, folding or policies beyond refusing
physical input.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping

from actui import sentences
from actui.backends.atspi.actions import ENABLE_WAIT_S, REACH, ActionDelivery
from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import DEFAULT_CALL_TIMEOUT_S, AtspiBus
from actui.backends.atspi.cell_editor import is_sheet_cell
from actui.backends.atspi.changes import ChangeCounters
from actui.backends.atspi.fields import FieldText, FocusTracker, read_field, read_length
from actui.backends.atspi.formatting import read_format
from actui.backends.atspi.hits import at_point, judge
from actui.backends.atspi.insets import measure_inset
from actui.backends.atspi.kept_cells import KeptCells
from actui.backends.atspi.mirror import LAGGING_TOOLKITS, Mirrors
from actui.backends.atspi.page_scan import BarView, scan, scroll_bar
from actui.backends.atspi.pages import caret_paragraph, page_under
from actui.backends.atspi.reader import is_disabled, read_basics, read_extents, read_text
from actui.backends.atspi.roots import Listing, RootLister
from actui.backends.atspi.snapshot import WALK_BUDGET_S, SnapshotReader
from actui.backends.atspi.toolkits import is_libreoffice, window_relative
from actui.backends.atspi.unread import accepted_cells, read_cells
from actui.backends.atspi.viewport import in_spreadsheet
from actui.backends.atspi.window_origin import WindowOrigins, WindowSource
from actui.backends.base import (
    POLL_INTERVAL_S,
    ActionRequest,
    ActionResult,
    Backend,
    PageScan,
    RawNode,
    Rect,
    RootInfo,
    RowQuery,
    SemanticReach,
    Snapshot,
    TextFormat,
    TextSlice,
)
from actui.deadlines import Deadline
from actui.errors import ActuiError, SecureTextUnreadable, TargetGone
from actui.refusals import Refused

MAX_NODES = 4096
MAX_DEPTH = 64
# Toolkits measured to emit change events for what a wait can observe
# (docs/design-notes.md §6); others are polled at the seam's declared interval.
EVENTFUL_TOOLKITS = ("gtk", "qt", "chromium")
SETTLE_QUIET_S = 0.1
"""Silence after a step that ends its settling (GTK 3 builds a dialog in one burst)."""


class AtspiBackend(Backend):
    """Reads and operates applications over AT-SPI2, with one persistent a11y-bus connection."""

    name = "atspi"

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        switch_on: bool = False,
        windows: WindowSource | None = None,
    ) -> None:
        self._bus = AtspiBus(env, call_timeout_s=call_timeout_s, switch_on=switch_on)
        self._origins = WindowOrigins(env, windows)
        self._roots = RootLister(self._bus, self._origins)
        self._changes = ChangeCounters()
        self._bus.subscribe(self._changes.on_signal)
        self._bus.when_lost(self._changes.lose)
        self._mirrors = Mirrors()
        self._actions = ActionDelivery(self._bus, self._mirrors.paths)
        self._changes.listen(self._mirrors.on_event)
        self._changes.listen(self._roots.on_event)
        self._kept_cells = KeptCells()
        self._snapshots = SnapshotReader(self._bus, self._mirrors, self._kept_cells)
        self._focus = FocusTracker()
        self._bus.subscribe(self._focus.on_signal)

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        return (await self.listing(pid)).roots

    async def listing(self, pid: int | None = None) -> Listing:
        """The roots, and which applications' pids answered (see ``roots.Listing``)."""
        await self._bus.ensure_events()
        return await self._roots.listing(pid)

    async def snapshot(
        self, root: RootInfo, *, max_nodes: int, max_depth: int, budget_s: float = WALK_BUDGET_S
    ) -> Snapshot:
        """``budget_s``: how long the walk admits new nodes (see ``snapshot.WALK_BUDGET_S``)."""
        await self._bus.ensure_events()
        return await self._snapshots.snapshot(
            root,
            lambda: self._origin(root),
            max_nodes=min(max_nodes, MAX_NODES),
            max_depth=min(max_depth, MAX_DEPTH),
            budget_s=budget_s,
        )

    async def read_below(self, root: RootInfo, node_id: str, budget_s: float) -> RawNode:
        await self._bus.ensure_events()
        origin, _ = await self._origin(root)
        at = Address.parse(node_id)
        return await self._snapshots.read_below(
            root, at, origin, max_nodes=MAX_NODES, max_depth=MAX_DEPTH, budget_s=budget_s
        )

    async def refusal_if_disabled(self, request: ActionRequest) -> ActionResult | None:
        """Physical input aimed at an element waits for it to be enabled (see actions)."""
        return await self._actions.refusal_if_disabled(request)

    async def stuck_in_call(self, root: RootInfo) -> bool:
        """Whether the root's application is held inside an earlier action's call (a
        modal dialog it runs there): a key press would then deadlock it."""
        return await self._actions.stuck_in_call(root.pid)

    async def until_default_enabled(self, root: RootInfo) -> None:
        """Return once the window's default button (what Enter activates) is enabled.

        A dialog enables its default button a moment after the edit that makes it
        valid (GTK 3's file chooser: 150 ms after the name changes), and Enter on a
        disabled default is dropped without a trace; a person never presses Enter
        that fast. Best effort, at most ``ENABLE_WAIT_S`` in all: an application
        that does not answer (a modal loop inside an AT-SPI call) still gets its key.
        """
        with contextlib.suppress(TimeoutError, ActuiError):
            async with asyncio.timeout(ENABLE_WAIT_S):
                snapshot = await self.snapshot(root, max_nodes=MAX_NODES, max_depth=MAX_DEPTH)
                pending, found = [snapshot.tree], []
                while pending:
                    node = pending.pop()
                    pending.extend(node.children)
                    if {"is_default", "showing"} <= node.states and is_disabled(node.states):
                        found.append(Address.parse(node.native_id))
                for at in found:
                    await self._actions.until_enabled(at, await read_basics(self._bus, at))

    async def _origin(self, root: RootInfo) -> tuple[tuple[int, int], Rect | None]:
        """The offset to add to this root's extents, and its screen rect.

        Only a root at (0, 0) of a window-relative toolkit (GTK 4,
        ``toolkits.window_relative``) is moved to where the X server says the
        window is.
        """
        at = Address.parse(root.native_id)
        try:
            frame = await read_extents(self._bus, at, (0, 0))
        except TargetGone as exc:
            raise TargetGone(
                f"the window {root.title!r} of {root.app_name}",
                "is gone",
                then="find_roots",
                pid=root.pid,
            ) from exc
        if frame is None or (frame.x, frame.y) != (0, 0):
            return (0, 0), frame
        placement = await self._origins.placement(
            root.pid,
            root.title,
            frame,
            relative=window_relative(root.toolkit),
            measure=lambda size: measure_inset(self._bus, at, frame, size),
        )
        dx, dy = placement.offset if placement is not None else (0, 0)
        return (dx, dy), Rect(frame.x + dx, frame.y + dy, frame.w, frame.h)

    async def point_miss(self, request: ActionRequest) -> str | None:
        """Why a pointer click at ``request.point`` would not land on ``request.target``
        (``hits``), or None when the toolkit says nothing against it."""
        if request.target is None or request.point is None:
            return None
        at = Address.parse(request.target)
        (dx, dy), _ = await self._origin(request.root)
        x, y = request.point
        try:
            basics = await read_basics(self._bus, at)
        except TargetGone:
            return "the element is gone"
        return judge(basics.role, basics.name, await at_point(self._bus, at, x - dx, y - dy))

    def change_mark(self, root: RootInfo) -> int:
        return self._changes.mark(Address.parse(root.native_id).bus)

    async def wait_for_change(self, root: RootInfo, since: int, timeout_s: float) -> int:
        """Wake on the application's next event (within a few ms of it).

        Toolkits not known to send events are polled instead.
        """
        await self._bus.ensure_events()
        app = Address.parse(root.native_id).bus
        if not self.waits_are_event_driven(root):
            await asyncio.sleep(min(POLL_INTERVAL_S, max(0.0, timeout_s)))
            return self._changes.mark(app) + 1
        return await self._changes.wait(app, since, timeout_s)

    def end_waits(self, error: Exception) -> None:
        """Every wait on events ends now with ``error``: the events can no longer come
        (the display the applications drew on is gone)."""
        self._changes.lose(error)

    def notices(self) -> list[str]:
        lost = self._bus.lost_at
        if lost is not None:
            return [sentences.bus_lost(_clock(lost))]
        if self._roots.registry_missing:
            return [
                "the accessibility registry (org.a11y.atspi.Registry) is not running: "
                "applications listed before it stopped are still read directly, but ones "
                "started since cannot be found (their windows show with accessibility none)."
            ]
        restarted, carried = self._bus.registry_restarted_at, self._roots.carried
        if restarted is None or not carried:
            return []
        return [
            f"the accessibility registry restarted at {_clock(restarted)}; {carried} "
            "application(s) listed before are not (yet) registered with it and are read "
            "directly; one never listed before the restart shows with accessibility none."
        ]

    def waits_are_event_driven(self, root: RootInfo) -> bool:
        return root.toolkit.lower().startswith(EVENTFUL_TOOLKITS)

    def settle_quiet_s(self, root: RootInfo) -> float | None:
        """GTK 4's events arrive up to 340 ms late, so its silence proves nothing."""
        if not self.waits_are_event_driven(root) or root.toolkit.lower().startswith(
            LAGGING_TOOLKITS
        ):
            return None
        return SETTLE_QUIET_S

    def semantic_reach(self, root: RootInfo) -> SemanticReach:
        return REACH

    async def act(self, request: ActionRequest) -> ActionResult | Refused:
        try:
            return await self._actions.act(request)
        finally:
            self.note_input(request.root)

    async def focused_element(self, root: RootInfo) -> str | None:
        """The element of ``root``'s application that has the keyboard focus: the newest
        that took it and still reads ``focused`` (``fields.RECENT``), for LibreOffice's root
        pane its page's paragraph holding the caret (``pages``), else the newest."""
        recent = self._focus.recent(Address.parse(root.native_id).bus)
        for element in recent:
            at = Address.parse(element)
            with contextlib.suppress(ActuiError):
                basics = await read_basics(self._bus, at)
                focused = "focused" in basics.states
                pane = basics.role == "root pane" and is_libreoffice(root.app_name)
                if pane and (focused or element == recent[0]):
                    # the newest pane to take the focus stands for its page (``pages``)
                    page = await page_under(self._bus, at)
                    held = await caret_paragraph(self._bus, page) if page else None
                    if held is not None:
                        return held.native_id
                if focused:
                    return element
        return recent[0] if recent else None

    def note_focused(self, native_id: str) -> None:
        """actui focused ``native_id`` (an element already focused announces nothing)."""
        self._focus.note(native_id)

    async def read_field(self, native_id: str) -> FieldText | None:
        """The focused text field's content and typing position (None if it is none)."""
        return await read_field(self._bus, native_id)

    async def edits_in_own_editor(self, native_id: str) -> bool:
        """Whether text typed at ``native_id`` goes to an editor of its own (a spreadsheet
        cell's, ``atspi.cell_editor``) rather than into its text."""
        return await is_sheet_cell(self._bus, native_id)

    async def field_length(self, native_id: str) -> int:
        return await read_length(self._bus, native_id)

    def note_input(self, root: RootInfo) -> None:
        """Input was just delivered to ``root``'s application (also physical input).

        Toolkits whose events lag (GTK 4) are then read afresh until their
        events have caught up.
        """
        self._mirrors.acted(Address.parse(root.native_id).bus, root.toolkit)

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        at = Address.parse(node_id)
        basics = await read_basics(self._bus, at)
        if basics.secure:
            raise SecureTextUnreadable(node_id)
        start = max(0, offset)
        if "Text" not in basics.interfaces:
            # Qt labels carry their text only as the name.
            return TextSlice(basics.name[start : start + limit], start, len(basics.name))
        text, count = await read_text(self._bus, at, start, limit)
        return TextSlice(text, start, count)

    async def text_format(self, root: RootInfo, node_id: str) -> TextFormat | None:
        """Formatting, caret and selection of an element with text (never a password's)."""
        at = Address.parse(node_id)
        basics = await read_basics(self._bus, at)
        if basics.secure or "Text" not in basics.interfaces:
            return None
        return await read_format(self._bus, at)

    async def find_in_rows(self, root: RootInfo, query: RowQuery) -> list[RawNode]:
        at = Address.parse(query.container)
        basics = await read_basics(self._bus, at)
        table = "Table" in basics.interfaces
        sheet = table and await in_spreadsheet(self._bus, at)
        kept = self._kept_cells if sheet else None
        cells = await accepted_cells(self._bus, query, table, kept)
        origin, _ = await self._origin(root)
        selects = "Selection" in basics.interfaces
        return await read_cells(self._bus, cells, origin, root.toolkit, parent_selects=selects)

    async def scan_pages(
        self, root: RootInfo, node_id: str, accepts: Callable[[str], bool], budget_s: float
    ) -> PageScan | None:
        """A LibreOffice document's pages off screen (``page_scan``)."""
        if not is_libreoffice(root.app_name):
            return None
        at = Address.parse(node_id)
        bar = await scroll_bar(self._bus, at)
        if bar is None:
            return None
        return await scan(BarView(self._bus, at, bar), accepts, Deadline(budget_s))

    async def close(self) -> None:
        await self._bus.close()
        await self._origins.close()


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))
