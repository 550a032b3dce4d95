"""A second, independent AT-SPI client for the benchmarks: the "someone else" that changes apps.

It is deliberately not actui's bus code: a bare dbus-fast connection to the
sandbox's accessibility bus, used to make changes (DoAction, SetTextContents)
and to time how fast an application itself shows their effect. It must not
be used to measure actui.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from dbus_fast import BusType, Message, MessageType
from dbus_fast.aio import MessageBus

IFACE = "org.a11y.atspi."
CALL_TIMEOUT_S = 5.0


class RawAtspi:
    """One plain connection to the accessibility bus of the desktop ``env`` points at."""

    def __init__(self, bus: MessageBus) -> None:
        self._bus = bus

    @classmethod
    async def connect(cls, env: Mapping[str, str]) -> RawAtspi:
        session = await MessageBus(
            bus_address=env["DBUS_SESSION_BUS_ADDRESS"], bus_type=BusType.SESSION
        ).connect()
        try:
            reply = await session.call(
                Message(
                    destination="org.a11y.Bus",
                    path="/org/a11y/bus",
                    interface="org.a11y.Bus",
                    member="GetAddress",
                )
            )
        finally:
            session.disconnect()
        assert reply is not None and reply.message_type == MessageType.METHOD_RETURN
        bus = await MessageBus(bus_address=str(reply.body[0])).connect()
        return cls(bus)

    async def call(
        self, wire: str, iface: str, member: str, signature: str = "", body: list[Any] | None = None
    ) -> list[Any]:
        """One method call on the element ``wire`` ("<bus name><object path>")."""
        name, path = split_wire(wire)
        return await self.send(
            Message(
                destination=name,
                path=path,
                interface=IFACE + iface,
                member=member,
                signature=signature,
                body=body or [],
            )
        )

    async def send(self, message: Message) -> list[Any]:
        """One method call as given; its reply body (an error reply raises)."""
        async with asyncio.timeout(CALL_TIMEOUT_S):
            reply = await self._bus.call(message)
        assert reply is not None
        if reply.message_type != MessageType.METHOD_RETURN:
            raise RuntimeError(
                f"{message.member} on {message.path} failed: {reply.error_name} {reply.body}"
            )
        return list(reply.body)

    async def text(self, wire: str) -> str:
        (text,) = await self.call(wire, "Text", "GetText", "ii", [0, 4096])
        return str(text)

    async def value(self, wire: str) -> float:
        name, path = split_wire(wire)
        message = Message(
            destination=name,
            path=path,
            interface="org.freedesktop.DBus.Properties",
            member="Get",
            signature="ss",
            body=[IFACE + "Value", "CurrentValue"],
        )
        return float((await self.send(message))[0].value)

    async def set_text(self, wire: str, text: str) -> None:
        await self.call(wire, "EditableText", "SetTextContents", "s", [text])

    async def do_action(self, wire: str, index: int = 0) -> None:
        await self.call(wire, "Action", "DoAction", "i", [index])

    async def reaction_ms(
        self, button: str, read: Callable[[], Awaitable[object]], shows: object
    ) -> float:
        """ms from sending DoAction(0) on ``button`` to ``read()`` returning ``shows``.

        Reads in a tight loop (each read is one round trip, well under a millisecond),
        so this is the application's own reaction time plus at most one read.
        """
        start = time.monotonic()
        await self.do_action(button)
        deadline = start + CALL_TIMEOUT_S
        while await read() != shows:
            if time.monotonic() > deadline:
                raise TimeoutError(f"pressing {button} never showed {shows!r}")
        return (time.monotonic() - start) * 1000

    def close(self) -> None:
        self._bus.disconnect()


def split_wire(wire: str) -> tuple[str, str]:
    """``:1.2/org/a11y/...`` → (``:1.2``, ``/org/a11y/...``)."""
    cut = wire.index("/")
    return wire[:cut], wire[cut:]
