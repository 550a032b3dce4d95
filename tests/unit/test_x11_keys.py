"""Key names, characters and typing plans for XTEST (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.x11.keys import (
    Keymap,
    chord_keysyms,
    keysym_for_char,
    keysym_for_name,
    plan_typing,
)
from actui.errors import UnknownKey, UnsupportedAction
from actui.tools.contract import chord_names

# A small US-like keymap: keycode 10 = 1/!, 24 = q/Q, 38 = a/A, 50 = Shift_L, 36 = Return.
ROWS = {10: (0x31, 0x21), 24: (0x71, 0x51), 38: (0x61, 0x41), 50: (0xFFE1, 0), 36: (0xFF0D, 0)}
SPARE = (90, 91, 92)


def keymap(spare: tuple[int, ...] = SPARE) -> Keymap:
    first, last = 8, 100
    rows = []
    for code in range(first, last + 1):
        if code in ROWS:
            rows.append(ROWS[code] + (0,) * 5)
        elif code in spare:
            rows.append((0,) * 7)
        else:
            rows.append((0xFE00 + code,) * 7)  # something unrelated, not free
    return Keymap(first, tuple(rows))


def test_f12_is_0xffc9() -> None:
    assert keysym_for_name("F12") == 0xFFC9


def test_function_keys_go_up_to_f35_only() -> None:
    assert keysym_for_name("f35") == 0xFFBE + 34
    with pytest.raises(UnknownKey):
        keysym_for_name("f36")


def test_contract_key_names_map_to_x_keysyms() -> None:
    assert chord_keysyms(["ctrl", "shift", "t"]) == [0xFFE3, 0xFFE1, ord("t")]
    assert chord_keysyms(chord_names(["Ctrl+A"])) == [0xFFE3, ord("a")]
    assert keysym_for_name("esc") == keysym_for_name("escape") == 0xFF1B
    assert keysym_for_name("pagedown") == 0xFF56


def test_a_key_the_x_keyboard_lacks_is_an_unknown_key_naming_it() -> None:
    with pytest.raises(UnknownKey) as raised:
        chord_keysyms(["ctrl", "hyperdrive"])
    assert raised.value.key == "hyperdrive"
    assert "f1–f35" in raised.value.message


def test_latin1_characters_are_their_code_point_and_others_unicode_keysyms() -> None:
    assert keysym_for_char("!") == 0x21
    assert keysym_for_char("é") == 0xE9
    assert keysym_for_char("Ω") == 0x10003A9
    assert keysym_for_char("中") == 0x1004E2D
    assert keysym_for_char("\n") == 0xFF0D


def test_control_characters_cannot_be_typed() -> None:
    with pytest.raises(UnsupportedAction) as raised:
        keysym_for_char("\x07")
    assert raised.value.what == "the control character U+0007"


def test_shifted_characters_use_the_base_key_with_shift() -> None:
    (segment,) = plan_typing([ord("A"), ord("!"), ord("a")], keymap())
    assert segment.bindings == ()
    assert [(s.keycode, s.shift) for s in segment.strokes] == [(38, True), (10, True), (38, False)]


def test_missing_characters_share_one_spare_keycode_per_distinct_character() -> None:
    text = "ΩaΩ✓"
    (segment,) = plan_typing([keysym_for_char(c) for c in text], keymap())
    assert dict(segment.bindings) == {90: 0x10003A9, 91: 0x1002713}
    assert [s.keycode for s in segment.strokes] == [90, 38, 90, 91]


def test_more_distinct_missing_characters_than_spare_keycodes_split_into_segments() -> None:
    text = "αβγδ"
    segments = plan_typing([keysym_for_char(c) for c in text], keymap())
    assert [len(s.bindings) for s in segments] == [3, 1]


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x3000), max_size=60))
def test_every_planned_stroke_produces_the_intended_keysym(text: str) -> None:
    text = "".join(c for c in text if not 0x7F <= ord(c) < 0xA0)
    wanted = [keysym_for_char(c) for c in text]
    produced = []
    km = keymap()
    for segment in plan_typing(wanted, km):
        bound = dict(segment.bindings)
        assert len(bound) <= len(SPARE)
        for stroke in segment.strokes:
            if stroke.keycode in bound:
                produced.append(bound[stroke.keycode])
            else:
                row = km.rows[stroke.keycode - km.min_keycode]
                produced.append(row[1 if stroke.shift else 0])
    assert produced == wanted
