"""search_ui, expand_ui and waits reaching what an observation left unread: the rows of
windowed containers, subtrees that were not shown (hidden pages, ``Node.unread``), and a
document's pages off screen.

A hidden subtree is read whole on demand (``Backend.read_below``, bounded by
the budget left): expand_ui reads the one it is asked about, a search that
finds no exact match among what was read reads them in outline order before
any rows, until one holds an exact match.

A container too big to list was read as a window (its size and the rows on
screen). A text search that finds no exact match among what was read asks
the backend for the container's other rows, a chunk at a time, bounded by
:data:`BUDGET_S` and :data:`MAX_CELLS`: first a page at the end (where
"the last", "the newest" entries of lists and logs are), then down from the
shown rows, then up to them (a spreadsheet's end is skipped: its million rows
are mostly empty). Matching cells join a successor state (stored
states stay immutable), which also remembers the rows searched, so searching
it again continues where this one stopped. What was not searched is said,
with how to reach it. Nothing is scrolled or focused.

A spreadsheet is not scanned: it names each cell after its address (``Z200``,
also a cell holding text), so the only cell whose name a text can match is the
one it names, read first and alone (:class:`SheetCell`). Scanning compared
addresses by prefix and substring (``A`` took every cell of column A) and made
LibreOffice a cell object for each cell asked for (``kept_cells``).

A document whose application lists only what is on screen (``Node.pages``) is searched,
when nothing else matched, by scrolling its view down a screen at a time, then from the
end up (``Backend.scan_pages``: the caret and the text untouched) within
:data:`PAGES_BUDGET_S`, until a paragraph matches (a fresh look then shows it), both
ends, or the time is up (:class:`PagesScanned` says which). Unlike the rest, this moves what
the app shows: search_ui, wait_for and act_ui's ``expect`` say so in their text (a
``require`` that held shows it in the act's diff).

A wait (``wait_for``, ``act_ui``'s ``expect`` and ``require``) whose condition a
look does not show met reads the same way, within the wait's time left, until
the condition holds (:class:`ConditionReach`); what it read joins the state the
wait saves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from actui.backends.base import (
    Backend,
    JsonObject,
    Pages,
    PageScan,
    RawNode,
    RootInfo,
    RowQuery,
    Window,
    cell_address,
    cell_name,
)
from actui.deadlines import Deadline
from actui.errors import CallTimeout
from actui.outline.conditions import UiCondition, anchor_node, evaluate, text_test
from actui.outline.diff import stabilize
from actui.outline.documents import PartShown, scrolled_for
from actui.outline.model import Node, Outline, grafted, opened, ref_number
from actui.outline.search import rank_text
from actui.runtime.store import Intervals, State, StateMeta, new_state_id


class ReadNote(Protocol):
    """What a read on demand says it covered (``actui.runtime.reaching.Coverage`` or ``Unopened``):
    a result carries these, and turns each into its note and its wire form."""

    def note(self, state_id: str) -> str: ...

    def json(self) -> JsonObject: ...


BUDGET_S = 8.0
"""Seconds one search spends reading unread rows at most (GTK 3: about 2,600 cells a
second), well inside a tool call's timeout."""
MAX_CELLS = 2_048
"""Cells one search reads at most: toolkits keep each one they were asked for (GTK 3
about 0.8 KB a cell; LibreOffice about 7.4 KB, 57 MB for 7,680 cells), so a search costs
an app at most a few MB; searching again continues."""
PAGES_BUDGET_S = 15.0
"""Seconds one search spends scrolling documents at most: Writer's 193-page document
took about 7 s at load 1 (452 screens), and 8 s reached only part of it at load 5–10."""
END_ROWS = 256
"""Rows at the end of a container read first."""
CHUNK_CELLS = 512
"""Cells asked for per backend call: the budget is checked between calls (LibreOffice
took about 6 ms a cell for cells off screen)."""
MAX_COLUMNS = 16
"""Columns searched at most: the shown ones, from the first."""
MATCH_LIMIT = 32
CALL_GRACE_S = 3.0
"""Past a hidden subtree's budget, time for the calls in flight to finish (each is bounded
by the bus's call timeout)."""
READ_AFTER_S = 0.5
"""How far into a wait its first read on demand comes (:class:`ConditionReach`)."""
READ_EVERY_S = 1.0
"""How far apart a wait's reads on demand are."""
Position = tuple[int, int]
"""A cell's (row, column), 0-based."""


def merged(intervals: Intervals, added: tuple[int, int]) -> Intervals:
    ordered = sorted([*intervals, added])
    out: list[tuple[int, int]] = []
    for low, high in ordered:
        if out and low <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], high))
        else:
            out.append((low, high))
    return tuple(out)


def gaps(intervals: Intervals, low: int, high: int) -> Iterator[tuple[int, int]]:
    """The parts of ``low..high`` no interval covers, in order."""
    at = low
    for start, end in intervals:
        if end < at:
            continue
        if start > high:
            break
        if start > at:
            yield at, min(start - 1, high)
        at = max(at, end + 1)
    if at <= high:
        yield at, high


def scan_order(
    total: int, window: Window, searched: Intervals, chunk_rows: int = CHUNK_CELLS
) -> Iterator[range]:
    """Chunks of unsearched rows: the end first, then below the shown rows, then above.

    A spreadsheet's end is not where its data is (a sheet has a million rows, mostly
    empty): it is searched down from the shown rows instead.
    """
    last = total - 1
    below = window.last_row + 1 if window.shown else 0
    above = window.first_row - 1 if window.shown else -1
    tail = (max(0, total - END_ROWS), last) if not window.cells else (total, last)
    for low, high in (tail, (below, last), (0, above)):
        for start, end in gaps(searched, low, high):
            for chunk in range(start, end + 1, chunk_rows):
                yield range(chunk, min(end, chunk + chunk_rows - 1) + 1)
        searched = merged(searched, (low, high)) if low <= high else searched


@dataclass(frozen=True)
class Coverage:
    """How much of one container a search has read."""

    node: Node
    total: int
    searched: Intervals
    slow: bool = False
    """The application stopped answering in time, so the search stopped there."""
    columns: range = range(1)
    """The columns searched (0-based), of ``width``."""
    width: int = 1

    @property
    def other_columns(self) -> str:
        """`` Only columns 1–15 of 16,384 were searched.`` when some were not; else ''."""
        if self.columns.start == 0 and self.columns.stop >= self.width:
            return ""
        return (
            f" Only columns {self.columns.start + 1:,}–{self.columns.stop:,} of "
            f"{self.width:,} were searched."
        )

    @property
    def missing(self) -> list[tuple[int, int]]:
        return list(gaps(self.searched, 0, self.total - 1))

    @property
    def searched_rows(self) -> int:
        return sum(high - low + 1 for low, high in self.searched)

    def note(self, state_id: str) -> str:
        what = f"{self.node.ref} {self.node.role}"
        rows = self.searched_rows
        if not self.missing:
            return f"{what}: all {self.total:,} rows searched.{self.other_columns}"
        shown = ", ".join(f"{low + 1:,}–{high + 1:,}" for low, high in self.missing[:3])
        more = ", …" if len(self.missing) > 3 else ""
        why = " (the application answered too slowly to go on)" if self.slow else ""
        return (
            f"{what}: searched {rows:,} of {self.total:,} rows{why}; rows {shown}{more} not "
            f"searched. search_ui again on stateId {state_id} continues, or scroll "
            f"{self.node.ref} there, or search for a longer text.{self.other_columns}"
        )

    def json(self) -> JsonObject:
        return {
            "ref": self.node.ref,
            "rows": self.total,
            "searchedRows": self.searched_rows,
            "notSearched": [[low + 1, high + 1] for low, high in self.missing],
            "stoppedSlow": self.slow,
            "searchedColumns": [self.columns.start + 1, self.columns.stop],
        }


def _windows(outline: Outline) -> list[tuple[Node, Window]]:
    return [(n, n.window) for n in outline if n.window is not None and n.wire]


def _total(window: Window) -> int:
    return window.rows if window.rows is not None else window.count


async def scan_documents(
    backend: Backend,
    root: RootInfo,
    outline: Outline,
    parts: Iterable[PartShown],
    accepts: Callable[[str], bool],
    budget_s: float = PAGES_BUDGET_S,
) -> list[PagesScanned]:
    """The pages off screen of documents that expose only what is on screen
    (``parts`` of ``outline``), read for text ``accepts`` within ``budget_s`` (at most
    :data:`PAGES_BUDGET_S`) until one matches; those whose backend cannot bring their
    pages on screen are left out."""
    deadline = Deadline(min(budget_s, PAGES_BUDGET_S))
    scanned: list[PagesScanned] = []
    for part in parts:
        wire = outline.nodes[part.ref].wire
        if wire is None or deadline.expired:
            continue
        scan = await backend.scan_pages(root, wire, accepts, deadline.left())
        if scan is not None:
            scanned.append(PagesScanned(part.ref, part.role, part.pages, scan))
            if scan.matched:
                break
    return scanned


def _searched(state: State) -> dict[str, Intervals]:
    return dict(state.meta.searched_rows)


def _hidden(outline: Outline) -> list[Node]:
    return [n for n in outline if n.unread and n.wire]


@dataclass(frozen=True)
class Unopened:
    """The hidden subtrees a search read, and those it had no time left for, or did not
    need once it met an exact match."""

    read: int
    left: tuple[Node, ...]
    matched: bool = False
    """The search stopped at an exact match: searching again finds it and reads no more."""

    def note(self, state_id: str) -> str:
        text = f"read {self.read:,} part(s) that were not shown"
        if not self.left:
            return text + "."
        refs = ", ".join(n.ref for n in self.left[:5]) + (", …" if len(self.left) > 5 else "")
        if self.matched:
            done = f"{text}, then met an exact match" if self.read else "met an exact match"
            return (
                f"{done}; {len(self.left):,} part(s) not shown were not searched ({refs}): "
                "expand_ui one of them to look inside."
            )
        return (
            f"{text}; {len(self.left):,} not read ({refs}): search_ui again on stateId "
            f"{state_id} continues, or expand_ui one of them."
        )

    def json(self) -> JsonObject:
        return {
            "hiddenRead": self.read,
            "hiddenNotRead": [n.ref for n in self.left],
            "stoppedAtMatch": self.matched,
        }


@dataclass(frozen=True)
class SheetCell:
    """What a search read of a spreadsheet's unread cells: the one cell its text names."""

    node: Node
    address: str | None
    """The cell the text names (``Z200``); None when it names none."""
    read: bool = False
    slow: bool = False
    """The application did not give the cell in time."""

    def note(self, state_id: str) -> str:
        what = f"{self.node.ref} {self.node.role}"
        if self.address is None:
            return (
                f"{what}: its unread cells were not searched (a spreadsheet names each cell "
                "after its address; their contents are not searched): search_ui for a cell's "
                f"address (e.g. Z200) reads that cell, or scroll {self.node.ref} there."
            )
        if self.read:
            return f"{what}: read cell {self.address}, which the text names."
        if self.slow:
            return (
                f"{what}: cell {self.address} was not read (the application answered too "
                f"slowly): search_ui again on stateId {state_id}, or scroll {self.node.ref} there."
            )
        return f"{what}: has no cell {self.address}."

    def json(self) -> JsonObject:
        return {
            "ref": self.node.ref,
            "cell": self.address,
            "cellRead": self.read,
            "stoppedSlow": self.slow,
        }


@dataclass(frozen=True)
class PagesScanned:
    """What a search read of a document's pages off screen (``Backend.scan_pages``): its
    view scrolled down a screen at a time, then from the end up, the caret and the text
    untouched, until a paragraph matched, both ends were reached, or the time ran out."""

    ref: str
    role: str
    pages: Pages
    scan: PageScan

    @property
    def page(self) -> int:
        """About which page the view stopped at (the scroll bar's place among the pages)."""
        return min(self.pages.total, 1 + int(self.scan.place * self.pages.total))

    def note(self, state_id: str) -> str:
        scan, what = self.scan, f"{self.ref} {self.role}"
        moved = f"{_moved(scan)}, the caret left where it was"
        where = f"about page {self.page:,} of {self.pages.total:,}"
        if scan.matched:
            return (
                f"{what}: {moved}, to {where}, where {scan.matched:,} paragraph(s) match; "
                f"stateId {state_id} is a fresh look at that page."
            )
        if scan.at_end and scan.at_top:
            return f"{what}: {moved}: no paragraph from its top to its end matches."
        if scan.at_end:
            late = ", before the time ran out" if scan.slow else ""
            return (
                f"{what}: {moved}, to {where}{late}: no paragraph from there to its end "
                "matches. Pages above it were not searched (ctrl+Home brings the first on "
                "screen)."
            )
        return (
            f"{what}: {moved}, to {where}, before the time ran out; search_ui again on "
            f"stateId {state_id} goes on from there."
        )

    def json(self) -> JsonObject:
        return {
            "ref": self.ref,
            "screensScrolled": self.scan.screens,
            "screensScrolledUp": self.scan.screens_up,
            "matched": self.scan.matched,
            "reachedEnd": self.scan.at_end,
            "reachedTop": self.scan.at_top,
            "stoppedSlow": self.scan.slow,
            "aboutPage": self.page,
        }


def _moved(scan: PageScan) -> str:
    """How the view went: down, up from the end, or both."""
    if not scan.screens_up:
        return f"scrolled its view down {scan.screens:,} screen(s)"
    up = f"up {scan.screens_up:,} screen(s)"
    if not scan.screens:
        return f"scrolled its view {up} from its end"
    return f"scrolled its view down {scan.screens:,} screen(s) to its end, then {up}"


Reached = Coverage | Unopened | SheetCell | PagesScanned


def has_unread(state: State) -> bool:
    """Whether the state left a subtree unread, or a windowed container has rows no search
    has read."""
    if _hidden(state.outline):
        return True
    searched = _searched(state)
    for node, window in _windows(state.outline):
        seen = searched.get(str(node.wire), _shown(window))
        if _total(window) > 0 and list(gaps(seen, 0, _total(window) - 1)):
            return True
    return False


def _shown(window: Window) -> Intervals:
    return ((window.first_row, window.last_row),) if window.shown else ()


def accepting(text: str) -> Callable[[str], bool]:
    """A cell is kept when ``text`` matches it as search ranks it, short of fuzzy."""

    def accepts(label: str) -> bool:
        ranked = rank_text(text, (label,))
        return ranked is not None and ranked[0] != "fuzzy"

    return accepts


def named_cell(text: str) -> Position | None:
    """The cell ``text`` names as a spreadsheet names its cells (``Z200``, any case), or None."""
    return cell_address(text.strip().upper())


def _exact(text: str, names: Iterable[str]) -> bool:
    return any(rank_text(text, (name,)) == ("exact", 1.0) for name in names)


async def _open(
    backend: Backend, root: RootInfo, outline: Outline, node: Node, deadline: Deadline, scale: float
) -> Outline:
    """``outline`` with what ``node`` held unread read in, within ``deadline``."""
    assert node.wire is not None
    budget = max(0.1, deadline.left())
    try:
        async with asyncio.timeout(budget + CALL_GRACE_S):
            below = await backend.read_below(root, node.wire, budget)
    except TimeoutError:
        raise CallTimeout(
            f"{root.app_name} did not finish listing what {node.ref} holds in time; "
            "show it (select its tab or page) and observe_ui again."
        ) from None
    return opened(outline, node.ref, below, root.frame, scale)


async def read_below(backend: Backend, state: State, ref: str, epoch: int, scale: float) -> State:
    """A successor of ``state`` with what ``ref`` held unread read in (expand_ui)."""
    deadline = Deadline(BUDGET_S)
    outline = await _open(backend, state.root, state.outline, state.node(ref), deadline, scale)
    return _successor(state, outline, epoch, state.meta)


@dataclass(frozen=True)
class Goal:
    """What one read on demand looks for: the cells of unread rows it keeps (by their
    text; rows are not read without one), and when it has found enough to stop."""

    accepts: Callable[[str], bool] | None
    met: Callable[[Outline, int], bool]
    """Given the outline read so far and the highest ref before the last read."""
    within: Node | None = None
    """Read only what lies inside this element (a condition's anchor)."""
    max_cells: int = MAX_CELLS
    cell: Position | None = None
    """The cell a spreadsheet is asked for (the text names it); no other cell of a
    spreadsheet is read."""


@dataclass(frozen=True)
class Reach:
    """An outline with more read in, the rows searched per container, and what was read."""

    outline: Outline
    searched: dict[str, Intervals]
    reached: tuple[Reached, ...]
    cells: int


def _inside(outline: Outline, within: Node | None) -> Callable[[Node], bool]:
    if within is None:
        return lambda node: True
    refs = {n.ref for n in outline.subtree(within)}
    return lambda node: node.ref in refs


async def _asked(
    backend: Backend, root: RootInfo, query: RowQuery, deadline: Deadline
) -> list[RawNode] | None:
    """The cells the backend keeps of ``query``; None when the application did not answer
    before ``deadline``."""
    try:
        async with asyncio.timeout(max(0.1, deadline.left())):
            return await backend.find_in_rows(root, query)
    except (CallTimeout, TimeoutError):
        return None


async def _named(
    backend: Backend,
    root: RootInfo,
    node: Node,
    window: Window,
    cell: Position | None,
    deadline: Deadline,
) -> tuple[list[RawNode] | None, SheetCell]:
    """The spreadsheet's cell at ``cell`` (read alone, kept only when its name is its
    address), and what the search says of it; None when it was not asked for."""
    address = None if cell is None else cell_name(*cell)
    if cell is None or cell[0] >= (window.rows or 0) or cell[1] >= (window.columns or 0):
        return None, SheetCell(node, address)
    if deadline.expired:
        return None, SheetCell(node, address, slow=True)
    row, column = cell
    query = RowQuery(
        str(node.wire), range(row, row + 1), range(column, column + 1),
        lambda name: name.strip() == address, 1,
    )  # fmt: skip
    found = await _asked(backend, root, query, deadline)
    return found, SheetCell(node, address, read=bool(found), slow=found is None)


async def reach(
    backend: Backend,
    root: RootInfo,
    outline: Outline,
    searched: Mapping[str, Intervals],
    goal: Goal,
    deadline: Deadline,
    scale: float,
) -> Reach:
    """``outline`` with what it left unread read in until ``goal`` is met or ``deadline``
    passes: the cell of each spreadsheet the goal names, hidden subtrees in
    outline order, then the cells of other containers' unread rows."""
    seen_rows = dict(searched)
    inside = _inside(outline, goal.within)
    cells = 0
    done = slow = False
    coverage: list[Reached] = []
    accepts = goal.accepts
    windows = [(n, w) for n, w in _windows(outline) if inside(n)] if accepts else []
    for node, window in [(n, w) for n, w in windows if w.cells]:
        if done or cells >= goal.max_cells:
            break
        found, said = await _named(backend, root, node, window, goal.cell, deadline)
        coverage.append(said)
        slow = slow or said.slow
        if found is not None:
            cells += 1
            before = outline.max_ref
            outline = grafted(outline, node.ref, tuple(found), root.frame, scale)
            done = goal.met(outline, before)
    hidden = [n for n in _hidden(outline) if inside(n)]
    for i, node in enumerate(hidden):
        if done or deadline.expired:
            coverage.append(Unopened(i, tuple(hidden[i:]), matched=done))
            break
        before = outline.max_ref
        try:
            outline = await _open(backend, root, outline, node, deadline, scale)
        except CallTimeout:
            coverage.append(Unopened(i, tuple(hidden[i:])))
            slow = True
            break
        done = goal.met(outline, before)
    else:
        if hidden:
            coverage.append(Unopened(len(hidden), ()))
    for node, window in [(n, w) for n, w in windows if not w.cells]:
        assert accepts is not None
        total = _total(window)
        seen = seen_rows.get(str(node.wire), _shown(window))
        first = max(0, window.first_column) if window.rows is not None else 0
        width = (window.columns or 1) - first if window.rows is not None else 1
        columns = range(first, first + max(1, min(MAX_COLUMNS, width)))
        for rows in scan_order(total, window, seen, max(1, CHUNK_CELLS // len(columns))):
            rows = rows[: max(0, goal.max_cells - cells) // len(columns)]
            if done or slow or deadline.expired or not rows:
                break
            query = RowQuery(str(node.wire), rows, columns, accepts, MATCH_LIMIT)
            found = await _asked(backend, root, query, deadline)
            if found is None:
                slow = True  # what was searched so far still counts; the rest is said
                break
            cells += len(rows) * len(columns)
            seen = merged(seen, (rows.start, rows.stop - 1))
            before = outline.max_ref
            outline = grafted(outline, node.ref, tuple(found), root.frame, scale)
            done = goal.met(outline, before)
        seen_rows[str(node.wire)] = seen
        of = window.columns if window.rows is not None and window.columns else 1
        coverage.append(Coverage(node, total, seen, slow, columns, of))
    return Reach(outline, seen_rows, tuple(coverage), cells)


def _found_exact(text: str, passes: Callable[[Node], bool]) -> Callable[[Outline, int], bool]:
    """Met once an element read after ``before`` is named ``text`` exactly and ``passes``
    the search's filters (an exact "Options" that is no menu item does not end a search for
    menu items: it did, and the search then found none)."""

    def met(outline: Outline, before: int) -> bool:
        fresh = (n for n in outline if ref_number(n.ref) > before and passes(n))
        return _exact(text, (n.name for n in fresh))

    return met


async def search_unread(
    backend: Backend,
    state: State,
    text: str,
    epoch: int,
    scale: float,
    passes: Callable[[Node], bool] = lambda _: True,
) -> tuple[State, list[Reached]]:
    """A successor of ``state`` holding what was unread and matches ``text``: hidden
    subtrees first, then the cells of unread rows, until one that ``passes`` the search's
    filters holds an exact match."""
    deadline = Deadline(BUDGET_S)
    goal = Goal(accepting(text), _found_exact(text, passes), cell=named_cell(text))
    got = await reach(backend, state.root, state.outline, _searched(state), goal, deadline, scale)
    meta = replace(state.meta, searched_rows=got.searched)
    return _successor(state, got.outline, epoch, meta), list(got.reached)


def _successor(state: State, outline: Outline, epoch: int, meta: StateMeta) -> State:
    """``state`` with more read into its outline (stored states stay immutable)."""
    return State(
        state_id=new_state_id(),
        resource_key=state.resource_key,
        epoch=epoch,
        root_ref=state.root_ref,
        root=state.root,
        outline=outline,
        captured_at=state.captured_at,
        base_state_id=state.state_id,
        image_size=state.image_size,
        meta=meta,
    )


class ConditionReach:
    """What one wait reads on demand when a look does not show its condition met.

    Only ``until: present`` reads more: an element that is not shown is absent for the
    agent (proving it absent everywhere would read everything), and a condition on one
    element (``ref``) is decided by that element, which was read. Inside the anchor (if
    any), hidden subtrees are read again at every read (what a wait waits for may
    appear there), rows of windowed containers once per wait: later reads go on where
    earlier ones stopped, at most :data:`MAX_CELLS` cells in all, and the shown rows are
    in every look anyway; of a spreadsheet, only the cell the text names (:class:`SheetCell`).
    What was read joins the outline the wait returns, with refs inherited from ``base``.

    Most waits follow an action and are met by what is shown within a few hundred ms
    (GTK 4's events lag about 250 ms behind an action, docs/design-notes.md §6), while
    reading a hidden page costs the application about as long again; so the first read
    is :data:`READ_AFTER_S` into the wait (half the timeout when that is shorter), the
    next ones :data:`READ_EVERY_S` apart, and the checks between them look at what is
    shown only.
    """

    def __init__(self, backend: Backend, cond: UiCondition, base: Outline, scale: float) -> None:
        self._backend = backend
        self._cond = cond
        self._base = base
        self._scale = scale
        self._searched: dict[str, Intervals] = {}
        self._cells = 0
        self._idle = False
        self._next_read = Deadline(min(READ_AFTER_S, cond.timeout_ms / 2000))

    def wanted(self, outline: Outline) -> bool:
        """Whether reading on demand could meet the condition in ``outline``."""
        cond = self._cond
        if cond.until != "present" or cond.exact:
            return False
        within = None if cond.anchor is None else anchor_node(cond, outline)
        if cond.anchor is not None and within is None:
            return False
        inside = _inside(outline, within)
        rows = text_test(cond) is not None and self._cells < MAX_CELLS
        cell = None if cond.text is None else named_cell(cond.text)
        readable = [n for n, w in _windows(outline) if cell is not None or not w.cells]
        pages = cond.text is not None and bool(scrolled_for(cond, outline))
        hidden = any(inside(n) for n in _hidden(outline))
        return hidden or pages or (rows and any(map(inside, readable)))

    def due_in(self) -> float | None:
        return None if self._idle else self._next_read.left()

    async def __call__(
        self, root: RootInfo, outline: Outline, budget_s: float
    ) -> tuple[Outline, tuple[Reached, ...]]:
        """``outline`` with what it left unread read in when a read is due, within
        ``budget_s`` (at most :data:`BUDGET_S`), until the condition is present."""
        self._idle = not self.wanted(outline)
        if self._idle or not self._next_read.expired:
            return outline, ()
        cond = self._cond

        def met(grown: Outline, _before: int) -> bool:
            return evaluate(cond, grown).present

        within = None if cond.anchor is None else anchor_node(cond, outline)
        cell = None if cond.text is None else named_cell(cond.text)
        goal = Goal(text_test(cond), met, within, MAX_CELLS - self._cells, cell)
        deadline = Deadline(min(max(0.0, budget_s), BUDGET_S))
        pages = Deadline(min(max(0.0, budget_s) / 2, PAGES_BUDGET_S))
        got = await reach(self._backend, root, outline, self._searched, goal, deadline, self._scale)
        self._searched, self._cells = got.searched, self._cells + got.cells
        reached = got.reached + await self._scanned(root, got.outline, pages)
        self._next_read = Deadline(READ_EVERY_S)
        if got.outline is outline:
            return outline, reached
        return stabilize(self._base, got.outline), reached

    async def _scanned(
        self, root: RootInfo, outline: Outline, deadline: Deadline
    ) -> tuple[PagesScanned, ...]:
        """The pages below the screen of the partly shown document the condition is scoped
        to (``scrolled_for``), while it is not met (``scan_documents``): a look after it shows the
        page the view stopped at. ``deadline`` is half the wait's time left at most, so
        looks still come after it (the text may appear elsewhere meanwhile, a status bar's
        "Saved"), and a later read goes on where this one stopped."""
        accepts = text_test(self._cond)
        if self._cond.text is None or accepts is None or evaluate(self._cond, outline).present:
            return ()
        parts = scrolled_for(self._cond, outline)
        if not parts or deadline.expired:
            return ()
        scanned = await scan_documents(
            self._backend, root, outline, parts, accepts, deadline.left()
        )
        return tuple(scanned)
