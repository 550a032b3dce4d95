"""``org.a11y.Status.IsEnabled``: whether toolkits should build accessibility trees.

In a person's own desktop session the flag is usually false, and Chromium,
Electron and Firefox then expose a handful of nodes (Qt registers only with
it set). A driver that needs the trees switches it on, and back off when it
is done only if it was the one that switched it: a screen reader that had
it on keeps it on.
"""

from __future__ import annotations

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

_BUS = ("org.a11y.Bus", "/org/a11y/bus")
_STATUS = "org.a11y.Status"
_PROPERTIES = "org.freedesktop.DBus.Properties"


async def read_enabled(session: MessageBus) -> bool | None:
    """The flag, or None when the launcher does not answer for it."""
    reply = await session.call(
        Message(
            destination=_BUS[0],
            path=_BUS[1],
            interface=_PROPERTIES,
            member="Get",
            signature="ss",
            body=[_STATUS, "IsEnabled"],
        )
    )
    if reply is None or reply.message_type == MessageType.ERROR:
        return None
    return bool(reply.body[0].value)


async def write_enabled(session: MessageBus, value: bool) -> bool:
    """Set the flag; whether the launcher took it."""
    reply = await session.call(
        Message(
            destination=_BUS[0],
            path=_BUS[1],
            interface=_PROPERTIES,
            member="Set",
            signature="ssv",
            body=[_STATUS, "IsEnabled", Variant("b", value)],
        )
    )
    return reply is not None and reply.message_type != MessageType.ERROR


async def switch_on(session: MessageBus) -> bool:
    """Turn the flag on if it is off; True only if this call changed it."""
    return await read_enabled(session) is False and await write_enabled(session, True)
