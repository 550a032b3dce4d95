"""Where typed keys go and what the field there holds: the focus tracker and field reads.

Physical typing is aimed at whatever has the keyboard focus; to know whether the keys
arrived, the runtime needs that element and its text before and after. This module owns
following focus per application (``StateChanged:focused`` events, plus the elements actui
itself just focused, which announce nothing when they already had focus) and reading a
field's text, caret and selection, a password field's as bullets only. It must not send
input or judge outcomes.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from dbus_fast import Message

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.reader import IFACE_PREFIX, read_basics, read_text
from actui.errors import ActuiError

TEXT = IFACE_PREFIX + "Text"
BULLET = "\u25cf"
MAX_FIELD_CHARS = 1 << 20


@dataclass(frozen=True)
class FieldText:
    """A text field's content (bullets for a password field) and where typing lands."""

    text: str
    start: int
    """Where typed text goes: the selection's start, else the caret."""
    end: int
    """The end of the selection that typing replaces (``start`` without one)."""
    secure: bool
    editable: bool

    def after_typing(self, typed: str) -> str:
        """The text once ``typed`` has arrived at the caret, replacing the selection."""
        shown = BULLET * len(typed) if self.secure else typed
        return self.text[: self.start] + shown + self.text[self.end :]


RECENT = 8
"""Elements that took the focus kept per application, so that the one that has it can be
told from them (``AtspiBackend.focused_element``): LibreOffice announces its root pane
taking the focus when a menu command ends, and nothing when the page's paragraph has it
again, where the keys typed next go (``atspi.pages``)."""


class FocusTracker:
    """The elements of each application that last took the keyboard focus, as its events
    (and actui's focusing) said, newest first."""

    def __init__(self) -> None:
        self._recent: dict[str, list[str]] = {}

    def on_signal(self, message: Message) -> None:
        if message.member != "StateChanged" or not message.body or message.body[0] != "focused":
            return
        sender, path = str(message.sender or ""), str(message.path or "")
        if int(message.body[1]):
            self._took(sender, path)
        elif path in self._recent.get(sender, ()):
            self._recent[sender].remove(path)

    def _took(self, app_bus: str, path: str) -> None:
        recent = [p for p in self._recent.get(app_bus, ()) if p != path]
        self._recent[app_bus] = [*recent[-(RECENT - 1) :], path]

    def note(self, native_id: str) -> None:
        """actui just focused ``native_id`` (it may have been focused already, silently)."""
        with contextlib.suppress(ActuiError):
            at = Address.parse(native_id)
            self._took(at.bus, at.path)

    def recent(self, app_bus: str) -> tuple[str, ...]:
        """The elements that took the focus and have not announced losing it, newest first."""
        paths = reversed(self._recent.get(app_bus, ()))
        return tuple(Address(app_bus, path).native_id for path in paths)


async def read_length(bus: AtspiBus, native_id: str) -> int:
    """How many characters the field holds: one call, for waiting on a long text."""
    at = Address.parse(native_id)
    return await bus.get_int(at.bus, at.path, TEXT, "CharacterCount")


async def read_field(bus: AtspiBus, native_id: str) -> FieldText | None:
    """The field's text and typing position; None when it is no focused text element."""
    at = Address.parse(native_id)
    basics = await read_basics(bus, at)
    if "Text" not in basics.interfaces or "focused" not in basics.states:
        return None
    if basics.secure:
        count = await bus.get_int(at.bus, at.path, TEXT, "CharacterCount")
        text = BULLET * count
    else:
        text, count = await read_text(bus, at, 0, MAX_FIELD_CHARS)
    caret = await bus.get_int(at.bus, at.path, TEXT, "CaretOffset")
    start = end = caret if 0 <= caret <= count else count
    (selections,) = await bus.call(at.bus, at.path, TEXT, "GetNSelections")
    if int(selections) > 0:
        selection = await bus.call(at.bus, at.path, TEXT, "GetSelection", "i", (0,))
        low, high = int(selection[0]), int(selection[1])
        if 0 <= low < high <= count:
            start, end = low, high
    editable = (
        "EditableText" in basics.interfaces
        and "editable" in basics.states
        and "read_only" not in basics.states
    )
    return FieldText(text, start, end, basics.secure, editable)
