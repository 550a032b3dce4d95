"""Key definitions (US layout) and the ``Input.dispatch*Event`` parameters they become.

Pages see CDP key events as real keyboard events, so each key needs the
``key``/``code``/``windowsVirtualKeyCode``/``text`` a physical keyboard would
produce; a chord presses modifiers first and releases them last. This module
builds event parameter dictionaries only; sending them is the caller's job.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

from actui.errors import UnknownKey

# CDP modifier bits.
ALT, CTRL, META, SHIFT = 1, 2, 4, 8


@dataclass(frozen=True)
class KeyDef:
    key: str
    code: str
    key_code: int
    text: str = ""
    shifted_key: str = ""
    location: int = 0


_MODIFIERS: dict[str, tuple[int, KeyDef]] = {
    "alt": (ALT, KeyDef("Alt", "AltLeft", 18, location=1)),
    "option": (ALT, KeyDef("Alt", "AltLeft", 18, location=1)),
    "ctrl": (CTRL, KeyDef("Control", "ControlLeft", 17, location=1)),
    "control": (CTRL, KeyDef("Control", "ControlLeft", 17, location=1)),
    "meta": (META, KeyDef("Meta", "MetaLeft", 91, location=1)),
    "super": (META, KeyDef("Meta", "MetaLeft", 91, location=1)),
    "cmd": (META, KeyDef("Meta", "MetaLeft", 91, location=1)),
    "command": (META, KeyDef("Meta", "MetaLeft", 91, location=1)),
    "win": (META, KeyDef("Meta", "MetaLeft", 91, location=1)),
    "shift": (SHIFT, KeyDef("Shift", "ShiftLeft", 16, location=1)),
}

_NAMED: dict[str, KeyDef] = {
    "enter": KeyDef("Enter", "Enter", 13, "\r"),
    "return": KeyDef("Enter", "Enter", 13, "\r"),
    "tab": KeyDef("Tab", "Tab", 9),
    "escape": KeyDef("Escape", "Escape", 27),
    "esc": KeyDef("Escape", "Escape", 27),
    "backspace": KeyDef("Backspace", "Backspace", 8),
    "delete": KeyDef("Delete", "Delete", 46),
    "del": KeyDef("Delete", "Delete", 46),
    "insert": KeyDef("Insert", "Insert", 45),
    "space": KeyDef(" ", "Space", 32, " "),
    "home": KeyDef("Home", "Home", 36),
    "end": KeyDef("End", "End", 35),
    "pageup": KeyDef("PageUp", "PageUp", 33),
    "pagedown": KeyDef("PageDown", "PageDown", 34),
    "left": KeyDef("ArrowLeft", "ArrowLeft", 37),
    "up": KeyDef("ArrowUp", "ArrowUp", 38),
    "right": KeyDef("ArrowRight", "ArrowRight", 39),
    "down": KeyDef("ArrowDown", "ArrowDown", 40),
    **{f"f{n}": KeyDef(f"F{n}", f"F{n}", 111 + n) for n in range(1, 25)},
}
for _arrow in ("left", "up", "right", "down"):
    _NAMED[f"arrow{_arrow}"] = _NAMED[_arrow]

# (unshifted, shifted, code, keyCode) for the US punctuation and digit keys.
_PRINTABLE_ROWS = (
    *((d, s, f"Digit{d}", ord(d)) for d, s in zip("1234567890", "!@#$%^&*()", strict=True)),
    ("-", "_", "Minus", 189),
    ("=", "+", "Equal", 187),
    ("[", "{", "BracketLeft", 219),
    ("]", "}", "BracketRight", 221),
    ("\\", "|", "Backslash", 220),
    (";", ":", "Semicolon", 186),
    ("'", '"', "Quote", 222),
    (",", "<", "Comma", 188),
    (".", ">", "Period", 190),
    ("/", "?", "Slash", 191),
    ("`", "~", "Backquote", 192),
)
_CHARACTERS: dict[str, tuple[KeyDef, bool]] = {}
for _lower in string.ascii_lowercase:
    _def = KeyDef(_lower, f"Key{_lower.upper()}", ord(_lower.upper()), _lower, _lower.upper())
    _CHARACTERS[_lower] = (_def, False)
    _CHARACTERS[_lower.upper()] = (_def, True)
for _plain, _shifted, _code, _kc in _PRINTABLE_ROWS:
    _def = KeyDef(_plain, _code, _kc, _plain, _shifted)
    _CHARACTERS[_plain] = (_def, False)
    _CHARACTERS[_shifted] = (_def, True)
_CHARACTERS[" "] = (_NAMED["space"], False)


@dataclass(frozen=True)
class Chord:
    """Modifier keys held (in order) around one main key."""

    modifiers: tuple[KeyDef, ...]
    mask: int
    main: KeyDef | None


def parse_chord(names: Sequence[str]) -> Chord:
    """``("ctrl", "a")``, ``("ctrl", "shift", "Tab")`` or ``("Enter",)`` → one chord.

    The names come split and checked by the contract (one main key at most); an
    uppercase letter or shifted symbol implies Shift. A name this keyboard has
    no key for raises :class:`UnknownKey`.
    """
    modifiers: list[KeyDef] = []
    mask = 0
    main: KeyDef | None = None
    for name in names:
        lowered = name.lower()
        if lowered in _MODIFIERS:
            bit, definition = _MODIFIERS[lowered]
            if not mask & bit:
                modifiers.append(definition)
                mask |= bit
            continue
        main, shift = _main_key(name)
        if shift and not mask & SHIFT:
            modifiers.append(_MODIFIERS["shift"][1])
            mask |= SHIFT
    return Chord(tuple(modifiers), mask, main)


KNOWN_EXAMPLES = (
    "Enter, Tab, Escape, Backspace, Delete, Space",
    "ArrowUp/ArrowDown/ArrowLeft/ArrowRight",
    "Home, End, PageUp, PageDown",
    "F1–F24",
)
"""The key names an unknown key's error offers (single characters: the US layout's)."""


def _main_key(name: str) -> tuple[KeyDef, bool]:
    if name in _CHARACTERS:
        return _CHARACTERS[name]
    named = _NAMED.get(name.lower().replace("_", "").replace(" ", ""))
    if named is not None:
        return named, False
    raise UnknownKey(name, KNOWN_EXAMPLES)


def key_events(chord: Chord) -> list[dict[str, object]]:
    """The keyDown/keyUp sequence for ``Input.dispatchKeyEvent``, in order."""
    events: list[dict[str, object]] = []
    held = 0
    for definition, bit in zip(chord.modifiers, _bits(chord.modifiers), strict=True):
        held |= bit
        events.append(_key_event("rawKeyDown", definition, held, text=""))
    if chord.main is not None:
        main = chord.main
        shifted = bool(chord.mask & SHIFT) and bool(main.shifted_key)
        key = main.shifted_key if shifted else main.key
        # Text only when the chord types something (Shift alone still types).
        text = ""
        if main.text and not chord.mask & (CTRL | ALT | META):
            text = "\r" if main.text == "\r" else key
        down_type = "keyDown" if text else "rawKeyDown"
        events.append(_key_event(down_type, main, chord.mask, text=text, key=key))
        events.append(_key_event("keyUp", main, chord.mask, text="", key=key))
    for definition, bit in reversed(
        list(zip(chord.modifiers, _bits(chord.modifiers), strict=True))
    ):
        held &= ~bit
        events.append(_key_event("keyUp", definition, held, text=""))
    return events


def _bits(modifiers: Sequence[KeyDef]) -> list[int]:
    by_key = {definition.key: bit for bit, definition in _MODIFIERS.values()}
    return [by_key[m.key] for m in modifiers]


def _key_event(
    kind: str, definition: KeyDef, modifiers: int, *, text: str, key: str = ""
) -> dict[str, object]:
    event: dict[str, object] = {
        "type": kind,
        "modifiers": modifiers,
        "key": key or definition.key,
        "code": definition.code,
        "windowsVirtualKeyCode": definition.key_code,
        "nativeVirtualKeyCode": definition.key_code,
        "location": definition.location,
    }
    if text:
        event["text"] = text
        event["unmodifiedText"] = text
    return event


def mouse_events(
    x: float, y: float, *, button: str = "left", click_count: int = 1
) -> list[dict[str, object]]:
    """Move, then press/release ``click_count`` times with rising click counts."""
    events: list[dict[str, object]] = [{"type": "mouseMoved", "x": x, "y": y}]
    buttons = {"left": 1, "right": 2, "middle": 4}.get(button, 1)
    for count in range(1, click_count + 1):
        for kind in ("mousePressed", "mouseReleased"):
            events.append(
                {
                    "type": kind,
                    "x": x,
                    "y": y,
                    "button": button,
                    "buttons": buttons if kind == "mousePressed" else 0,
                    "clickCount": count,
                }
            )
    return events
