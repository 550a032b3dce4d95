"""XKB keymaps for a virtual keyboard: one key for every character to type (pure).

A Wayland virtual keyboard brings its own keymap, and the compositor passes it
to the focused application ahead of the keys, in order: so any text types
exactly if each of its characters has a key of its own in the keymap sent just
before. This module owns that plan: named keys (Return, the arrows, the
modifiers) at their real evdev positions, characters on the printable
positions (a lowercase letter or a digit at its US position when free), split
into batches when a text has more distinct characters than there are
positions, and the keymap text of each batch. Only printable positions carry
characters: Chromium reads some keycodes by their physical meaning (Escape,
Backspace) whatever the keymap says, and truncates a keysym outside the BMP
to 16 bits (😀, U+1F600, arrives as U+F600), so such a character is not typed
into it at all (:func:`lost_by_keys`). It must not talk to a compositor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from actui.backends.x11.keys import keysym_for_char, keysym_for_name
from actui.errors import UnsupportedAction

EVDEV_OFFSET = 8
"""XKB keycode = evdev key code + 8."""
PRINTABLE = (*range(2, 12), *range(16, 26), *range(30, 39), *range(44, 51))
"""The evdev positions of the main block's letter and digit keys: free for any character."""
SPACE = 57
_US = "1234567890qwertyuiopasdfghjklzxcvbnm"
US_POSITION = dict(zip(_US, PRINTABLE, strict=True))
NAMED_POSITION: dict[int, int] = {
    0xFF1B: 1,  # Escape
    0xFF08: 14,  # BackSpace
    0xFF09: 15,  # Tab
    0xFF0D: 28,  # Return
    0xFFE3: 29,  # Control_L
    0xFFE1: 42,  # Shift_L
    0xFFE9: 56,  # Alt_L
    0x0020: SPACE,
    0xFF50: 102,  # Home
    0xFF52: 103,  # Up
    0xFF55: 104,  # Prior
    0xFF51: 105,  # Left
    0xFF53: 106,  # Right
    0xFF57: 107,  # End
    0xFF54: 108,  # Down
    0xFF56: 109,  # Next
    0xFF63: 110,  # Insert
    0xFFFF: 111,  # Delete
    0xFFEB: 125,  # Super_L
    **{0xFFBE + n: 59 + n for n in range(10)},  # F1–F10
    0xFFC8: 87,  # F11
    0xFFC9: 88,  # F12
    **{0xFFCA + n: 183 + n for n in range(12)},  # F13–F24
    **{0xFFD6 + n: 195 + n for n in range(11)},  # F25–F35 (no real key: unused codes)
}
MODIFIERS = {
    0xFFE1: ("Shift", 1),
    0xFFE3: ("Control", 4),
    0xFFE9: ("Mod1", 8),
    0xFFEB: ("Mod4", 64),
}
"""Modifier keysyms: their XKB modifier and its mask bit in the ``modifiers`` request."""
TRUNCATING = ("chromium",)
"""Toolkits (AT-SPI's name, lowercased) that read a keysym outside the BMP truncated."""


@dataclass(frozen=True)
class Batch:
    """Keys to press while ``layout`` (evdev key → keysym) is the keymap, in order.

    ``chars`` is how many characters of the text the batch types (0 for a chord).
    """

    layout: tuple[tuple[int, int], ...]
    keys: tuple[int, ...]
    chars: int = 0

    def keymap(self) -> str:
        return keymap_text(dict(self.layout))


def plan_text(text: str) -> list[Batch]:
    """Batches that type ``text``, each with at most one key per printable position."""
    batches: list[Batch] = []
    layout: dict[int, int] = {}
    keys: list[int] = []
    count = 0
    for char in text:
        keysym = keysym_for_char(char)
        key = _placed(layout, keysym)
        if key is None:
            batches.append(Batch(tuple(layout.items()), tuple(keys), count))
            layout, keys, count = {}, [], 0
            key = _placed(layout, keysym)
            assert key is not None
        keys.append(key)
        count += 1
    if keys:
        batches.append(Batch(tuple(layout.items()), tuple(keys), count))
    return batches


def lost_by_keys(text: str, toolkit: str) -> str:
    """The characters of ``text`` that ``toolkit`` would receive wrong from keys, each once:
    those outside the BMP, for a toolkit that truncates their keysyms."""
    if not toolkit.strip().lower().startswith(TRUNCATING):
        return ""
    return "".join(dict.fromkeys(char for char in text if ord(char) > 0xFFFF))


def plan_chord(names: Sequence[str]) -> Batch:
    """The batch of one chord: its keys pressed in order (released in reverse by the sender),
    on the base layout (a letter of a shortcut at its US position).

    Raises :class:`actui.errors.UnknownKey` for a name no key has.
    """
    layout = dict(BASE_LAYOUT)
    keys = []
    for name in names:
        key = _placed(layout, keysym_for_name(name))
        if key is None:
            raise UnsupportedAction(f"the key {name!r}", "has no place on the keyboard in a chord")
        keys.append(key)
    return Batch(tuple(layout.items()), tuple(keys))


def _placed(layout: dict[int, int], keysym: int) -> int | None:
    """The evdev key of ``keysym`` in ``layout``, placed there if new; None when it is full."""
    for key, placed in layout.items():
        if placed == keysym:
            return key
    char = chr(keysym) if keysym < 0x80 else ""
    key = NAMED_POSITION.get(keysym, US_POSITION.get(char, 0))
    if not key or (key in layout and keysym not in NAMED_POSITION):
        key = next((k for k in PRINTABLE if k not in layout), 0)
    if not key or key in layout:
        return None
    layout[key] = keysym
    return key


BASE_LAYOUT: tuple[tuple[int, int], ...] = tuple(
    sorted(
        {
            **{k: s for s, k in NAMED_POSITION.items()},
            **{k: ord(c) for c, k in US_POSITION.items()},
        }.items()
    )
)
"""The keymap between texts: the named keys and the US letters and digits, where toolkits
expect them (GTK matches its key bindings, Return included, against the keymap it saw first)."""


def keymap_text(layout: dict[int, int]) -> str:
    """An XKB keymap with these keys (and every named key), each one keysym on one level."""
    layout = {**{k: s for s, k in NAMED_POSITION.items()}, **layout}
    codes = "\n".join(f"    <K{k + EVDEV_OFFSET}> = {k + EVDEV_OFFSET};" for k in sorted(layout))
    symbols = "\n".join(
        f"    key <K{k + EVDEV_OFFSET}> {{ [ {_keysym_name(layout[k])} ] }};"
        for k in sorted(layout)
    )
    modifiers = "\n".join(
        f"    modifier_map {MODIFIERS[s][0]} {{ <K{k + EVDEV_OFFSET}> }};"
        for k, s in sorted(layout.items())
        if s in MODIFIERS
    )
    return (
        "xkb_keymap {\n"
        'xkb_keycodes "actui" {\n    minimum = 8;\n    maximum = 255;\n'
        f"{codes}\n}};\n"
        'xkb_types "actui" { include "complete" };\n'
        'xkb_compatibility "actui" { include "complete" };\n'
        f'xkb_symbols "actui" {{\n{symbols}\n{modifiers}\n}};\n'
        "};\n"
    )


def modifier_mask(keysyms: Sequence[int]) -> int:
    """The ``modifiers`` request's depressed mask while these keysyms are held."""
    mask = 0
    for keysym in keysyms:
        if keysym in MODIFIERS:
            mask |= MODIFIERS[keysym][1]
    return mask


def _keysym_name(keysym: int) -> str:
    """XKB's name of a keysym: ``U20AC`` for characters, hex for the rest."""
    if 0x20 <= keysym <= 0xFF:
        return f"U{keysym:04X}"
    if keysym > 0x01000000:
        return f"U{keysym - 0x01000000:04X}"
    return f"0x{keysym:08x}"
