"""``org.a11y.Status.IsEnabled``: whether toolkits should build accessibility trees.

In a person's own desktop session the flag is usually false, and Chromium,
Electron and Firefox then expose a handful of nodes (Qt registers only with
it set). A driver that needs the trees switches it on, and back off when it
is done only if it was the one that switched it: a screen reader that had
it on keeps it on.
"""

from __future__ import annotations

from typing import Any

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

_BUS = ("org.a11y.Bus", "/org/a11y/bus")
_STATUS = "org.a11y.Status"
_PROPERTIES = "org.freedesktop.DBus.Properties"


async def _properties(
    session: MessageBus, member: str, signature: str, body: list[object]
) -> list[Any] | None:
    """One ``Properties`` call on the launcher's Status; None when it fails or is unanswered."""
    message = Message(
        destination=_BUS[0],
        path=_BUS[1],
        interface=_PROPERTIES,
        member=member,
        signature=signature,
        body=body,
    )
    reply = await session.call(message)
    if reply is None or reply.message_type == MessageType.ERROR:
        return None
    return reply.body


async def read_enabled(session: MessageBus) -> bool | None:
    """The flag, or None when the launcher does not answer for it."""
    body = await _properties(session, "Get", "ss", [_STATUS, "IsEnabled"])
    return None if body is None else bool(body[0].value)


async def write_enabled(session: MessageBus, value: bool) -> bool:
    """Set the flag; whether the launcher took it."""
    body = [_STATUS, "IsEnabled", Variant("b", value)]
    return await _properties(session, "Set", "ssv", body) is not None


async def switch_on(session: MessageBus) -> bool:
    """Turn the flag on if it is off; True only if this call changed it."""
    return await read_enabled(session) is False and await write_enabled(session, True)
