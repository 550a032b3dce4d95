"""The backend seam: what every platform backend provides, in plain data.

The cut exists so that the runtime (states, refs, folding, diffs, conditions,
MCP) never learns how a platform is reached, and a platform backend never
learns about refs, folding or the agent. Everything that crosses it is a frozen
dataclass of plain values. Adding macOS or Windows means writing one more
``Backend``; nothing above this module changes.

A backend must bound every call it makes to an application with a timeout and
raise :class:`actui.errors.ActuiError` subclasses (never platform exceptions)
when something goes wrong. A step it cannot send under the request's policy is
not an error but an answer (:class:`Refused`): whether to send it again in the
foreground is decided above the seam, in ``actui.tools.actions``, alone.
"""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from actui.refusals import Blocked, DeliveryPolicy, Refused

Outcome = Literal["worked", "didnt", "unknown"]
JsonObject = dict[str, object]
"""A JSON object as it crosses a public signature (schemas, wire bodies): the one alias."""
POLL_INTERVAL_S = 0.15
"""The polling fallback's interval, for toolkits that emit no usable events."""
TEXT_CAP = 4096
"""Characters of a node's name or description a backend keeps: apps control both, unbounded."""

CAPABILITIES = (
    "press",
    "toggle",
    "setText",
    "typeText",
    "setValue",
    "increment",
    "decrement",
    "select",
    "focus",
    "scroll",
    "expand",
)

RootKind = Literal["window", "dialog", "menu", "popover", "tooltip", "browser_page"]
Accessibility = Literal["full", "none", "not_answering"]
"""How far a root's tree can be read: ``full``; ``none``, a window no accessibility
tree describes (pixels and coordinates only); ``not_answering``, its application
did not answer in time (the root is its last listing, or its bare window)."""
Reach = Literal["full", "none"]
Geometry = Literal["exact", "approximate", "none"]
"""Whether a root's coordinates are where it is on the screen: ``exact``; ``approximate``,
placed by an estimate (a window that draws its own frame, whose shadow inset could not be
measured, or a surface the compositor does not list); ``none``, not placed at all."""


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in screen pixels (or image pixels once mapped)."""

    x: int
    y: int
    w: int
    h: int

    @property
    def center(self) -> tuple[int, int]:
        return (self.x + self.w // 2, self.y + self.h // 2)

    @property
    def empty(self) -> bool:
        return self.w <= 0 or self.h <= 0


@dataclass(frozen=True)
class RootCapabilities:
    """What the display lets actui do to a root beyond its accessibility tree.

    ``input``: pointer and keyboard input can reach it; ``capture``: its pixels can be
    read (``visual`` mode, screenshots); ``geometry``: its coordinates are on the screen
    (see :data:`Geometry`). A compositor that offers none of these to an ordinary client
    (GNOME Shell, KWin) leaves only the semantic path, and a step needing one is refused
    before anything is sent, naming it.
    """

    input: Reach = "full"
    capture: Reach = "full"
    geometry: Geometry = "exact"

    def missing(self) -> tuple[str, ...]:
        """``input: none``-style names of what this root cannot have, in a fixed order."""
        facts = (("input", self.input), ("capture", self.capture), ("geometry", self.geometry))
        return tuple(f"{name}: none" for name, value in facts if value == "none")


SEMANTIC_ONLY = RootCapabilities("none", "none", "none")
"""A root only its accessibility tree reaches (no display, or a compositor that lets no
ordinary client list windows, inject input or read the screen)."""


@dataclass(frozen=True)
class RootInfo:
    """One top-level surface: a window, dialog, transient or browser page.

    ``native_id`` is the backend's stable identity for the surface (for AT-SPI
    the bus name and object path); the runtime keys its ``@r`` registry on it.
    """

    native_id: str
    pid: int
    app_name: str
    title: str
    kind: RootKind
    raw_role: str
    frame: Rect | None = None
    window_id: int | None = None
    is_focused: bool = False
    is_minimized: bool = False
    is_modal: bool = False
    is_onscreen: bool = True
    z_order: int = 0
    toolkit: str = ""
    url: str = ""
    resource_key: str = ""
    accessibility: Accessibility = "full"
    capabilities: RootCapabilities = RootCapabilities()


def semantic_only(root: RootInfo) -> RootInfo:
    """``root`` as only its accessibility tree reaches it: no frame, no input, no pixels."""
    return dataclasses.replace(root, frame=None, capabilities=SEMANTIC_ONLY)


_CELL_NAME = re.compile(r"^([A-Z]{1,3})([1-9][0-9]{0,6})$")
"""A spreadsheet's cell name as LibreOffice gives it: its address (``B3``)."""


def column_letters(column: int) -> str:
    """0 → ``A``, 25 → ``Z``, 26 → ``AA`` (spreadsheet column names)."""
    letters = ""
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def cell_address(name: str) -> tuple[int, int] | None:
    """``"B3"`` → (row 2, column 1), 0-based; None for anything else."""
    found = _CELL_NAME.match(name.strip())
    if found is None:
        return None
    column = 0
    for letter in found.group(1):
        column = column * 26 + ord(letter) - ord("A") + 1
    return int(found.group(2)) - 1, column - 1


def cell_name(row: int, column: int) -> str:
    """(2, 1) → ``"B3"``: the inverse of :func:`cell_address`."""
    return f"{column_letters(column)}{row + 1}"


@dataclass(frozen=True)
class Pages:
    """Where a document stands among its pages, as its application counts them.

    ``caret`` is the 1-based page holding the caret (0 when the application does not
    say), ``total`` how many pages the document has. An application that lists only the
    paragraphs on screen exposes part of a document of more than one page: text on its
    other pages cannot be read until it is brought on screen.
    """

    caret: int
    total: int

    @property
    def partial(self) -> bool:
        """Whether the document has pages besides the one on screen."""
        return self.total > 1


@dataclass(frozen=True)
class Window:
    """A container too big to list, read as a window onto its data.

    ``count`` is how many children it says it has (-1 when it will not say);
    ``rows`` and ``columns`` its table size (None for a plain list, whose
    rows are its children). The shown range is 0-based and inclusive, rows
    first (child indices for a list); ``first_row`` is -1 when nothing of it
    is on screen. ``cells`` names cells spreadsheet-style (A1:J28). The shown
    range is what was read; ``screen_last_row`` is the last row on screen when
    more rows were on screen than were read (a cap on the cells one look reads),
    else -1.
    """

    count: int
    rows: int | None = None
    columns: int | None = None
    first_row: int = -1
    last_row: int = -1
    first_column: int = -1
    last_column: int = -1
    cells: bool = False
    screen_last_row: int = -1

    @property
    def shown(self) -> bool:
        return self.first_row >= 0


@dataclass(frozen=True)
class PageScan:
    """What reading a document's pages off screen found (``Backend.scan_pages``).

    The application's view of the document was scrolled down a screen at a time (its
    caret and its text untouched) until a paragraph whose text was accepted came on
    screen, the document ended, or the time ran out; from the end, up the same way. The
    view stays where it stopped, so a look shows what was found. ``matched`` counts the
    accepted paragraphs of the last screen; ``screens`` and ``screens_up`` the screens
    scrolled down and up; ``at_end`` and ``at_top`` whether the document's end and top
    were reached (``at_top`` also when the view started there); ``place`` is how far
    down the document the view's top then was (0 the top, 1 the end).
    """

    matched: int
    screens: int
    at_end: bool
    slow: bool
    place: float
    screens_up: int
    at_top: bool

    @property
    def scrolled(self) -> bool:
        """Whether the view moved (so a fresh look differs from the one before)."""
        return bool(self.screens or self.screens_up)


@dataclass(frozen=True)
class RowQuery:
    """Which unread rows of a windowed container to read, and which cells to keep.

    ``accepts`` is asked about each cell's text; at most ``limit`` cells are kept.
    """

    container: str
    rows: range
    columns: range
    accepts: Callable[[str], bool]
    limit: int


@dataclass(frozen=True)
class RawNode:
    """One accessible element as the platform reports it.

    ``value`` is already capped by the backend (``value_length`` tells the full
    length so the runtime can offer paging); it is ``None`` for secure
    (password) fields, whose text a backend must never read. ``caps`` are the
    neutral capabilities the backend can deliver semantically (see
    :data:`CAPABILITIES`), derived from interfaces, action names and states.
    """

    native_id: str
    raw_role: str
    name: str = ""
    description: str = ""
    value: str | None = None
    value_length: int = 0
    states: frozenset[str] = frozenset()
    """The platform's state names, plus two a backend adds: ``offscreen`` (listed without
    being read, as nobody can see it) and ``hidden`` (the element is not displayed at all:
    neither visible nor showing)."""
    interfaces: frozenset[str] = frozenset()
    actions: tuple[str, ...] = ()
    caps: frozenset[str] = frozenset()
    rect: Rect | None = None
    secure: bool = False
    truncated: bool = False
    labelled_by: tuple[str, ...] = ()
    """Native ids of the elements the platform says label this one (AT-SPI LABELLED_BY)."""
    window: Window | None = None
    """Set on a container read through its viewport: its children are the shown part."""
    pages: Pages | None = None
    """Set on a document's page whose application says how many pages it has."""
    unread: int = 0
    """Children left unread because the element is not shown (a hidden page, a closed
    menu): their count, -1 when the toolkit did not say. ``read_below`` reads them on
    demand."""
    children: tuple[RawNode, ...] = ()


@dataclass(frozen=True)
class Snapshot:
    """One observation of one root: its tree and when it was taken."""

    root: RootInfo
    tree: RawNode
    captured_at: float
    node_count: int
    truncated: bool = False
    source: str = ""
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    partial: str = ""
    """Why the walk stopped before reading everything ("" when it read all it would):
    the tree is what was read by then, marked truncated where it stopped."""


ActionKind = Literal[
    "press",
    "click",
    "toggle",
    "setText",
    "typeText",
    "keypress",
    "setValue",
    "select",
    "focus",
    "scroll",
    "expand",
    "collapse",
    "drag",
    "moveMouse",
]


@dataclass(frozen=True)
class ActionRequest:
    """One step to deliver to one root.

    ``target`` is the element's ``native_id`` for semantic delivery, or None
    for coordinate / current-focus delivery (``point`` in screen pixels). With
    both, physical input lands on ``point`` and is aimed at ``target``: it
    waits for that element to be enabled, as a person would. ``keys`` are one
    chord's key names one by one, split and shape-checked by the contract
    (``"ctrl+a"`` arrives as ``ctrl``, ``a``); whether a key exists is the backend's.
    """

    kind: ActionKind
    root: RootInfo
    policy: DeliveryPolicy
    target: str | None = None
    point: tuple[int, int] | None = None
    text: str = ""
    keys: tuple[str, ...] = ()
    button: Literal["left", "right", "middle"] = "left"
    click_count: int = 1
    scroll: tuple[int, int] = (0, 0)
    path: tuple[tuple[int, int], ...] = ()
    value: float | None = None
    timeout_s: float = 15.0


@dataclass(frozen=True)
class ActionResult:
    """What a backend can honestly say about one delivered step.

    ``worked`` only with read-back evidence of the intended effect, ``didnt``
    when evidence shows nothing changed, otherwise ``unknown``.
    """

    outcome: Outcome
    delivery: Literal["ax", "pid", "hid"]
    policy: DeliveryPolicy
    mechanism: str = ""
    evidence: Mapping[str, object] = field(default_factory=dict)
    reason: str = ""
    blocked: Blocked = ""
    """What stands in the way of this step or the next (what to do about it is worded
    above the seam, from this)."""


ACTION_KINDS: frozenset[ActionKind] = frozenset(get_args(ActionKind))
NO_PHYSICAL_INPUT: tuple[DeliveryPolicy, ...] = ("ax_only", "background")
"""The policies under which a step goes only as what it means, never as pointer or keys."""


@dataclass(frozen=True)
class SemanticReach:
    """The steps a backend delivers to a root without physical input, declared up front.

    ``actui.tools.actions`` reads it before sending anything: a step this rules out
    under a policy of :data:`NO_PHYSICAL_INPUT` is not sent, and its
    :meth:`refusal` is the answer, so choosing the delivery never waits on a
    round trip that could only say no. A backend gates its own semantic path
    with the same declaration, so the two cannot drift. What only a reading can
    show (an element without an editable text interface) is still answered by
    the backend as :class:`Refused`.
    """

    kinds: frozenset[ActionKind] = ACTION_KINDS
    """The kinds with a semantic form here (the default: all, the backend answers each)."""
    elements_only: bool = False
    """Only on an element: a step without one, or a click at a point or with another
    button or count, is pointer or keyboard input."""
    unreachable: str = ""
    """Why no step reaches this root semantically (its window has no accessibility tree):
    each then needs physical input at a point of its pixels."""

    def refusal(self, request: ActionRequest) -> Refused | None:
        """The answer to ``request`` if it has no semantic form here, else None."""
        if self.unreachable:
            return Refused(self.unreachable, "pixels", request.policy)
        if request.kind not in self.kinds or (self.elements_only and request.target is None):
            return Refused(f"{request.kind} without an element target", "physical", request.policy)
        plain = request.point is None and request.button == "left" and request.click_count == 1
        if self.elements_only and request.kind == "click" and not plain:
            return Refused(
                "a click at a point or with another button or count", "physical", request.policy
            )
        return None


@dataclass(frozen=True)
class Image:
    """A root's pixels as PNG. ``scale`` is image pixels per screen pixel."""

    png: bytes
    width: int
    height: int
    scale: float
    source: str = ""
    warnings: tuple[str, ...] = ()


END_REQUESTS = ("SIGTERM", "SIGINT", "SIGHUP")
"""Signals that ask a process to end; one that ends on them has not crashed."""


@dataclass(frozen=True)
class ProcessExit:
    """How an application's process ended, as far as it can be known.

    ``code`` for a normal exit, ``signal`` (``SIGSEGV``) for a kill; both None
    when only the fact of the exit is known. ``log`` is where its output was
    kept, when someone kept it.
    """

    pid: int
    code: int | None = None
    signal: str | None = None
    log: str = ""

    @property
    def crashed(self) -> bool:
        """Ended by a signal other than a request to end (SIGTERM, SIGINT, SIGHUP): an
        app asked to end, like one whose window was closed, ends as it chose to."""
        return self.signal is not None and self.signal not in END_REQUESTS

    def describe(self) -> str:
        """``was killed by signal SIGSEGV``, ``exited with code 3``; where its output is, if kept.

        A statement of fact, not advice: the sandbox's errors and the agent's
        sentences both complete "pid N …" with it."""
        if self.signal in END_REQUESTS:
            text = f"ended on signal {self.signal} (a request to end)"
        elif self.signal:
            text = f"was killed by signal {self.signal}"
        elif self.code is not None:
            text = f"exited with code {self.code}"
        else:
            text = "exited (its exit status is not known)"
        return text + (f"; its output is in {self.log}" if self.log else "")


@dataclass(frozen=True)
class TextSlice:
    text: str
    offset: int
    total_chars: int


@dataclass(frozen=True)
class TextRun:
    """Characters ``start``..``end`` of an element's text and the attributes they share
    beyond the text's defaults (``weight: 700`` for bold)."""

    start: int
    end: int
    attributes: Mapping[str, str]

    def to_wire(self) -> JsonObject:
        return {"start": self.start, "end": self.end, "attributes": dict(self.attributes)}


@dataclass(frozen=True)
class TextFormat:
    """How an element's text is formatted and where its caret and selection are: what an
    agent reads back after making a paragraph bold, a heading or centred.

    ``defaults`` are the attributes of the whole text (a paragraph's style, alignment,
    weight), ``runs`` the stretches that differ from them; ``caret`` is -1 where the
    element has none.
    """

    caret: int
    selections: tuple[tuple[int, int], ...]
    defaults: Mapping[str, str]
    runs: tuple[TextRun, ...]

    def to_wire(self) -> JsonObject:
        return {
            "caret": self.caret,
            "selections": [list(pair) for pair in self.selections],
            "defaults": dict(self.defaults),
            "runs": [run.to_wire() for run in self.runs],
        }


class Backend(abc.ABC):
    """A platform: lists roots, snapshots them, delivers actions, reads text."""

    name: str = "backend"

    @abc.abstractmethod
    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        """Every top-level surface, optionally of one process."""

    @abc.abstractmethod
    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        """The root's accessible tree, capped at ``max_nodes`` / ``max_depth``.

        Raises :class:`actui.errors.TargetGone` when the root no longer exists.
        """

    @abc.abstractmethod
    async def act(self, request: ActionRequest) -> ActionResult | Refused:
        """Deliver one step and report its outcome with evidence.

        :class:`Refused` when nothing was sent because the step needs input
        the request's policy forbids.
        """

    def semantic_reach(self, root: RootInfo) -> SemanticReach:
        """What this backend delivers to ``root`` without physical input (default: it
        answers each step itself)."""
        return SemanticReach()

    @abc.abstractmethod
    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        """The element's full live text from ``offset`` (characters)."""

    async def text_format(self, root: RootInfo, node_id: str) -> TextFormat | None:
        """The element's text attributes, caret and selection; None where this backend
        cannot read them (or the element has no text)."""
        return None

    async def keyboard_focus(self, root: RootInfo) -> str | None:
        """The id of the element of ``root``'s application that has the keyboard focus
        (where typed keys go next); None where this backend cannot tell."""
        return None

    async def capture(self, root: RootInfo, *, max_dimension: int) -> Image | None:
        """The root's current pixels, or None when this backend cannot capture."""
        return None

    async def find_in_rows(self, root: RootInfo, query: RowQuery) -> list[RawNode]:
        """Unread cells of a windowed container (``RawNode.window``) whose text matches.

        Only backends whose snapshots hold windowed containers are asked; the
        rows are read on demand without scrolling or moving focus.
        """
        raise NotImplementedError(f"{self.name} has no windowed containers")

    async def scan_pages(
        self, root: RootInfo, node_id: str, accepts: Callable[[str], bool], budget_s: float
    ) -> PageScan | None:
        """A document's pages off screen read for text ``accepts`` (``PageScan``),
        within ``budget_s``; None when this backend cannot bring them on screen without
        moving the caret."""
        return None

    async def read_below(self, root: RootInfo, node_id: str, budget_s: float) -> RawNode:
        """An element a snapshot left unread (``RawNode.unread``), read with its subtree.

        Only backends whose snapshots leave hidden subtrees unread are asked.
        """
        raise NotImplementedError(f"{self.name} leaves nothing unread")

    def document_generation(self, root: RootInfo) -> int:
        """How often ``root``'s content was replaced wholesale (a page navigation).

        A state observed under an older generation describes a document that
        no longer exists, so the runtime treats it as stale.
        """
        return 0

    def change_mark(self, root: RootInfo) -> int:
        """A counter of change events seen for ``root`` (0 without events).

        Waits take a mark, check their condition on a fresh snapshot, then call
        :meth:`wait_for_change` with the mark, so an event that arrives between
        the snapshot and the wait is never lost.
        """
        return 0

    async def wait_for_change(self, root: RootInfo, since: int, timeout_s: float) -> int:
        """Return the new mark once ``root`` changed after ``since``, or at the timeout.

        The default is the declared polling fallback: it sleeps
        :data:`POLL_INTERVAL_S` (or the timeout, if shorter) and reports a change.
        Backends with events override this to wake on the first relevant event.
        """
        await asyncio.sleep(min(POLL_INTERVAL_S, max(0.0, timeout_s)))
        return since + 1

    def waits_are_event_driven(self, root: RootInfo) -> bool:
        """Whether :meth:`wait_for_change` wakes on ``root``'s events rather than polling."""
        return False

    def notices(self) -> list[str]:
        """What an agent listing roots should know about this backend's health, if anything.

        E.g. the accessibility bus went away: applications connected to it can
        no longer be read, so an empty listing does not mean no windows are open.
        """
        return []

    async def process_exit(self, pid: int) -> ProcessExit | None:
        """How ``pid`` ended, or None while it runs (or where this backend cannot tell).

        Asked when a root vanished, so a crash is reported as one rather than
        as a window that closed.
        """
        return None

    def started_processes(self, root: RootInfo, since: float) -> list[int]:
        """Processes ``root``'s application started at or after ``since`` (``time.monotonic``).

        A launcher's press opens a window of another process a second later; a
        transaction that started one waits for its window. [] where unknown.
        """
        return []

    def settle_quiet_s(self, root: RootInfo) -> float | None:
        """How long ``root``'s application must send no event before a transaction settles.

        A window a step opens is announced by events while it is built, so once
        the application has been silent this long, no listing will change any
        more. None when its events cannot tell (none, or late ones): the
        transaction then settles by the fixed window.
        """
        return None

    @abc.abstractmethod
    async def close(self) -> None:
        """Release every connection and subscription the backend holds."""
