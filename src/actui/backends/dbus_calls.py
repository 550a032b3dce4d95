"""One D-Bus method call with a deadline: its reply, or the caller's own error.

The private desktop's start-up (``linux/sandbox.py``) and the headless
gnome-shell's connection (``wayland/gnome.py``) make their calls the same way:
send, give up after a fixed time, and treat an error reply (or none at all) as
a failure. That way is written here once; each caller names its failures
itself (``silent``, ``refused``), because a sandbox that cannot start and a
desktop whose shell stopped answering are different news to different readers.
The accessibility bus (``atspi/bus.py``) does not come here: a walk sends it
thousands of calls, at most 64 in flight and the rest held back, with one
timer for all of them and no task each (its ``request``; docs/design-notes.md
§6). A task and a deadline per call, as here, would cost that, and so many
calls sent at once fill the socket's buffer, on which dbus-fast closes the
connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus

Failure = Callable[[str], Exception]
"""A caller's error for a call that failed, made from the sentence that says how."""


async def call(
    bus: MessageBus, message: Message, timeout_s: float, *, silent: Failure, refused: Failure
) -> Message:
    """``message`` sent on ``bus``; its reply (``unix_fds`` included).

    Raises ``silent("<destination> did not answer <member> within <timeout_s> s")``
    when no reply came in time, and ``refused("<error name>: <body>")`` (or
    ``refused("no reply")``, for a call sent as expecting none) when the reply is
    not a method return.
    """
    try:
        reply = await asyncio.wait_for(bus.call(message), timeout_s)
    except TimeoutError:
        raise silent(
            f"{message.destination} did not answer {message.member} within {timeout_s:g} s"
        ) from None
    if reply is None or reply.message_type == MessageType.ERROR:
        raise refused(f"{reply.error_name}: {reply.body}" if reply else "no reply")
    return reply
