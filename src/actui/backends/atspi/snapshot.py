"""One root's tree: from the toolkit cache where it is complete, else a walk.

Owns the breadth-first traversal, the node and depth caps with ``truncated``
marked on every node whose children were cut, and the choice of calls per
node. The walk has no per-level barrier: a node's children start as soon as
its child list is known (the bus bounds the calls in flight), yet children are
admitted strictly in breadth-first order, so the node cap keeps the same nodes
a level-by-level walk would. Calls that cannot matter are skipped: extents of
elements inside an element with empty extents (GTK 4 never says ``showing``;
its hidden stack pages are two thirds of gtk4-widget-factory), action lists of
GTK containers, labels and images (only clipboard and popup-menu actions),
``CharacterCount`` when the text is shorter than the cap.

Per node, only what can matter is read: extents of showing elements, action
names of showing elements that are not GTK containers, labels or images,
nor GTK 3 buttons (hidden ones and those advertise caps by role; delivery reads
the names when it acts),
text only where it is not already the name (``reader.name_is_text``).

``Cache.GetItems`` supplies name, role, states, interfaces and children in one
call where it is complete (GTK 3 and Chromium, after ``RegisterEvent``; GTK 3
omits transient tree cells and gives scroll bars no index, so a node whose
cached children fall short of its child count or lack their indices is walked
live, except a scroll pane's bars, whose place is known: ``_in_order``). An element
the cache lists whole and that needs no call (``reader.uncalled_details``) is settled
when admitted, without a task (``_from_cache``).
Where the live ``mirror`` applies, the cache is not asked at all: clean
nodes are taken from the mirror without a task or a call (their extents too,
unless their subtree moved), and only dirty or new ones are read; a root
nothing touched since its last walk (no event, the same rect) gets that walk's
tree back as is. Where the mirror is not trusted (GTK 4 just after input),
known nodes skip only the role and interface calls. A GTK 4 element with empty
extents (a hidden stack page) is read, but what it holds is not: it says how
many children it left unread (``_Plan.hides_below``), they are read once it
can be seen, or on demand (``SnapshotReader.read_below``: listed by role and
name only, marked ``offscreen``). Events inside an unread subtree only mark
their nodes dirty in the mirror; nothing is read until it is walked. Closed Firefox
popups (neither ``visible`` nor ``showing``, see ``gecko``) are left out. A dead
application aborts the walk (``TargetGone``), never yields a partial tree.
A container too big to list (more than ``viewport.MAX_CHILDREN`` children) or one
that makes its children on demand (``manages_descendants``) is read as a
window onto its data (``viewport``): its size, and as children only the cells
on screen; it is read again on every walk (scrolling it sends no event about
it), while its cells come from the mirror like any other node, except a spreadsheet's:
LibreOffice sends no event about the cell objects a backend keeps (``kept_cells``).
An unnamed, showing field of a toolkit known to answer ``GetRelationSet`` is
asked who labels it (one call each; the names are resolved above the seam).
Per-node calls live in ``reader``; caps in ``caps``; naming quirks in
``names``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AppGone, AtspiBus, CallFailed
from actui.backends.atspi.caps import PRESS_ROLES, SCROLL_ROLES, derive_caps
from actui.backends.atspi.gecko import closed_popup
from actui.backends.atspi.kept_cells import KeptCells
from actui.backends.atspi.mirror import Assembled, Mirrors, NodeRecord, Reuse, remembered
from actui.backends.atspi.names import clean_name, clean_text
from actui.backends.atspi.page_count import counts_pages, pages_from, request_pages
from actui.backends.atspi.reader import (
    ACCESSIBLE,
    COUNT_FIRST_ROLES,
    Ahead,
    Basics,
    Details,
    as_unseen,
    ask_ahead,
    children_of,
    discard,
    extents_of,
    name_is_text,
    read_actions,
    read_basics,
    read_details,
    read_extents,
    read_unseen,
    request_children,
    short_interfaces,
    uncalled_details,
)
from actui.backends.atspi.tables import role_name, state_names
from actui.backends.atspi.toolkits import is_libreoffice
from actui.backends.atspi.viewport import (
    CellHint,
    Viewed,
    alike_by_column,
    answers,
    is_document,
    is_windowed,
    read_window,
)
from actui.backends.base import Pages, RawNode, Rect, RootInfo, Snapshot, Window
from actui.deadlines import Deadline
from actui.errors import CallTimeout, TargetGone

CACHE_PATH = "/org/a11y/atspi/cache"
CACHE_IFACE = "org.a11y.atspi.Cache"
CACHE_TOOLKITS = ("gtk 3", "chromium")
GTK_INERT_ROLES = frozenset({"panel", "filler", "label", "separator", "image"})
LABELLED_BY = 2
"""AT-SPI's ``RELATION_LABELLED_BY``."""
FIELD_ROLES = frozenset(
    {"text", "entry", "password text", "combo box", "spin button", "slider", "editbar"}
)
"""Roles whose unnamed, showing elements are asked who labels them (one call each)."""
RELATION_TOOLKITS = ("gtk", "qt")
"""Toolkits known to answer ``GetRelationSet`` (GTK 3 and 4, Qt); others are not asked."""
PRESS_BY_ROLE_TOOLKITS = ("gtk 3",)
"""Toolkits whose elements of ``caps.PRESS_ROLES`` were measured to list only a press
(gtk3-widget-factory: buttons, check and radio buttons, switches and combo boxes list one
action, Click, Toggle or Press, fixed by the widget's class): a look takes their caps from
the role instead of asking each (a third of its calls besides extents); delivery reads the
names when it acts. GTK 4 is not among them: most of its check boxes list no action."""
CLAMPING_TOOLKITS = ("gtk", "qt")
LOADING_PAGES = frozenset({"document text"})
"""LibreOffice's page roles: a page while its document loads says no ``manages_descendants``
(a 5,000-paragraph document for seconds) and is still a page (:meth:`_Plan.is_page`)."""
"""Toolkits measured to clamp a text range past the end (GTK 3 and 4, Qt; not Gecko)."""


@dataclass
class _Visit:
    """A node during the walk (mutable only while the walk runs)."""

    at: Address
    depth: int
    parent: int
    moved: bool = False
    record: NodeRecord | None = None
    """The mirror's record when the node was taken from it unchanged."""
    shown: bool = False
    unseen: bool = False
    """Below an element with empty extents (GTK 4): read by role and name only."""
    basics: Basics | None = None
    details: Details | None = None
    child_addresses: list[Address] = field(default_factory=list)
    children: list[int] = field(default_factory=list)
    truncated: bool = False
    children_known: bool = False
    children_read: bool = False
    labelled_by: tuple[str, ...] = ()
    window: Window | None = None
    """Set when the children are the shown part of a container too big to list."""
    unread: int = 0
    """Children left unread because the element is not shown: a hidden page's
    (``_Plan.hides_below``) or a closed menu's (``_Plan.closed_menu``), -1 when the
    cache did not count them."""
    cell_hints: Mapping[Address, CellHint] = field(default_factory=dict)
    """Of a windowed container: what its table already told of its shown cells."""
    pages: Pages | None = None
    """A document's page count, where its page says it (``page_count``)."""
    page: bool = False
    """A document's page (``viewport.is_document``): its paragraphs are read on every
    walk, never taken from the mirror: LibreOffice sends no event when a paragraph's
    focus, selection or style changes (a Heading 1 applied read as a paragraph still)."""
    hint: CellHint | None = None
    """What the parent's table already told of this cell."""
    laid: tuple[int, int, int, int] | None = None
    """Its screen extents, already read: a windowed container's, with its size."""
    settled: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class _Stop:
    """Why a walk stopped growing before it was done ("" while it grows).

    Past its budget, or once the application failed to answer one call in
    time, a walk admits no more nodes: the visits in flight finish (each
    bounded by the call timeout) and what was read is returned, marked
    truncated where it stopped, instead of nothing.
    """

    deadline: Deadline
    reason: str = ""

    def stopped(self) -> bool:
        if not self.reason and self.deadline.expired:
            self.reason = "the application answered too slowly to read it all in time"
        return bool(self.reason)


WALK_BUDGET_S = 8.0
"""Seconds a walk admits new nodes for: a tool call returns within about this plus one
call timeout, however slow the application."""


Placed = tuple[tuple[int, int], Rect | None]
"""A root's offset (added to window-relative extents) and its screen rect."""

_A = TypeVar("_A")
_B = TypeVar("_B")


async def _together(first: Awaitable[_A], second: Awaitable[_B]) -> tuple[_A, _B]:
    """Both awaited at once (one round trip, not two); the first's error wins, and the
    other is then cancelled, or its error retrieved."""
    tasks = (asyncio.ensure_future(first), asyncio.ensure_future(second))
    try:
        return await tasks[0], await tasks[1]
    finally:
        for task in tasks:
            if not task.cancel() and not task.cancelled():
                task.exception()


def _uncounted(basics: Basics) -> bool:
    """A container that makes its children on demand and has not said how many (GTK 3's
    tree views in the cache; they answer the direct question)."""
    return basics.child_count < 0 and "manages_descendants" in basics.states


def _wants_children(visit: _Visit, basics: Basics, max_depth: int, *, closed: bool) -> bool:
    """Whether to list the element's children; cut by the depth cap, it is marked truncated.

    A container too big to list, or one that makes its children on demand, is
    read through its viewport instead (``viewport``): LibreOffice's sheet
    claims 2^31 cells and makes an object for each one asked for, so asking
    for them all grew soffice by gigabytes and never answered in time.
    """
    if basics.child_count == 0:
        return False
    if visit.depth >= max_depth:
        visit.truncated = True
        return False
    if closed:
        visit.unread = basics.child_count
        return False
    return not is_windowed(basics)


@dataclass(frozen=True)
class _Plan:
    """Which calls a node needs: the rules that skip calls which cannot matter."""

    cache: dict[Address, _Cached] | None
    reuse: Reuse | None
    origin: tuple[int, int]
    frame: Rect | None
    """The root's screen rect, read just before the walk."""
    is_gtk: bool
    showing_known: bool
    """Whether the toolkit reports ``showing`` reliably (GTK 3, Chromium)."""
    toolkit: str = ""
    press_by_role: bool = False
    """Buttons' caps follow their role (:data:`PRESS_BY_ROLE_TOOLKITS`)."""
    reads_hidden: bool = False
    """Set when reading on demand below an element a snapshot left unread."""
    libreoffice: bool = False
    """LibreOffice: it names its GTK 3 plugin as its toolkit, but its own accessibility
    code answers: it does not clamp a text range (:attr:`text_clamps`)."""
    lazy_menus: bool = False
    """LibreOffice: closed menus' items are left unread (:meth:`closed_menu`)."""
    prefetched: dict[Address, asyncio.Future[list[Any]]] = field(default_factory=dict)
    """Child lists asked before the walk reaches them (:func:`_prefetch`)."""
    windows: dict[Address, asyncio.Task[Viewed]] = field(default_factory=dict)
    """Views of containers too big to list, read before the walk reaches them."""

    @classmethod
    def of(
        cls,
        root: RootInfo,
        cache: dict[Address, _Cached] | None,
        reuse: Reuse | None,
        origin: tuple[int, int],
        frame: Rect | None,
        *,
        reads_hidden: bool = False,
    ) -> _Plan:
        """The rules for ``root``'s toolkit; a read on demand reads what a look left unread."""
        toolkit = root.toolkit
        return cls(
            cache,
            reuse,
            origin,
            frame,
            is_gtk=toolkit.lower().startswith("gtk"),
            showing_known=uses_cache(toolkit),
            toolkit=toolkit,
            press_by_role=toolkit.lower().startswith(PRESS_BY_ROLE_TOOLKITS),
            reads_hidden=reads_hidden,
            libreoffice=is_libreoffice(root.app_name),
            lazy_menus=is_libreoffice(root.app_name) and not reads_hidden,
        )

    def hides_below(self, basics: Basics, details: Details, root: bool) -> bool:
        """Whether an element's children are left unread, counted, because it is not shown.

        GTK 4 only (it never says ``showing``): a hidden stack page has empty
        extents, and so does all it holds, most of gtk4-widget-factory's calls.
        The page itself is read (role, name, child count); what it holds is
        read on demand (``SnapshotReader.read_below``) or once it is shown.
        """
        return (
            self.lists_unseen
            and not self.reads_hidden
            and not root
            and basics.child_count > 0
            and details.rect is None
            and "Component" in basics.interfaces
        )

    def wants_labels(self, basics: Basics, shown: bool) -> bool:
        """Who labels a field only where the name is missing and the toolkit answers."""
        return (
            shown
            and basics.role in FIELD_ROLES
            and self.toolkit.lower().startswith(RELATION_TOOLKITS)
            and not clean_name(basics.name, self.toolkit)
        )

    def wants_rect(self, basics: Basics, parent: _Visit | None) -> bool:
        """Extents only where they can be non-empty.

        GTK 3 and Chromium report ``showing`` reliably; GTK 4 never sets it,
        but a child of an element with empty extents (a hidden stack page) is
        empty too, which skips about two thirds of gtk4-widget-factory.
        """
        if self.showing_known:
            return "showing" in basics.states
        if parent is not None and parent.unseen:
            return False
        return parent is None or self.parent_shows(parent) is not False

    def unseen(self, parent: _Visit | None) -> bool:
        """Whether an element cannot be seen, so its states and details need not be read.

        GTK 4 only: it never says ``showing``. Only a read on demand below a
        hidden element (``read_below``) gets there, since a walk leaves what a
        hidden element holds unread; listing those by role and name halves
        their calls. The parent must be settled.
        """
        if parent is None or not self.lists_unseen:
            return False
        return parent.unseen or self.parent_shows(parent) is False

    def closed_menu(self, basics: Basics, entry: _Cached | None) -> bool:
        """Whether a menu's items are left unread: it is not on screen, and the cache does
        not list them.

        LibreOffice (GTK 3 plugin) keeps two copies of its menus, none in the
        cache: their ~1,850 items were most of a cold Calc walk's calls. A menu
        that is open is showing (and so is the item a submenu opens from), so
        what an agent can click is still read; a closed one is listed with its
        child count. GTK 3 applications' menus come whole from the cache, at no
        call each, and stay listed; so do those of GTK 3 menus it does not hold
        (Mousepad's): an agent presses their items while closed, and only search_ui,
        expand_ui and waits read an unread menu on demand (``reaching``).
        """
        return self._uncached_menu(basics, entry) and "showing" not in basics.states

    def may_be_closed(self, basics: Basics, entry: _Cached | None) -> bool:
        """Whether a shown menu's items are checked for being on screen before they are read
        (see :func:`_closed_items`): a menu bar's menus are showing, open or closed."""
        return self._uncached_menu(basics, entry) and "showing" in basics.states

    def _uncached_menu(self, basics: Basics, entry: _Cached | None) -> bool:
        return (
            self.lazy_menus
            and basics.role == "menu"
            and basics.child_count != 0
            and not (entry is not None and entry.complete)
        )

    @property
    def lists_unseen(self) -> bool:
        return self.is_gtk and not self.showing_known

    def parent_shows(self, parent: _Visit) -> bool | None:
        """Whether ``parent`` has extents (or none to have); None while not yet known.

        A clean root's answer is known before its walk ends: its rect is the
        frame read before the walk.
        """
        if parent.settled.is_set():
            if parent.basics is None or parent.details is None:
                return True
            return parent.details.rect is not None or "Component" not in parent.basics.interfaces
        record = self.reuse.clean(parent.at) if self.reuse is not None else None
        if parent.parent >= 0 or record is None:
            return None
        return self.frame is not None or "Component" not in record.basics.interfaces

    @property
    def rect_follows_parent(self) -> bool:
        """Whether :meth:`wants_rect` needs the parent's extents first."""
        return not self.showing_known

    def wants_actions(self, basics: Basics, shown: bool) -> bool:
        """Action names only of elements that can be seen and are not inert.

        GTK 4 puts an Action interface on every widget; its containers, labels
        and images only list clipboard or popup-menu actions, never a
        capability. A hidden element's caps follow its role instead, and so do
        a GTK 3 button's (:data:`PRESS_BY_ROLE_TOOLKITS`).
        """
        return self.acts_by_role(basics.role, shown)

    def acts_by_role(self, role: str, shown: bool) -> bool:
        """:meth:`wants_actions`, from the role alone (all it looks at)."""
        if self.is_gtk and role in GTK_INERT_ROLES:
            return False
        return shown and not (self.press_by_role and role in PRESS_ROLES)

    def ahead(self, bus: AtspiBus, visit: _Visit, known: NodeRecord | None) -> Ahead | None:
        """A shown cell's extents and actions, asked with its states (``reader.Ahead``):
        only where the window told its role and interfaces, and its states will say whether
        it shows (GTK 3, Chromium), and neither the mirror nor the grid places it."""
        hint = visit.hint
        if hint is None or known is not None or hint.extents is not None:
            return None
        if not self.showing_known or visit.unseen:
            return None
        wants = self.acts_by_role(hint.role, True) and hint.actions is None
        return ask_ahead(bus, visit.at, hint.interfaces, actions=wants)

    def alike_by_column(self, basics: Basics) -> bool:
        """Whether a windowed table's cells are read once per column and row
        (``viewport.alike_by_column``)."""
        return alike_by_column(basics.role, self.toolkit, self.libreoffice)

    def uncalled(self, basics: Basics, shown: bool) -> Details | None:
        """The element's details when reading them needs no call (``reader.uncalled_details``)."""
        return uncalled_details(
            basics,
            want_rect=shown,
            want_actions=self.wants_actions(basics, shown),
            value_is_name=self.value_is_name(basics),
        )

    def cache_visit_needs_mirror(self, at: Address) -> bool:
        """Whether the mirror knows ``at``: its record decides what is read (``_visit``)."""
        return self.reuse is not None and self.reuse.clean(at) is not None

    def value_is_name(self, basics: Basics) -> bool:
        return self.is_gtk and name_is_text(basics)

    def is_page(self, basics: Basics) -> bool:
        """A document's page: its children are listed and read on every walk (a
        LibreOffice page also while it loads)."""
        return is_document(basics) or (self.libreoffice and basics.role in LOADING_PAGES)

    @property
    def text_clamps(self) -> bool:
        """GTK 3, GTK 4 and Qt clamp a text range past the end (``reader.text_head_from``);
        LibreOffice answers '' (a heading of 11 characters asked for 0..1024 read empty)."""
        return self.toolkit.lower().startswith(CLAMPING_TOOLKITS) and not self.libreoffice

    @property
    def anchor(self) -> tuple[int, int] | None:
        """The root's top-left corner: mirrored rects are relative to it."""
        return None if self.frame is None else (self.frame.x, self.frame.y)


@dataclass(frozen=True)
class _Cached:
    basics: Basics
    children: tuple[Address, ...]
    complete: bool


def uses_cache(toolkit: str) -> bool:
    """Whether the toolkit's ``Cache.GetItems`` holds its whole tree (docs/design-notes.md §6)."""
    return toolkit.lower().startswith(CACHE_TOOLKITS)


def index_cache(items: list[Any]) -> dict[Address, _Cached]:
    """Cache items by address, with children ordered by their index in the parent."""
    basics: dict[Address, Basics] = {}
    counts: dict[Address, int] = {}
    kids: dict[Address, list[tuple[int, Address]]] = {}
    for obj, _app, parent, index, count, ifaces, name, role, desc, states in items:
        at, up = Address.of(obj), Address.of(parent)
        basics[at] = Basics(
            role=role_name(int(role)),
            name=str(name),
            description=str(desc),
            states=state_names(states),
            interfaces=short_interfaces(ifaces),
            child_count=int(count),
        )
        counts[at] = int(count)
        if not up.is_null:
            kids.setdefault(up, []).append((int(index), at))
    result: dict[Address, _Cached] = {}
    for at, b in basics.items():
        pairs = sorted(kids.get(at, []), key=lambda pair: pair[0])
        ordered = _in_order(pairs, b.role, basics)
        if ordered is None:
            result[at] = _Cached(b, tuple(a for _, a in pairs), complete=False)
        else:
            result[at] = _Cached(b, ordered, complete=counts[at] == len(ordered))
    return result


SCROLL_BAR_ORDER = ("horizontal", "vertical")


def _in_order(
    pairs: list[tuple[int, Address]], role: str, basics: Mapping[Address, Basics]
) -> tuple[Address, ...] | None:
    """Cached children (sorted by index) in their parent's order; None when only a live
    ``GetChildren`` can tell it.

    GTK 3 gives a scrolled window's scroll bars index -1, and lists them after
    its indexed child, the horizontal one first (gtk3-widget-factory's three
    scroll panes, read live); any other child without an index is read live.
    """
    indexed = [a for index, a in pairs if index >= 0]
    if [index for index, _ in pairs if index >= 0] != list(range(len(indexed))):
        return None
    bars = [a for index, a in pairs if index < 0]
    if not bars:
        return tuple(indexed)
    if role != "scroll pane" or any(basics[a].role != "scroll bar" for a in bars):
        return None
    ways = [[w for w in SCROLL_BAR_ORDER if w in basics[a].states] for a in bars]
    if any(len(way) != 1 for way in ways) or len({way[0] for way in ways}) != len(bars):
        return None
    ranked = sorted(zip(ways, bars, strict=True), key=lambda p: SCROLL_BAR_ORDER.index(p[0][0]))
    return (*indexed, *(bar for _, bar in ranked))


class SnapshotReader:
    def __init__(self, bus: AtspiBus, mirrors: Mirrors, kept: KeptCells) -> None:
        self._bus = bus
        self._mirrors = mirrors
        self._kept = kept

    async def _cache(self, root: RootInfo, at: Address) -> dict[Address, _Cached] | None:
        """The toolkit's cache, where it is worth its round trip.

        LibreOffice's holds its menus (1,086 to 1,850 items, growing as they
        are read), which a look leaves unread (:meth:`_Plan.closed_menu`):
        ``GetItems`` took 260–490 ms of a 525–814 ms cold Calc snapshot, more
        than reading the rest directly.
        """
        if not uses_cache(root.toolkit) or is_libreoffice(root.app_name):
            return None
        await self._bus.ensure_events()
        try:
            body = await self._bus.call(at.bus, CACHE_PATH, CACHE_IFACE, "GetItems")
        except CallFailed:
            return None  # no cache yet (or an old signature): walk instead
        return index_cache(list(body[0]))

    async def snapshot(
        self,
        root: RootInfo,
        place: Callable[[], Awaitable[Placed]],
        *,
        max_nodes: int,
        max_depth: int,
        budget_s: float = WALK_BUDGET_S,
    ) -> Snapshot:
        """The root's tree; ``place`` reads its offset and screen rect.

        That read is a round trip to the application, so every event it sent
        before answering has been counted when the mirror is taken. With no
        mirror to take, nothing waits on it: the toolkit's cache is asked with it.
        """
        started = time.perf_counter()
        at = Address.parse(root.native_id)
        self._bus.identify_from_listing(at.bus, root.toolkit)
        max_nodes, max_depth = max(1, max_nodes), max(0, max_depth)
        # a restarted registry re-registered the events: what came before is walked again
        key = (max_nodes, max_depth, self._bus.connection_epoch, self._bus.registry_epoch)
        keep = remembered(root.toolkit)
        reuse: Reuse | None = None
        if keep and self._mirrors.holds(root.native_id, key):
            origin, frame = await place()
            trusted = self._mirrors.trusts(at.bus, root.toolkit)
            taken = self._mirrors.take(root.native_id, key, trusted=trusted)
            reuse = taken.sized(frame) if taken is not None else None
            last = reuse.unchanged(frame) if reuse is not None else None
            if last is not None and reuse is not None:
                self._mirrors.store(root.native_id, key, reuse.records, last)
                return self._result(root, last, "mirror", started, started)
            cache = None if reuse is not None and reuse.trusted else await self._cache(root, at)
        else:
            if keep:  # an empty mirror, collecting what changes while the walk runs
                self._mirrors.take(root.native_id, key, trusted=False)
            (origin, frame), cache = await _together(place(), self._cache(root, at))
        cached_at = time.perf_counter()
        plan = _Plan.of(root, cache, reuse, origin, frame)
        try:
            if cache is not None and reuse is None:
                _prefetch(self._bus, plan, cache, at, max_depth)
            stop = _Stop(Deadline(budget_s))
            visits = await self._walk(at, plan, max_nodes, max_depth, stop)
        except AppGone as exc:
            raise AppGone(
                f"{root.app_name} (pid {root.pid})",
                f"exited while its window {root.title!r} was being read",
                then="find_roots",
            ) from exc
        finally:
            discard([*plan.prefetched.values(), *plan.windows.values()])  # not reached
        first = visits[0].basics
        if first is None:
            raise TargetGone(
                f"the window {root.title!r} of {root.app_name}", "is gone", then="find_roots"
            )
        if not first.states & {"showing", "visible"}:
            # GTK 3 keeps a closed window's accessible, hidden.
            raise TargetGone(
                f"the window {root.title!r} of {root.app_name}", "was closed", then="find_roots"
            )
        tree, node_count = _assemble(visits, root.toolkit)
        made = Assembled(tree, node_count, any(v.truncated for v in visits), frame)
        if keep:
            # without the root's rect a move could not be noticed: that tree is not reused
            # a tree holding a document's page or a page whose text had not loaded is not
            # handed back whole: neither announces its changes (see _Visit.page, _unloaded)
            stale = any(v.page or _unread_text(v) for v in visits)
            reusable = made if frame is not None and not stop.reason and not stale else None
            self._mirrors.store(root.native_id, key, _records(visits, plan.anchor), reusable)
        source = "cache" if cache is not None else "walk"
        result = self._result(root, made, _source(source, reuse), started, cached_at)
        return replace(result, partial=stop.reason)

    async def read_below(
        self,
        root: RootInfo,
        at: Address,
        origin: tuple[int, int],
        *,
        max_nodes: int,
        max_depth: int,
        budget_s: float,
    ) -> RawNode:
        """An element a snapshot left unread (``_Plan.hides_below``), with what it holds.

        What it holds cannot be seen, so it is listed as a walk lists it below
        empty extents (role and name); the mirror is neither asked nor fed: a
        hidden page is no part of the root's walk.
        """
        plan = _Plan.of(root, None, None, origin, None, reads_hidden=True)
        stop = _Stop(Deadline(budget_s))
        visits = await self._walk(at, plan, max(1, max_nodes), max(0, max_depth), stop)
        if visits[0].basics is None:
            raise TargetGone(f"that element of {root.app_name}", "is gone", then="observe_ui")
        return _assemble(visits, root.toolkit)[0]

    @staticmethod
    def _result(
        root: RootInfo, made: Assembled, source: str, started: float, cached_at: float
    ) -> Snapshot:
        done = time.perf_counter()
        return Snapshot(
            root=root,
            tree=made.tree,
            captured_at=time.time(),
            node_count=made.node_count,
            truncated=made.truncated,
            source=source,
            timings_ms={
                "cache_ms": (cached_at - started) * 1000,
                "tree_ms": (done - cached_at) * 1000,
                "total_ms": (done - started) * 1000,
            },
        )

    async def _walk(
        self,
        root: Address,
        plan: _Plan,
        max_nodes: int,
        max_depth: int,
        stop: _Stop,
    ) -> list[_Visit]:
        """Visit nodes as soon as their parent's children are known, in BFS order.

        There is no per-level barrier: up to the bus's bound of calls are in
        flight across levels, and a node's children start before its own
        details are read. Children are admitted (given their index) strictly in
        breadth-first order, so the node cap keeps the same nodes a level-by-
        level walk would. A node the mirror can supply whole is settled on
        admission, without a task. Once ``stop`` says so, no more are admitted.
        """
        reuse = plan.reuse
        visits = [_Visit(root, 0, -1, moved=reuse is None or reuse.moves(root))]
        seen = {root}
        admitted = 0

        def admit_ready(group: asyncio.TaskGroup) -> None:
            nonlocal admitted
            while admitted < len(visits) and visits[admitted].children_known:
                visit = visits[admitted]
                if visit.child_addresses and stop.stopped():
                    visit.truncated = True
                    admitted += 1
                    continue
                for child in visit.child_addresses:
                    if child in seen:
                        continue
                    if len(visits) >= max_nodes:
                        visit.truncated = True
                        break
                    seen.add(child)
                    visit.children.append(len(visits))
                    moved = visit.moved or reuse is None or reuse.moves(child)
                    visits.append(_Visit(child, visit.depth + 1, admitted, moved=moved))
                    settled = self._from_mirror(visits, len(visits) - 1, plan, max_depth)
                    if not settled and not _from_cache(visits, len(visits) - 1, plan, max_depth):
                        group.create_task(
                            self._visit(visits, len(visits) - 1, plan, max_depth, admit, stop)
                        )
                admitted += 1

        try:
            async with asyncio.TaskGroup() as group:

                def admit() -> None:
                    admit_ready(group)

                group.create_task(self._visit(visits, 0, plan, max_depth, admit, stop))
        except ExceptionGroup as failed:  # a timeout: the app is hung, give up
            raise failed.exceptions[0] from None
        return visits

    def _from_mirror(self, visits: list[_Visit], index: int, plan: _Plan, max_depth: int) -> bool:
        """Settle a clean, unmoved node from the mirror at once; False when it needs reads."""
        visit = visits[index]
        known = plan.reuse.clean(visit.at) if plan.reuse is not None else None
        anchor = plan.anchor
        if known is None or anchor is None or _unloaded(known):
            return False
        parent = visits[visit.parent]
        if _in_sheet(parent) or parent.page:
            return False
        if plan.rect_follows_parent and plan.parent_shows(parent) is None:
            return False
        unseen = plan.unseen(parent)
        if unseen != known.basics.unseen:
            return False  # read under the other rule
        basics = known.basics
        if is_windowed(basics) or plan.is_page(basics):
            return False  # what it shows is read again: scrolling sends no event for it
        shown = plan.wants_rect(basics, parent)
        if shown != known.shown or (shown and visit.moved and "Component" in basics.interfaces):
            return False  # read under other rules, or its extents may have changed
        d = known.details
        details = Details(_shifted(d.rect, anchor), d.value, d.value_length, d.actions)
        closed = plan.closed_menu(basics, plan.cache.get(visit.at) if plan.cache else None)
        wants_children = _wants_children(visit, basics, max_depth, closed=closed)
        if wants_children and plan.hides_below(basics, details, index == 0):
            wants_children, visit.unread = False, basics.child_count
        elif wants_children and known.children is None:
            return False  # shown now, its children were never read
        visit.unseen = unseen
        visit.basics, visit.record, visit.shown, visit.details = basics, known, shown, details
        visit.child_addresses = list(known.children or ()) if wants_children else []
        visit.children_known = True
        visit.children_read = wants_children or basics.child_count == 0
        visit.settled.set()
        return True

    async def _visit(
        self,
        visits: list[_Visit],
        index: int,
        plan: _Plan,
        max_depth: int,
        admit: Callable[[], None],
        stop: _Stop,
    ) -> None:
        """Read one element, then admit its children.

        Where what a child needs depends on its parent's extents (GTK 4), the
        details come before the children are admitted; otherwise the children
        go first, so the walk widens before this node's details arrive.
        """
        visit = visits[index]
        entry = plan.cache.get(visit.at) if plan.cache is not None else None
        parent = visits[visit.parent] if visit.parent >= 0 else None
        known = None
        if plan.reuse is not None and not _in_sheet(parent) and not (parent and parent.page):
            known = plan.reuse.clean(visit.at)
        if known is not None and _unloaded(known):
            known = None
        pending: list[asyncio.Future[list[Any]]] = []
        ahead = labels = paging = None
        try:
            if plan.rect_follows_parent and parent is not None:
                await parent.settled.wait()
            visit.unseen = plan.unseen(parent)
            visit.hint = parent.cell_hints.get(visit.at) if parent is not None else None
            ahead = plan.ahead(self._bus, visit, known) if entry is None else None
            basics = await self._basics(visit, entry, known, plan, visit.hint)
            if plan.wants_labels(basics, plan.wants_rect(basics, parent)):
                # with the details, not after them: it was a round trip of its own
                labels = self._bus.request(
                    visit.at.bus, visit.at.path, ACCESSIBLE, "GetRelationSet"
                )
            viewed = None
            if visit.depth < max_depth and is_windowed(basics):
                # an uncounted one is counted with its window's first calls, not before
                started = plan.windows.pop(visit.at, None)
                viewed = await (
                    started
                    or read_window(
                        self._bus,
                        visit.at,
                        basics,
                        showing_known=plan.showing_known,
                        parent_role=_role_of(plan, parent),
                        kept=self._kept,
                        by_column=plan.alike_by_column(basics),
                    )
                )
                basics = replace(basics, child_count=viewed.window.count)
            elif _uncounted(basics):
                count = await self._bus.get_int(
                    visit.at.bus, visit.at.path, ACCESSIBLE, "ChildCount"
                )
                basics = replace(basics, child_count=count)
            closed = plan.closed_menu(basics, entry)
            wants_children = _wants_children(visit, basics, max_depth, closed=closed)
            listed = _listed_children(entry, known, wants_children)
            if wants_children and plan.is_page(basics):
                # what is on screen is asked again: the paragraphs change as it scrolls
                listed, visit.page = None, True
                if counts_pages(basics.role):
                    paging = request_pages(self._bus, visit.at)
            if viewed is not None and is_windowed(basics):
                visit.window, listed = viewed.window, list(viewed.children)
                visit.cell_hints, visit.laid = viewed.hints, viewed.extents
            if listed is None:
                early = plan.prefetched.pop(visit.at, None)
                pending.append(early or request_children(self._bus, visit.at))
            if plan.rect_follows_parent:
                visit.details = await self._details(visit, known, basics, plan, parent, ahead)
                visit.basics = basics
                if wants_children and plan.hides_below(basics, visit.details, index == 0):
                    wants_children, listed, visit.unread = False, [], basics.child_count
                visit.settled.set()
            visit.child_addresses = listed if listed is not None else children_of(await pending[0])
            if plan.may_be_closed(basics, entry) and await _closed_items(
                self._bus, visit.child_addresses
            ):
                visit.unread, visit.child_addresses = len(visit.child_addresses), []
                wants_children = False
            visit.children_known = True
            admit()
            if not plan.rect_follows_parent:
                visit.details = await self._details(visit, known, basics, plan, parent, ahead)
                visit.basics = basics
            if labels is not None:
                visit.labelled_by = await _labelled_by(labels)
            if paging is not None:
                visit.pages = await pages_from(paging)
            visit.children_read = wants_children or basics.child_count == 0
        except AppGone:
            raise  # a partial tree of a dead app would look like a real one
        except (TargetGone, CallFailed):
            visit.basics = None  # vanished or broken mid-walk: left out with its subtree
        except CallTimeout as exc:
            if index == 0:
                raise  # not even the window answered: nothing to return
            stop.reason = stop.reason or f"{exc.message}; the rest was not read"
            visit.basics = None
            visits[visit.parent].truncated = True
        finally:
            discard([*pending, *(f for f in (labels, paging) if f is not None)])
            if ahead is not None:
                ahead.discard()
            visit.settled.set()
            if not visit.children_known:
                visit.child_addresses = []
                visit.children_known = True
                task = asyncio.current_task()
                if task is None or not task.cancelling():
                    admit()  # a cancelled walk (another visit failed) admits nothing more

    async def _basics(
        self,
        visit: _Visit,
        entry: _Cached | None,
        known: NodeRecord | None,
        plan: _Plan,
        hint: CellHint | None = None,
    ) -> Basics:
        """``hint``: what the element's table already said of it."""
        if entry is not None:
            return entry.basics
        if visit.unseen:
            if known is not None:
                return as_unseen(known.basics)
            role = plan.reuse.role(visit.at) if plan.reuse is not None else None
            return await read_unseen(self._bus, visit.at, role)
        if known is not None and not known.basics.unseen:
            return known.basics
        if hint is not None and hint.basics is not None:
            return hint.basics
        if hint is not None:
            laid = (hint.role, hint.interfaces)
            return await read_basics(self._bus, visit.at, laid, name=hint.name, states=hint.states)
        identity = plan.reuse.identity(visit.at) if plan.reuse is not None else None
        return await read_basics(self._bus, visit.at, identity)

    async def _details(
        self,
        visit: _Visit,
        known: NodeRecord | None,
        basics: Basics,
        plan: _Plan,
        parent: _Visit | None,
        ahead: Ahead | None = None,
    ) -> Details:
        shown = visit.shown = plan.wants_rect(basics, parent)
        if basics.unseen:
            return Details(None, None, 0, None)
        if parent is None and plan.frame is not None:
            # the root: its extents were read just before the walk
            if known is None:
                own = await self._read(visit.at, basics, plan, shown, rect=False)
                return replace(own, rect=plan.frame)
            return replace(known.details, rect=plan.frame)
        if known is not None and not known.basics.unseen:
            return await self._mirrored_details(visit, known, basics, plan, shown)
        laid = visit.hint.extents if visit.hint is not None else visit.laid
        acts = visit.hint.actions if visit.hint is not None else None
        if laid is not None and shown and "Component" in basics.interfaces:
            read = await self._read(visit.at, basics, plan, shown, rect=False, actions=acts)
            return replace(read, rect=extents_of([laid], plan.origin))
        return await self._read(visit.at, basics, plan, shown, ahead=ahead, actions=acts)

    async def _read(
        self,
        at: Address,
        basics: Basics,
        plan: _Plan,
        shown: bool,
        *,
        rect: bool = True,
        ahead: Ahead | None = None,
        actions: tuple[str, ...] | None = None,
    ) -> Details:
        """``actions``: the element's action names, already known (``CellHint.actions``)."""
        wants = plan.wants_actions(basics, shown)
        known = wants and actions is not None and "Action" in basics.interfaces
        read = await read_details(
            self._bus,
            at,
            basics,
            plan.origin,
            want_rect=shown and rect,
            want_actions=wants and not known,
            value_is_name=plan.value_is_name(basics),
            text_clamps=plan.text_clamps,
            ahead=ahead,
        )
        return replace(read, actions=actions) if known else read

    async def _mirrored_details(
        self, visit: _Visit, known: NodeRecord, basics: Basics, plan: _Plan, shown: bool
    ) -> Details:
        """The mirror's fields; extents (and names of newly shown actions) read only if needed."""
        rect = None
        if shown and "Component" in basics.interfaces:
            if visit.moved or not known.shown or plan.anchor is None:
                rect = await read_extents(self._bus, visit.at, plan.origin)
            else:
                rect = _shifted(known.details.rect, plan.anchor)
        actions = known.details.actions
        if actions is None and plan.wants_actions(basics, shown) and "Action" in basics.interfaces:
            actions = await read_actions(self._bus, visit.at)
        return replace(known.details, rect=rect, actions=actions)


def _prefetch(
    bus: AtspiBus, plan: _Plan, cache: Mapping[Address, _Cached], root: Address, max_depth: int
) -> None:
    """Ask at once for the children of every element below ``root`` whose cache entry
    does not list them all (GTK 3's menus, a window's popovers), and start reading the
    view of every container too big to list: the walk takes each answer when it
    reaches the element, instead of asking then. Asked as the walk reached them,
    the child lists were a chain of round trips every later element waited behind
    (children are admitted in breadth-first order), and a tree view's view, a
    dozen round trips of its own, started only once the walk got down to it."""
    below: list[tuple[Address, int, str | None]] = [(root, 0, None)]
    seen = {root}
    while below:
        at, depth, parent_role = below.pop()
        entry = cache.get(at)
        if entry is None or depth >= max_depth:
            continue
        basics = entry.basics
        if is_windowed(basics):
            plan.windows[at] = asyncio.ensure_future(
                read_window(
                    bus,
                    at,
                    basics,
                    showing_known=plan.showing_known,
                    parent_role=parent_role,
                    by_column=plan.alike_by_column(basics),
                )
            )
            continue  # its children are not listed
        if plan.closed_menu(basics, entry):
            continue
        if not entry.complete and basics.child_count != 0:
            plan.prefetched[at] = request_children(bus, at)
        fresh = [child for child in entry.children if child not in seen]
        seen.update(fresh)
        below.extend((child, depth + 1, basics.role) for child in fresh)


async def _labelled_by(asked: asyncio.Future[list[Any]]) -> tuple[str, ...]:
    """The elements the toolkit says label an element, from its ``GetRelationSet`` asked;
    none when it cannot say."""
    try:
        (relations,) = await asked
    except CallFailed:
        return ()
    return tuple(
        Address.of(target).native_id
        for kind, targets in relations
        if kind == LABELLED_BY
        for target in targets
    )


def _role_of(plan: _Plan, visit: _Visit | None) -> str | None:
    """A visit's role when the cache or its own read already told it (None: not yet)."""
    if visit is None:
        return None
    entry = plan.cache.get(visit.at) if plan.cache is not None else None
    if entry is not None:
        return entry.basics.role
    return visit.basics.role if visit.basics is not None else None


def _from_cache(visits: list[_Visit], index: int, plan: _Plan, max_depth: int) -> bool:
    """Settle a node the cache lists whole and that needs no call at once, without a task
    (a hidden panel, a label named after its text: over a third of a cold
    gtk3-widget-factory look's elements); False when it needs reads (:meth:`_visit`)."""
    visit = visits[index]
    entry = plan.cache.get(visit.at) if plan.cache is not None else None
    if entry is None or plan.rect_follows_parent or plan.cache_visit_needs_mirror(visit.at):
        return False
    parent = visits[visit.parent]
    basics = entry.basics
    if parent.cell_hints or is_windowed(basics) or plan.is_page(basics) or _uncounted(basics):
        return False
    if plan.may_be_closed(basics, entry):
        return False  # its first items are asked whether they show
    shown = plan.wants_rect(basics, parent)
    details = plan.uncalled(basics, shown)
    if details is None or plan.wants_labels(basics, shown):
        return False
    closed = plan.closed_menu(basics, entry)
    wants_children = _wants_children(visit, basics, max_depth, closed=closed)
    listed = _listed_children(entry, None, wants_children)
    if listed is None:
        return False  # its child list is asked (or was, by ``_prefetch``)
    visit.basics, visit.details, visit.shown = basics, details, shown
    visit.child_addresses = listed
    visit.children_known = True
    visit.children_read = wants_children or basics.child_count == 0
    visit.settled.set()
    return True


PROBED_ITEMS = 3
"""Items of a shown menu whose states tell whether it is open: LibreOffice lists hidden
items too (an inapplicable "OLE Object" is neither visible nor showing)."""


async def _closed_items(bus: AtspiBus, items: list[Address]) -> bool:
    """Whether none of a menu's first items is showing: the menu is closed."""
    asked = [bus.request(a.bus, a.path, ACCESSIBLE, "GetState") for a in items[:PROBED_ITEMS]]
    found = await answers(asked)
    return bool(found) and not any(v is not None and "showing" in state_names(v) for v in found)


def _unread_text(visit: _Visit) -> bool:
    """A page read before its text loaded (:func:`_unloaded`), during this walk."""
    basics, details = visit.basics, visit.details
    return (
        basics is not None
        and details is not None
        and basics.role in COUNT_FIRST_ROLES
        and not details.value
    )


def _unloaded(known: NodeRecord) -> bool:
    """A page whose text was not loaded when it was read (``reader.COUNT_FIRST_ROLES``):
    read again, as Evince sends no event when the text arrives."""
    return known.basics.role in COUNT_FIRST_ROLES and not known.details.value


def _in_sheet(parent: _Visit | None) -> bool:
    """Whether the element is a spreadsheet's shown cell: read on every walk, never taken
    from the mirror. LibreOffice sends no event about a cell object a look keeps
    (``kept_cells``) when the cell's text or focus changes."""
    return parent is not None and parent.window is not None and parent.window.cells


def _listed_children(
    entry: _Cached | None, known: NodeRecord | None, wanted: bool
) -> list[Address] | None:
    """The children the cache or the mirror already lists; None when they must be asked."""
    if not wanted:
        return []
    if entry is not None and entry.complete:
        return list(entry.children)
    if known is not None and known.children is not None:
        return list(known.children)
    return None


def _shifted(rect: Rect | None, by: tuple[int, int]) -> Rect | None:
    return None if rect is None else Rect(rect.x + by[0], rect.y + by[1], rect.w, rect.h)


def _source(source: str, reuse: Reuse | None) -> str:
    if reuse is None:
        return source
    return f"mirror+{source}" if reuse.trusted else f"{source}+known-roles"


def _records(visits: list[_Visit], anchor: tuple[int, int] | None) -> dict[Address, NodeRecord]:
    """What the mirror keeps: rects relative to the root's corner (none without one)."""
    back = (-anchor[0], -anchor[1]) if anchor is not None else None
    return {
        v.at: v.record or _record(v, back) for v in visits if v.basics and v.details is not None
    }


def _record(v: _Visit, back: tuple[int, int] | None) -> NodeRecord:
    assert v.basics is not None and v.details is not None
    d = v.details
    rect = _shifted(d.rect, back) if back is not None else None
    children = tuple(v.child_addresses) if v.children_read else None
    details = Details(rect, d.value, d.value_length, d.actions)
    return NodeRecord(v.basics, details, children, v.shown)


def _with_showing(states: frozenset[str], rect: Rect | None, toolkit: str) -> frozenset[str]:
    """GTK 4 never sets ``showing``; a visible element with extents is on screen.

    Without this every GTK 4 element would read as hidden to the runtime.
    """
    if not toolkit.lower().startswith("gtk 4") or "showing" in states:
        return states
    if "visible" in states and rect is not None and not rect.empty:
        return states | {"showing"}
    return states


SEEN_STATES = frozenset({"showing", "visible", "offscreen"})
"""States that say whether an element can be seen (``offscreen``: listed unread)."""


def with_hidden(states: frozenset[str]) -> frozenset[str]:
    """``states`` with ``hidden`` added when the toolkit says the element is neither
    visible nor showing: a widget that exists but is not displayed at all (FeatherPad's
    closed find/replace dock, KCalc's science buttons in simple mode), unlike one that is
    ``visible`` but scrolled away or on another page. An element whose states were not
    read (none at all) is not judged."""
    return states | {"hidden"} if states and not states & SEEN_STATES else states


def element_node(
    at: Address,
    b: Basics,
    d: Details,
    toolkit: str,
    *,
    parent_selects: bool,
    in_scroll_area: bool,
    truncated: bool = False,
    labelled_by: tuple[str, ...] = (),
    window: Window | None = None,
    pages: Pages | None = None,
    unread: int = 0,
    children: tuple[RawNode, ...] = (),
    judge_seen: bool = False,
) -> RawNode:
    """One element as the seam carries it, from what was read of it (a password's text never).

    ``judge_seen``: a walk's element below the root says ``hidden`` when it cannot be seen
    (:func:`with_hidden`); cells read on demand are rows a person can scroll to, and a
    root is the window itself.
    """
    states = _with_showing(b.states, d.rect, toolkit)
    return RawNode(
        native_id=at.native_id,
        raw_role=b.role,
        name=clean_name(b.name, toolkit),
        description=clean_text(b.description),
        value=None if b.secure else d.value,
        value_length=0 if b.secure else d.value_length,
        states=with_hidden(states) if judge_seen else states,
        interfaces=b.interfaces,
        actions=d.actions or (),
        caps=derive_caps(
            b.role,
            b.interfaces,
            d.actions,
            b.states,
            parent_selects=parent_selects,
            in_scroll_area=in_scroll_area,
        ),
        rect=d.rect,
        secure=b.secure,
        truncated=truncated,
        labelled_by=labelled_by,
        window=window,
        pages=pages,
        unread=unread,
        children=children,
    )


def _assemble(visits: list[_Visit], toolkit: str) -> tuple[RawNode, int]:
    """RawNodes bottom-up and their count; failed nodes and closed Gecko popups are
    dropped with their subtrees."""
    built: dict[int, RawNode] = {}
    sizes: dict[int, int] = {}
    scroll_area = [False] * len(visits)
    for i, v in enumerate(visits):
        if v.basics is not None:
            inherited = scroll_area[v.parent] if v.parent >= 0 else False
            scroll_area[i] = inherited or v.basics.role in SCROLL_ROLES
    for i in range(len(visits) - 1, -1, -1):
        v = visits[i]
        if v.basics is None or v.details is None:
            continue
        if i > 0 and closed_popup(toolkit, v.basics.states):
            continue  # a closed Firefox popup is listed once it opens
        parent = visits[v.parent].basics if v.parent >= 0 else None
        b, d = v.basics, v.details
        kept = [c for c in v.children if c in built]
        sizes[i] = 1 + sum(sizes[c] for c in kept)
        built[i] = element_node(
            v.at,
            b,
            d,
            toolkit,
            parent_selects=parent is not None and "Selection" in parent.interfaces,
            in_scroll_area=v.parent >= 0 and scroll_area[v.parent],
            truncated=v.truncated,
            labelled_by=v.labelled_by,
            window=v.window,
            pages=v.pages,
            unread=v.unread,
            children=tuple(built.pop(c) for c in kept),
            judge_seen=i > 0,
        )
    return built[0], sizes[0]
