"""Per-application change counters fed by AT-SPI events, and waits woken by them.

Owns one counter per application (its unique bus name on the accessibility
bus) that every relevant signal from that application bumps: object events
(children-changed, property-change, state-changed, text-changed …) and window
events, whatever their member's case (GTK 4 sends ``activate``). Two signals
speak *about* an application rather than from it and bump its counter too: the
registry root's ``ChildrenChanged`` (the application appeared or exited; an
exiting application sends nothing itself) and the bus daemon's
``NameOwnerChanged`` (its connection is gone, e.g. after SIGKILL).

``BoundsChanged`` reaches the listeners (the mirror) but counts for nothing.
A wait compares against a counter taken earlier, so an event arriving between
a snapshot and the wait is never lost. What changed is never taken from an
event's payload (GTK 4 sends wrong text offsets): callers re-read.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable

from dbus_fast import Message, Variant

from actui.backends.atspi.address import Address

OBJECT_EVENTS = "org.a11y.atspi.Event.Object"
WINDOW_EVENTS = "org.a11y.atspi.Event.Window"
DBUS_DAEMON = "org.freedesktop.DBus"
# Geometry news feeds the mirror but wakes no wait: no condition is about
# extents, and animated widgets (gtk3-widget-factory's spinners) send it 60
# times a second each.
GEOMETRY_ONLY = frozenset({"BoundsChanged"})


def concerned(message: Message) -> tuple[str, ...]:
    """The applications (unique bus names) a signal says changed; () when none."""
    if message.interface == DBUS_DAEMON and message.member == "NameOwnerChanged":
        name, _old, new = (str(v) for v in message.body[:3])
        return (name,) if name.startswith(":") and not new else ()
    if message.interface not in (OBJECT_EVENTS, WINDOW_EVENTS) or not message.sender:
        return ()
    if message.member == "ChildrenChanged" and len(message.body) >= 4:
        child = message.body[3]
        pair = child.value if isinstance(child, Variant) else child
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            at = Address.of(pair)
            if not at.is_null and at.bus != message.sender:
                return (message.sender, at.bus)  # the registry announcing an application
    return (message.sender,)


class ChangeCounters:
    """Counts change signals per application and wakes the waits on each."""

    def __init__(self) -> None:
        self._counts: defaultdict[str, int] = defaultdict(int)
        self._waiters: defaultdict[str, set[asyncio.Future[None]]] = defaultdict(set)
        self._listeners: list[Callable[[str, Message], None]] = []

    def on_signal(self, message: Message) -> None:
        for app in concerned(message):
            for listener in tuple(self._listeners):
                listener(app, message)
            if message.member in GEOMETRY_ONLY:
                continue
            self._counts[app] += 1
            for waiter in self._waiters.pop(app, ()):
                if not waiter.done():
                    waiter.set_result(None)

    def lose(self, error: Exception) -> None:
        """The connection the events came over is gone: every wait ends now with ``error``."""
        waiters = [w for ws in self._waiters.values() for w in ws]
        self._waiters.clear()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(error)

    def listen(self, listener: Callable[[str, Message], None]) -> None:
        """Also hand every counted signal to ``listener`` (the live mirror)."""
        self._listeners.append(listener)

    def mark(self, app: str) -> int:
        return self._counts[app]

    async def wait(self, app: str, since: int, timeout_s: float) -> int:
        """The app's counter once it passes ``since``, or ``since`` at the timeout."""
        if self._counts[app] != since:
            return self._counts[app]
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters[app].add(waiter)
        try:
            async with asyncio.timeout(max(0.0, timeout_s)):
                await waiter
        except TimeoutError:
            return since
        finally:
            self._waiters[app].discard(waiter)
        return self._counts[app]
