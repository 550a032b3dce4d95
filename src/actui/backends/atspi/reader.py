"""Reading one element's fields over the bus, in as few calls as possible.

Owns the per-node call plan: ``basics`` (name, description, child count, role,
states, interfaces: four concurrent calls, or none when the toolkit cache
supplied them; an element nobody can see is only listed, by name and role) and
``details`` (extents, capped text, value, action names: one call each, only
for elements with that interface). Calls go out as futures all at once
(``request_*``) and are finished by the matching ``*_of`` / ``*_from``, so a
walk gathers no task per call. Password fields never have their text read. It
does not decide the tree's shape or caps.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dbus_fast import Variant

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import PROPERTIES, AtspiBus, CallFailed
from actui.backends.atspi.names import clean_text
from actui.backends.atspi.tables import SECURE_ROLES, role_name, state_names
from actui.backends.base import Rect
from actui.backends.reads import int_of

ACCESSIBLE = "org.a11y.atspi.Accessible"
IFACE_PREFIX = "org.a11y.atspi."
VALUE_CAP = 2000
PROPERTY_NAMES = ("Name", "Description", "ChildCount")
MAX_ACTIONS = 64
SCREEN = 0
_SENSITIVITY = frozenset({"enabled", "sensitive"})
_VISIBILITY = frozenset({"visible", "showing"})
NAME_IS_TEXT_ROLES = frozenset(
    {
        "label",
        "accelerator label",
        "table cell",
        "list item",
        "page tab",
        "menu item",
        "check menu item",
        "radio menu item",
        "link",
        "heading",
    }
)


@dataclass(frozen=True)
class Basics:
    """What the cache or four calls tell about an element."""

    role: str
    name: str
    description: str
    states: frozenset[str]
    interfaces: frozenset[str]
    child_count: int
    unseen: bool = False
    """Read as an element that cannot be seen: role, name and child count only."""

    @property
    def secure(self) -> bool:
        return self.role in SECURE_ROLES

    @property
    def disabled(self) -> bool:
        return is_disabled(self.states)


@dataclass(frozen=True)
class Details:
    """``actions`` is None when the names were not read (caps then follow the role)."""

    rect: Rect | None
    value: str | None
    value_length: int
    actions: tuple[str, ...] | None


def is_disabled(states: frozenset[str]) -> bool:
    """Whether the toolkit says the element ignores input right now.

    AT-SPI has no ``disabled`` state: toolkits report ``enabled``/``sensitive``
    on every widget that accepts input, alongside ``visible``/``showing``, so an
    element reporting its visibility but neither of those is disabled.
    """
    return bool(states & _VISIBILITY) and not states & _SENSITIVITY


def short_interfaces(names: Iterable[object]) -> frozenset[str]:
    """``org.a11y.atspi.Text`` → ``Text``."""
    return _short_interfaces(tuple(str(n) for n in names))


@functools.lru_cache(maxsize=256)
def _short_interfaces(names: tuple[str, ...]) -> frozenset[str]:
    """Memoized: elements share a handful of interface lists."""
    return frozenset(n.removeprefix(IFACE_PREFIX) for n in names)


async def read_basics(
    bus: AtspiBus,
    at: Address,
    identity: tuple[str, frozenset[str]] | None = None,
    *,
    name: str | None = None,
    states: frozenset[str] | None = None,
) -> Basics:
    """Four calls; two when ``identity`` (role, interfaces) is already known; one when the
    ``name`` is too (a spreadsheet cell: no description, no children); none when its
    ``states`` are too (a kept spreadsheet cell, ``viewport``)."""
    if identity is not None and name is not None and states is not None:
        return Basics(identity[0], name, "", states, identity[1], 0)
    await bus.a11y()
    state_f = bus.request(at.bus, at.path, ACCESSIBLE, "GetState")
    calls = [state_f]
    if identity is None:
        calls.append(bus.request(at.bus, at.path, ACCESSIBLE, "GetRole"))
        calls.append(bus.request(at.bus, at.path, ACCESSIBLE, "GetInterfaces"))
    if identity is not None and name is not None:
        props: dict[str, object] = {"Name": name, "ChildCount": 0}
        bodies = [await state_f]
    else:
        props, bodies = await _with_properties(bus, at, calls)
    if identity is None:
        identity = (role_name(int(bodies[1][0])), short_interfaces(bodies[2][0]))
    return basics_of(identity, state_names(bodies[0][0]), props)


async def read_listed(bus: AtspiBus, at: Address) -> tuple[frozenset[str], dict[str, object]]:
    """The two calls :func:`read_basics` makes when the role and interfaces are known:
    states, and name, description and child count (:func:`basics_of` joins them)."""
    state_f = bus.request(at.bus, at.path, ACCESSIBLE, "GetState")
    props, bodies = await _with_properties(bus, at, [state_f])
    return state_names(bodies[0][0]), props


def basics_of(
    identity: tuple[str, frozenset[str]], states: frozenset[str], props: Mapping[str, object]
) -> Basics:
    """An element's basics from its role and interfaces, states, and properties."""
    return Basics(
        role=identity[0],
        name=str(props.get("Name", "")),
        description=str(props.get("Description", "")),
        states=states,
        interfaces=identity[1],
        child_count=int_of(props, "ChildCount", -1),
    )


async def _with_properties(
    bus: AtspiBus, at: Address, calls: list[asyncio.Future[list[Any]]]
) -> tuple[dict[str, object], list[list[Any]]]:
    """Name, description and child count, and the bodies of ``calls`` already sent."""
    try:
        props = await bus.get_many(at.bus, at.path, ACCESSIBLE, PROPERTY_NAMES)
        return props, list(await asyncio.gather(*calls))
    except BaseException:
        discard(calls)
        raise


UNSEEN_STATES = frozenset({"offscreen"})


async def read_unseen(bus: AtspiBus, at: Address, role: str | None = None) -> Basics:
    """What lists an element nobody can see (a hidden GTK 4 stack page's content).

    Name and child count, and the role unless already known: one or two calls
    instead of four. Its states and interfaces are not read; it says
    ``offscreen``, and it is read in full once it can be seen.
    """
    await bus.a11y()
    calls = [] if role is not None else [bus.request(at.bus, at.path, ACCESSIBLE, "GetRole")]
    props, bodies = await _with_properties(bus, at, calls)
    listed = Basics(
        role=role if role is not None else role_name(int(bodies[0][0])),
        name=str(props.get("Name", "")),
        description=str(props.get("Description", "")),
        states=frozenset(),
        interfaces=frozenset(),
        child_count=int_of(props, "ChildCount", -1),
    )
    return as_unseen(listed)


def as_unseen(basics: Basics) -> Basics:
    """A fully read element as it is listed once it cannot be seen (as a fresh read would)."""
    if basics.unseen:
        return basics
    return Basics(
        basics.role,
        basics.name,
        basics.description,
        UNSEEN_STATES,
        frozenset(),
        basics.child_count,
        unseen=True,
    )


def discard(futures: Sequence[asyncio.Future[Any]]) -> None:
    """Calls whose answers no longer matter: cancelled, or their errors retrieved.

    A failed future nobody looks at is logged when collected; a walk that
    gives up on an element must not leave that noise behind.
    """
    for future in futures:
        if not future.cancel():
            future.exception()


async def read_children(
    bus: AtspiBus, at: Address, *, timeout_s: float | None = None
) -> list[Address]:
    await bus.a11y()
    return children_of(await request_children(bus, at, timeout_s=timeout_s))


def request_children(
    bus: AtspiBus, at: Address, *, timeout_s: float | None = None
) -> asyncio.Future[list[Any]]:
    """``timeout_s``: the bus's call timeout unless given."""
    return bus.request(at.bus, at.path, ACCESSIBLE, "GetChildren", timeout_s=timeout_s)


def children_of(body: list[Any]) -> list[Address]:
    children = (Address.of(pair) for pair in body[0])
    return [child for child in children if not child.is_null]


async def read_states(bus: AtspiBus, at: Address) -> frozenset[str]:
    body = await bus.call(at.bus, at.path, ACCESSIBLE, "GetState")
    return state_names(body[0])


async def read_extents(bus: AtspiBus, at: Address, origin: tuple[int, int]) -> Rect | None:
    """Screen extents plus ``origin`` (non-zero for toolkits that report window-relative ones)."""
    await bus.a11y()
    return extents_of(await request_extents(bus, at), origin)


def request_extents(bus: AtspiBus, at: Address) -> asyncio.Future[list[Any]]:
    return bus.request(at.bus, at.path, IFACE_PREFIX + "Component", "GetExtents", "u", (SCREEN,))


def extents_of(body: list[Any], origin: tuple[int, int]) -> Rect | None:
    x, y, w, h = (int(v) for v in body[0])
    if w <= 0 or h <= 0:
        return None
    return Rect(x + origin[0], y + origin[1], w, h)


async def read_text(bus: AtspiBus, at: Address, start: int, limit: int) -> tuple[str, int]:
    """Characters ``start``..``start+limit`` and the full character count.

    The end offset is always explicit: GTK 4 answers ``GetText(0, -1)`` with ''.
    """
    text_iface = IFACE_PREFIX + "Text"
    count = await bus.get_int(at.bus, at.path, text_iface, "CharacterCount")
    end = min(count, start + max(0, limit))
    if end <= start:
        return "", count
    body = await bus.call(at.bus, at.path, text_iface, "GetText", "ii", (start, end))
    return str(body[0]), count


async def read_actions(bus: AtspiBus, at: Address) -> tuple[str, ...]:
    await bus.a11y()
    return await actions_from(bus, at, request_actions(bus, at))


def request_actions(bus: AtspiBus, at: Address) -> asyncio.Future[list[Any]]:
    return bus.request(at.bus, at.path, IFACE_PREFIX + "Action", "GetActions")


async def actions_from(
    bus: AtspiBus, at: Address, request: asyncio.Future[list[Any]]
) -> tuple[str, ...]:
    """Action names; toolkits without ``GetActions`` are asked one by one (at most 64)."""
    action = IFACE_PREFIX + "Action"
    try:
        body = await request
        return tuple(str(entry[0]) for entry in body[0][:MAX_ACTIONS])
    except CallFailed:
        count = await bus.get_int(at.bus, at.path, action, "NActions")
        names = await asyncio.gather(
            *(
                bus.request(at.bus, at.path, action, "GetName", "i", (i,))
                for i in range(min(count, MAX_ACTIONS))
            )
        )
        return tuple(str(n[0]) for n in names)


def request_text_head(bus: AtspiBus, at: Address) -> asyncio.Future[list[Any]]:
    return bus.request(at.bus, at.path, IFACE_PREFIX + "Text", "GetText", "ii", (0, VALUE_CAP))


async def text_head_from(
    bus: AtspiBus, at: Address, request: asyncio.Future[list[Any]], *, clamps: bool = False
) -> tuple[str, int]:
    """The first :data:`VALUE_CAP` characters and the full count, mostly in one call.

    GTK 3, GTK 4 and Qt clamp an end offset past the text (measured), so a
    short answer is the whole text; only a full one needs ``CharacterCount``.
    Gecko does not clamp: it answers any range past the text with '' (a web
    paragraph's "Not submitted" read as empty), so an empty answer is asked
    again with the real end; that costs two calls only where text is empty,
    and none where the toolkit is known to clamp (``clamps``: an empty answer
    is empty text, as in the empty cells of a spreadsheet's shown window).
    """
    text = str((await request)[0])[:VALUE_CAP]
    if 0 < len(text) < VALUE_CAP or (clamps and not text):
        return text, len(text)
    count = await bus.get_int(at.bus, at.path, IFACE_PREFIX + "Text", "CharacterCount")
    if text or count <= 0:
        return text, max(count, len(text))
    body = await bus.call(
        at.bus, at.path, IFACE_PREFIX + "Text", "GetText", "ii", (0, min(count, VALUE_CAP))
    )
    return str(body[0])[:VALUE_CAP], count


COUNT_FIRST_ROLES = frozenset({"page"})
"""Roles whose text is asked only once ``CharacterCount`` says there is some: Evince's
pages, asked ``GetText`` before the document has loaded their text, crash it (SIGSEGV
after ``g_utf8_strlen: assertion 'p != NULL'``; 3 of 4 looks within a second of its
start), while their count answers 0 then."""


def request_count(bus: AtspiBus, at: Address) -> asyncio.Future[list[Any]]:
    return bus.request(
        at.bus, at.path, PROPERTIES, "Get", "ss", (IFACE_PREFIX + "Text", "CharacterCount")
    )


async def _text_once_counted(
    bus: AtspiBus, at: Address, counted: asyncio.Future[list[Any]]
) -> tuple[str, int]:
    """The first :data:`VALUE_CAP` characters, asked only when the count is above 0."""
    value = (await counted)[0]
    count = int(value.value if isinstance(value, Variant) else value)
    if count <= 0:
        return "", 0
    body = await bus.call(
        at.bus, at.path, IFACE_PREFIX + "Text", "GetText", "ii", (0, min(count, VALUE_CAP))
    )
    return str(body[0])[:VALUE_CAP], count


def format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


async def read_value(bus: AtspiBus, at: Address) -> float:
    await bus.a11y()
    return value_of(await request_value(bus, at))


def request_value(bus: AtspiBus, at: Address) -> asyncio.Future[list[Any]]:
    return bus.request(
        at.bus, at.path, PROPERTIES, "Get", "ss", (IFACE_PREFIX + "Value", "CurrentValue")
    )


def value_of(body: list[Any]) -> float:
    value = body[0]
    return float(value.value if isinstance(value, Variant) else value)


def name_is_text(basics: Basics) -> bool:
    """Whether a GTK element's text is its name, so reading it would only repeat it.

    GTK (3 and 4) names labels, cells, tabs, menu items and links after their
    text unless the application set another name; editable text never is.
    """
    return (
        bool(basics.name)
        and basics.role in NAME_IS_TEXT_ROLES
        and "EditableText" not in basics.interfaces
        and "editable" not in basics.states
    )


def uncalled_details(
    basics: Basics, *, want_rect: bool, want_actions: bool, value_is_name: bool
) -> Details | None:
    """What :func:`read_details` returns when it needs no call: nothing to place, no
    action names or text to read (a hidden panel, a label named after its text); None
    when it needs one.

    A walk settles such an element as soon as it is admitted, without a task:
    they were over a third of a cold gtk3-widget-factory look's elements.
    """
    ifaces = basics.interfaces
    if (want_rect and "Component" in ifaces) or (want_actions and "Action" in ifaces):
        return None
    text = "Text" in ifaces
    if not basics.secure and ((text and not value_is_name) or (not text and "Value" in ifaces)):
        return None
    named = value_is_name and text and not basics.secure
    value, length = (basics.name, len(basics.name)) if named else (None, 0)
    actions = () if want_actions else None
    return Details(rect=None, value=value, value_length=length, actions=actions)


@dataclass(frozen=True)
class Ahead:
    """Extents and action names asked with an element's states, before they say whether
    it shows: a shown cell of a windowed table, whose role and interfaces came with the
    window (``viewport.CellHint``). Asked after its states, they were the last round trip
    of a cold GTK 3 look's longest chain. A read that does not want one leaves it unused;
    the caller discards both once the read is done."""

    rect: asyncio.Future[list[Any]] | None = None
    actions: asyncio.Future[list[Any]] | None = None

    def discard(self) -> None:
        discard([f for f in (self.rect, self.actions) if f is not None])


def ask_ahead(bus: AtspiBus, at: Address, interfaces: frozenset[str], *, actions: bool) -> Ahead:
    """What :func:`read_details` of a shown element with ``interfaces`` would ask first."""
    return Ahead(
        request_extents(bus, at) if "Component" in interfaces else None,
        request_actions(bus, at) if actions and "Action" in interfaces else None,
    )


async def read_details(
    bus: AtspiBus,
    at: Address,
    basics: Basics,
    origin: tuple[int, int],
    *,
    want_rect: bool,
    want_actions: bool = True,
    value_is_name: bool = False,
    text_clamps: bool = False,
    ahead: Ahead | None = None,
) -> Details:
    """Extents, value and actions for the interfaces the element has, asked all at once.

    ``actions`` stays None when not wanted; ``value_is_name`` takes the value
    from the name instead of reading the text (see :func:`name_is_text`);
    ``text_clamps`` says the toolkit clamps text ranges (:func:`text_head_from`);
    ``ahead``: calls already asked (:class:`Ahead`). Password fields never have
    their text read.
    """
    known = uncalled_details(
        basics, want_rect=want_rect, want_actions=want_actions, value_is_name=value_is_name
    )
    if known is not None:
        return known
    await bus.a11y()
    ifaces = basics.interfaces
    rect_f = actions_f = None
    if want_rect and "Component" in ifaces:
        rect_f = (ahead and ahead.rect) or request_extents(bus, at)
    if want_actions and "Action" in ifaces:
        actions_f = (ahead and ahead.actions) or request_actions(bus, at)
    text_f = value_f = None
    if not basics.secure:
        if "Text" in ifaces and basics.role in COUNT_FIRST_ROLES:
            text_f = request_count(bus, at)
        elif "Text" in ifaces:
            text_f = None if value_is_name else request_text_head(bus, at)
        elif "Value" in ifaces:
            value_f = request_value(bus, at)
    calls = [f for f in (rect_f, actions_f, text_f, value_f) if f is not None]
    try:
        rect = extents_of(await rect_f, origin) if rect_f is not None else None
        actions = await actions_from(bus, at, actions_f) if actions_f is not None else None
        value: str | None = None
        length = 0
        if text_f is not None and basics.role in COUNT_FIRST_ROLES:
            text, length = await _text_once_counted(bus, at, text_f)
            value = clean_text(text)
        elif text_f is not None:
            text, length = await text_head_from(bus, at, text_f, clamps=text_clamps)
            value = clean_text(text)
        elif value_f is not None:
            value = format_number(value_of(await value_f))
            length = len(value)
        elif value_is_name and not basics.secure and "Text" in ifaces:
            value, length = basics.name, len(basics.name)
    except BaseException:
        discard(calls)
        raise
    if actions is None and want_actions:
        actions = ()
    return Details(rect=rect, value=value, value_length=length, actions=actions)
