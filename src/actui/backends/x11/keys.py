"""Key names, characters and keymaps: what to press for a chord or a text (pure).

Owns the mapping from the contract's key names and from any Unicode character
to X keysyms, and the plan that turns keysyms into keycode strokes on a given
keymap, binding characters the keymap lacks to spare keycodes. It must not
talk to the X server: :mod:`~actui.backends.x11.input` reads the keymap,
applies the bindings and sends the strokes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from actui.errors import UnknownKey, UnsupportedAction

XK_SHIFT_L = 0xFFE1
XK_RETURN = 0xFF0D
XK_TAB = 0xFF09
XK_F1 = 0xFFBE
MAX_FUNCTION_KEY = 35
UNICODE_KEYSYM_BASE = 0x01000000

KEY_NAMES: dict[str, int] = {
    "enter": XK_RETURN,
    "return": XK_RETURN,
    "tab": XK_TAB,
    "escape": 0xFF1B,
    "esc": 0xFF1B,
    "backspace": 0xFF08,
    "delete": 0xFFFF,
    "del": 0xFFFF,
    "insert": 0xFF63,
    "space": 0x0020,
    "left": 0xFF51,
    "up": 0xFF52,
    "right": 0xFF53,
    "down": 0xFF54,
    "arrowleft": 0xFF51,
    "arrowup": 0xFF52,
    "arrowright": 0xFF53,
    "arrowdown": 0xFF54,
    "home": 0xFF50,
    "end": 0xFF57,
    "pageup": 0xFF55,
    "pagedown": 0xFF56,
    "ctrl": 0xFFE3,
    "control": 0xFFE3,
    "shift": XK_SHIFT_L,
    "alt": 0xFFE9,
    "option": 0xFFE9,
    "meta": 0xFFEB,
    "super": 0xFFEB,
    "cmd": 0xFFEB,
    "command": 0xFFEB,
    "win": 0xFFEB,
}
"""The contract's key names (lowercase); ``f1``…``f35`` and single characters are handled apart."""


def keysym_for_char(char: str) -> int:
    """The keysym that types ``char``: Latin-1 is its code point, the rest Unicode keysyms."""
    if char == "\n":
        return XK_RETURN
    if char == "\t":
        return XK_TAB
    code = ord(char)
    if code < 0x20 or 0x7F <= code < 0xA0:
        raise UnsupportedAction(
            f"the control character U+{code:04X}", "has no key to type it", instead="text_field"
        )
    if code <= 0xFF:
        return code
    return UNICODE_KEYSYM_BASE + code


def keysym_for_name(name: str) -> int:
    """One chord key: a name from :data:`KEY_NAMES`, ``f1``–``f35``, or one character."""
    lowered = name.strip().lower() if len(name) > 1 else name.lower()
    if lowered in KEY_NAMES:
        return KEY_NAMES[lowered]
    if len(lowered) > 1 and lowered[0] == "f" and lowered[1:].isdigit():
        number = int(lowered[1:])
        if 1 <= number <= MAX_FUNCTION_KEY:
            return XK_F1 + number - 1
    if len(lowered) == 1:
        return keysym_for_char(lowered)
    raise UnknownKey(name, KNOWN_EXAMPLES)


KNOWN_EXAMPLES = (
    "enter, tab, escape, backspace, delete, space",
    "left/up/right/down",
    "home, end, pageup, pagedown",
    "f1–f35",
)
"""The key names an unknown key's error offers."""


def chord_keysyms(names: Sequence[str]) -> list[int]:
    """The keysyms of a chord's key names (the contract split them), pressed in order."""
    return [keysym_for_name(name) for name in names]


@dataclass(frozen=True)
class Keymap:
    """The server's core keymap: the keysyms of each keycode from ``min_keycode``."""

    min_keycode: int
    rows: tuple[tuple[int, ...], ...]

    def find(self, keysym: int) -> tuple[int, bool] | None:
        """(keycode, needs Shift) of a key producing ``keysym`` unshifted or shifted."""
        for level in (0, 1):
            for offset, row in enumerate(self.rows):
                if len(row) > level and row[level] == keysym:
                    return self.min_keycode + offset, level == 1
        return None

    def spare(self) -> list[int]:
        """Keycodes with no keysym at all, free for temporary bindings."""
        return [self.min_keycode + i for i, row in enumerate(self.rows) if not any(row)]


@dataclass(frozen=True)
class Stroke:
    keycode: int
    shift: bool


@dataclass(frozen=True)
class Segment:
    """Strokes to send while ``bindings`` (keycode, keysym) are in place."""

    bindings: tuple[tuple[int, int], ...]
    strokes: tuple[Stroke, ...]


def plan_typing(keysyms: Sequence[int], keymap: Keymap) -> list[Segment]:
    """Split the keysyms into segments whose missing keysyms fit the spare keycodes.

    Every distinct missing keysym of a segment gets its own spare keycode, all
    bound before the segment is typed and restored after the application has
    caught up: apps read a new mapping lazily, so re-binding a keycode while
    its earlier press is still queued would change text already typed.
    """
    spare = keymap.spare()
    segments: list[Segment] = []
    bindings: dict[int, int] = {}
    strokes: list[Stroke] = []
    for keysym in keysyms:
        found = keymap.find(keysym)
        if found is not None:
            strokes.append(Stroke(found[0], found[1]))
            continue
        if keysym not in bindings and len(bindings) == len(spare):
            if not spare:
                raise UnsupportedAction(
                    f"keysym {keysym:#x}",
                    "is not on the keyboard and no spare keycode is free to bind it",
                    instead="text_field",
                )
            segments.append(Segment(tuple((kc, ks) for ks, kc in bindings.items()), tuple(strokes)))
            bindings, strokes = {}, []
        if keysym not in bindings:
            bindings[keysym] = spare[len(bindings)]
        strokes.append(Stroke(bindings[keysym], False))
    if strokes:
        segments.append(Segment(tuple((kc, ks) for ks, kc in bindings.items()), tuple(strokes)))
    return segments
