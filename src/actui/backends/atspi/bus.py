"""The connection to the accessibility bus (found through the session bus).

Owns the persistent dbus-fast connection, the bound on calls in flight
(64, docs/design-notes.md §6; dbus-fast closes its socket on EAGAIN when the send
buffer fills: 800 small calls at once did, 400 did not; a cold
gtk4-widget-factory walk took 753 ms with 64 and 612 ms with 256; calls leave
through an ``Outbox``, one socket write per loop turn), the per-call timeout,
the event registration (once per connection, counted by ``connection_epoch``
so event consumers know when they may have missed some, and again whenever
the registry restarts, counted by ``registry_epoch``: a new registry knows no
registration, and applications started after it ask it whom to send events
to) and the signal fan-out, and the per-toolkit call table (``toolkits.py``):
a call of a kind the destination's toolkit is not known to survive is never
sent. It
translates every D-Bus failure into an
``actui.errors`` class, telling a whole application gone (``AppGone``) from
one element gone, so no dbus-fast exception leaves this module. It knows
nothing of roles, trees or actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from actui.backends.atspi import status
from actui.backends.atspi.outbox import Outbox
from actui.backends.atspi.toolkits import CONSERVATIVE, CallKind, Toolkit, allowed, call_kind
from actui.errors import ActuiError, BackendUnavailable, BusGone, CallTimeout, TargetGone

MAX_IN_FLIGHT = 64
SWEEP_S = 0.05
"""How often calls past their timeout are looked for."""
DEFAULT_CALL_TIMEOUT_S = 3.0
REGISTRY = "org.a11y.atspi.Registry"
REGISTRY_ROOT = "/org/a11y/atspi/accessible/root"
PROPERTIES = "org.freedesktop.DBus.Properties"
# Events registered once per connection: they make toolkits emit what action
# evidence waits for and what keeps the mirror's extents honest, and GTK3 /
# Chromium only offer Cache.GetItems after any registration.
EVENTS = (
    "object:state-changed",
    "object:text-changed",
    "object:children-changed",
    "object:property-change",
    "object:bounds-changed",
    "window:",
)
# The element is gone, the application may live on.
_ELEMENT_GONE = frozenset({"org.freedesktop.DBus.Error.UnknownObject"})
# The application's connection is gone (exited, crashed, killed).
_APP_GONE = frozenset(
    {
        "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.NoReply",
        "org.freedesktop.DBus.Error.Disconnected",
    }
)

Signal = Callable[[Message], None]


class CallFailed(BackendUnavailable):
    """The application answered a call with a D-Bus error it did not explain."""

    def __init__(self, member: str, error_name: str, detail: str) -> None:
        super().__init__(f"AT-SPI call {member} failed: {error_name} {detail}".strip())
        self.error_name = error_name


class CallWithheld(CallFailed):
    """A call not sent: the destination's toolkit is not known to survive its kind."""

    def __init__(self, member: str, kind: CallKind) -> None:
        super().__init__(member, "actui.CallWithheld", f"({kind} is not sent to this toolkit)")


class AppGone(TargetGone):
    """The whole application is gone, not just one element: a walk must stop."""


class AtspiBus:
    """One session-bus and one accessibility-bus connection, opened on first use.

    With ``switch_on``, the first connection also turns ``IsEnabled`` on when
    it is off (see :mod:`actui.backends.atspi.status`), and ``close`` turns it
    off again; a probe such as ``actui doctor`` leaves it as it found it.
    """

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        switch_on: bool = False,
    ) -> None:
        source = os.environ if env is None else env
        self._address = source.get("DBUS_SESSION_BUS_ADDRESS", "")
        self.call_timeout_s = call_timeout_s
        self._a11y: MessageBus | None = None
        self._outbox: Outbox | None = None
        self._connecting = asyncio.Lock()
        self._registering = asyncio.Lock()
        self._pending: dict[int, _Pending] = {}
        self._backlog: deque[_Pending] = deque()
        self._sweep: asyncio.TimerHandle | None = None
        self._listeners: list[Signal] = []
        self._on_lost: list[Callable[[Exception], None]] = []
        self._watch: asyncio.Future[None] | None = None
        self._events_registered = False
        self._no_get_all: set[tuple[str, str]] = set()
        self._allowed: dict[str, frozenset[CallKind]] = {}
        self.connection_epoch = 0
        """Bumped on every (re)connection: events before it may have been missed."""
        self.registry_epoch = 0
        """Bumped whenever the registry gets a new owner (restarted, or activated again)."""
        self.registry_restarted_at: float | None = None
        """When (wall clock) the registry last got a new owner on this connection."""
        self._reregistration: asyncio.Future[None] | None = None
        self.lost_at: float | None = None
        """When (wall clock) an established connection last went away without ``close``."""
        self._closing = False
        self._switch_on = switch_on
        self.switched_on = False
        """Whether this bus turned ``IsEnabled`` on (and so turns it off at close)."""

    async def a11y(self) -> MessageBus:
        """The accessibility bus, connecting (again) when needed."""
        if self._a11y is not None and self._a11y.connected:
            return self._a11y
        async with self._connecting:
            if self._a11y is None or not self._a11y.connected:
                self._a11y = await self._connect_a11y()
                self._outbox = Outbox(self._a11y, self._unsendable)
                self._events_registered = False
                self._allowed.clear()
                self.connection_epoch += 1
        return self._a11y

    async def _connect_a11y(self) -> MessageBus:
        if not self._address:
            raise BackendUnavailable(
                "AT-SPI is unavailable: DBUS_SESSION_BUS_ADDRESS is not set. Run inside a "
                "desktop session or `actui sandbox run`."
            )
        try:
            async with asyncio.timeout(self.call_timeout_s):
                # only for the address: a connection left open would outlive its daemon
                session = await MessageBus(bus_address=self._address).connect()
                try:
                    reply = await session.call(
                        Message(
                            destination="org.a11y.Bus",
                            path="/org/a11y/bus",
                            interface="org.a11y.Bus",
                            member="GetAddress",
                        )
                    )
                    if self._switch_on and not self.switched_on:
                        self.switched_on = await status.switch_on(session)
                finally:
                    session.disconnect()
                if reply.message_type == MessageType.ERROR:
                    raise BackendUnavailable(
                        "the AT-SPI bus launcher is not reachable on the session bus "
                        f"({reply.error_name}). Start at-spi-bus-launcher or run inside "
                        "`actui sandbox run`."
                    )
                bus = await MessageBus(bus_address=str(reply.body[0])).connect()
        except TimeoutError as exc:
            raise CallTimeout(
                f"connecting to the AT-SPI bus took longer than {self.call_timeout_s:g} s"
            ) from exc
        except (OSError, ValueError) as exc:
            raise BackendUnavailable(f"cannot connect to the AT-SPI bus: {exc}") from exc
        bus.add_message_handler(self._dispatch)
        self._watch = asyncio.ensure_future(bus.wait_for_disconnect())  # type: ignore[no-untyped-call]
        self._watch.add_done_callback(self._on_disconnect)
        return bus

    async def call(
        self,
        destination: str,
        path: str,
        interface: str,
        member: str,
        signature: str = "",
        body: Sequence[Any] = (),
        *,
        timeout_s: float | None = None,
    ) -> list[Any]:
        """One method call on the accessibility bus; its reply body."""
        await self.a11y()
        return await self.request(
            destination, path, interface, member, signature, body, timeout_s=timeout_s
        )

    def request(
        self,
        destination: str,
        path: str,
        interface: str,
        member: str,
        signature: str = "",
        body: Sequence[Any] = (),
        *,
        timeout_s: float | None = None,
    ) -> asyncio.Future[list[Any]]:
        """One method call as a future of its reply body, on the open connection.

        A future, not a coroutine: a walk issues thousands of calls, and
        gathering futures costs no task each (a task per call was a third of a
        cold GTK 4 snapshot's CPU). The call is sent at once, or as soon as
        fewer than :data:`MAX_IN_FLIGHT` are out; its timeout runs from sending.
        A kind the destination's toolkit may not be sent fails at once with
        :class:`CallWithheld`, unsent.
        """
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        kind = call_kind(interface, member)
        if kind is not None and not self.allows(destination, kind):
            future.set_exception(CallWithheld(f"{interface}.{member}", kind))
            return future
        message = Message(
            destination=destination,
            path=path,
            interface=interface,
            member=member,
            signature=signature,
            body=list(body),
        )
        limit = self.call_timeout_s if timeout_s is None else timeout_s
        pending = _Pending(message, future, limit)
        if len(self._pending) < MAX_IN_FLIGHT:
            self._send(pending)
        else:
            self._backlog.append(pending)
        return future

    def _send(self, pending: _Pending) -> None:
        bus, outbox = self._a11y, self._outbox
        if bus is None or outbox is None or not bus.connected:
            _fail(pending.future, self._gone())
            return
        loop = asyncio.get_running_loop()
        serial = bus.next_serial()
        pending.message.serial = serial
        pending.deadline = loop.time() + pending.limit
        self._pending[serial] = pending
        if self._sweep is None:
            self._sweep = loop.call_later(SWEEP_S, self._expire_overdue)
        outbox.put(pending.message)

    def _unsendable(self, message: Message, error: Exception) -> None:
        pending = self._pending.pop(message.serial, None)
        if pending is not None:
            _fail(pending.future, BackendUnavailable(f"the AT-SPI call could not be sent: {error}"))
            self._send_backlog()

    def _send_backlog(self) -> None:
        while self._backlog and len(self._pending) < MAX_IN_FLIGHT:
            self._send(self._backlog.popleft())

    def _expire_overdue(self) -> None:
        """Fail the calls past their deadline; one timer for all of them, not one each."""
        self._sweep = None
        now = asyncio.get_running_loop().time()
        for serial, pending in [(s, p) for s, p in self._pending.items() if p.deadline <= now]:
            del self._pending[serial]
            m = pending.message
            _fail(
                pending.future,
                CallTimeout(
                    f"{m.destination} did not answer {m.interface}.{m.member} within "
                    f"{pending.limit:g} s; the application may be busy or hung."
                ),
            )
        self._send_backlog()
        if self._pending:
            self._sweep = asyncio.get_running_loop().call_later(SWEEP_S, self._expire_overdue)

    def _on_reply(self, message: Message) -> bool:
        """Settle the call this reply answers; False when it is not one of ours."""
        pending = self._pending.pop(message.reply_serial, None)
        if pending is None:
            return False
        if not pending.future.done():
            if message.message_type == MessageType.ERROR:
                pending.future.set_exception(_error(pending.message, message))
            else:
                pending.future.set_result(list(message.body))
        if self._backlog:
            self._send_backlog()
        return True

    def _on_disconnect(self, watch: asyncio.Future[None]) -> None:
        """The connection closed: every call still out fails now, not at its timeout."""
        if not watch.cancelled():
            watch.exception()  # retrieved: how it closed does not matter here
        if self._a11y is not None and self._a11y.connected:
            return  # an old connection's notice, after a reconnection
        if not self._closing:
            self.lost_at = time.time()
        calls = [*self._pending.values(), *self._backlog]
        self._pending.clear()
        self._backlog.clear()
        for pending in calls:
            _fail(pending.future, self._gone())
        if not self._closing:
            for lost in tuple(self._on_lost):
                lost(self._gone())

    def _gone(self) -> BusGone:
        """The error of a call the bus cannot carry: since when it is gone, when known."""
        lost = self.lost_at
        return BusGone(time.strftime("%H:%M:%S", time.localtime(lost)) if lost else "")

    def when_lost(self, callback: Callable[[Exception], None]) -> None:
        """Call ``callback`` with the error when the connection goes away without ``close``:
        waits blocked on events that will never come end then, not at their timeout."""
        self._on_lost.append(callback)

    def identify(self, destination: str, toolkit: Toolkit) -> None:
        """The toolkit behind ``destination`` is known: from now on its row decides."""
        self._allowed[destination] = allowed(toolkit)

    def identify_from_listing(self, destination: str, label: str) -> None:
        """Identify ``destination`` from a root another listing described, if not yet known.

        A root can come from another connection's listing (a second backend
        on the same desktop); its toolkit label was read by the same first
        contact, so it decides the same row.
        """
        if destination not in self._allowed and label:
            self.identify(destination, Toolkit.from_label(label))

    def allows(self, destination: str, kind: CallKind) -> bool:
        """Whether ``destination`` may be sent ``kind``; the conservative set until identified."""
        return kind in self._allowed.get(destination, CONSERVATIVE)

    async def get(self, destination: str, path: str, interface: str, name: str) -> object:
        """One property's value."""
        body = await self.call(destination, path, PROPERTIES, "Get", "ss", (interface, name))
        return _plain(body[0])

    async def get_int(self, destination: str, path: str, interface: str, name: str) -> int:
        """One integer property (a count, an offset, a process id); a value of another
        type is the application failing the call."""
        value = await self.get(destination, path, interface, name)
        if isinstance(value, int):
            return value
        raise CallFailed(f"{interface}.{name}", "actui.NotAnInteger", repr(value)[:80])

    async def get_all(self, destination: str, path: str, interface: str) -> dict[str, object]:
        """All of an interface's properties in one call."""
        body = await self.call(destination, path, PROPERTIES, "GetAll", "s", (interface,))
        return {key: _plain(value) for key, value in body[0].items()}

    async def get_many(
        self, destination: str, path: str, interface: str, names: Sequence[str]
    ) -> dict[str, object]:
        """Several properties: one ``GetAll`` where the toolkit is known to survive it.

        Qt 5 dies of ``GetAll``, Qt 6 does not implement it, an application not
        yet identified might be either (``toolkits.py``); GTK3's Application
        fails it as a whole (remembered per application and interface). Those
        get concurrent ``Get`` calls instead, leaving out properties that fail.
        """
        key = (destination, interface)
        if key not in self._no_get_all and self.allows(destination, "get_all"):
            try:
                return await self.get_all(destination, path, interface)
            except CallFailed:
                self._no_get_all.add(key)

        async def one(name: str) -> tuple[str, object]:
            try:
                return name, await self.get(destination, path, interface, name)
            except CallFailed:
                return name, None

        pairs = await asyncio.gather(*(one(n) for n in names))
        return {name: value for name, value in pairs if value is not None}

    async def set(
        self, destination: str, path: str, interface: str, name: str, value: Variant
    ) -> None:
        await self.call(destination, path, PROPERTIES, "Set", "ssv", (interface, name, value))

    async def connection_pid(self, bus_name: str) -> int:
        """The process id behind a unique name on the accessibility bus, 0 if unknown."""
        try:
            body = await self.call(
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus",
                "GetConnectionUnixProcessID",
                "s",
                (bus_name,),
            )
        except (TargetGone, CallFailed):
            return 0
        return int(body[0])

    async def ensure_events(self) -> None:
        """Register the events actui listens to, once per connection and registry.

        Registrations belong to the registering connection, so they end with it,
        and to the registry that took them, so they end with it too.
        """
        await self.a11y()
        if self._events_registered:
            return
        async with self._registering:
            while not self._events_registered:
                epoch = self.registry_epoch
                await self._register_events()
                # a registry that restarted meanwhile may have got them before it died
                self._events_registered = epoch == self.registry_epoch

    async def _register_events(self) -> None:
        rules = (
            "type='signal',interface='org.a11y.atspi.Event.Object'",
            "type='signal',interface='org.a11y.atspi.Event.Window'",
            # an application's connection closing (exit, crash, SIGKILL)
            "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged'",
        )
        # all at once: a cold observation waits for these round trips
        matches = (
            self.call(
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus",
                "AddMatch",
                "s",
                (rule,),
            )
            for rule in rules
        )
        registrations = (
            self.call(
                REGISTRY,
                "/org/a11y/atspi/registry",
                "org.a11y.atspi.Registry",
                "RegisterEvent",
                "sass",
                (event, [], ""),
            )
            for event in EVENTS
        )
        await asyncio.gather(*matches, *registrations)

    def subscribe(self, listener: Signal) -> Callable[[], None]:
        """Receive every AT-SPI event signal until the returned function is called."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    def _dispatch(self, message: Message) -> bool:
        if message.message_type == MessageType.SIGNAL:
            if registry_owned(message):
                self._registry_restarted()
            for listener in tuple(self._listeners):
                listener(message)
            return False
        return self._on_reply(message)

    def _registry_restarted(self) -> None:
        """The registry has a new owner: register the events with it again, at once.

        Its predecessor's registrations died with it. Applications already
        running keep sending what they were asked for, but one started from
        now on asks the new registry, and would send nothing actui waits for.
        Registering now, not at the next call, keeps that window to a round trip.
        """
        self.registry_epoch += 1
        self.registry_restarted_at = time.time()
        self._events_registered = False
        if self._reregistration is None or self._reregistration.done():
            self._reregistration = asyncio.ensure_future(self._register_again())

    async def _register_again(self) -> None:
        with contextlib.suppress(ActuiError):  # the next ensure_events tries again
            await self.ensure_events()

    async def close(self) -> None:
        self._closing = True
        if self._reregistration is not None:
            self._reregistration.cancel()
        if self.switched_on:
            await self._switch_back_off()
        if self._a11y is not None and self._a11y.connected:
            self._a11y.disconnect()
        if self._watch is not None:
            self._watch.cancel()
        if self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        self._a11y = None
        self._outbox = None
        self._listeners.clear()
        self._on_lost.clear()

    async def _switch_back_off(self) -> None:
        """Leave ``IsEnabled`` as it was found; a vanished session bus has nothing to restore."""
        self.switched_on = False
        with contextlib.suppress(OSError, ValueError, TimeoutError):
            async with asyncio.timeout(self.call_timeout_s):
                session = await MessageBus(bus_address=self._address).connect()
                try:
                    await status.write_enabled(session, False)
                finally:
                    session.disconnect()


@dataclass
class _Pending:
    """A call sent (or waiting to be sent) and the future its reply settles."""

    message: Message
    future: asyncio.Future[list[Any]]
    limit: float
    deadline: float = 0.0


def registry_owned(message: Message) -> bool:
    """Whether a signal says the registry's name just got an owner (it started again)."""
    if message.interface != "org.freedesktop.DBus" or message.member != "NameOwnerChanged":
        return False
    name, _old, new = (str(v) for v in message.body[:3])
    return name == REGISTRY and bool(new)


def _fail(future: asyncio.Future[list[Any]], error: Exception) -> None:
    if not future.done():
        future.set_exception(error)


def _error(call: Message, reply: Message) -> Exception:
    """The actui error for a D-Bus error reply."""
    detail = str(reply.body[0]) if reply.body else ""
    if reply.error_name in _APP_GONE:
        return AppGone(
            f"the application {call.destination}",
            f"is gone ({reply.error_name}); it exited or crashed",
            then="find_roots",
        )
    if reply.error_name in _ELEMENT_GONE:
        return TargetGone(
            f"{call.destination}{call.path}",
            f"is gone ({detail or reply.error_name}); the application closed it or exited",
            then="observe_ui",
        )
    return CallFailed(f"{call.interface}.{call.member}", reply.error_name or "", detail)


def _plain(value: object) -> object:
    return value.value if isinstance(value, Variant) else value
