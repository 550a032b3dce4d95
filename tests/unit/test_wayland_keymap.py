"""Keymaps for the Wayland virtual keyboard: one key per character, named keys in place (pure)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.wayland.keymap import (
    BASE_LAYOUT,
    EVDEV_OFFSET,
    NAMED_POSITION,
    PRINTABLE,
    SPACE,
    US_POSITION,
    keymap_text,
    lost_by_keys,
    modifier_mask,
    plan_chord,
    plan_text,
)
from actui.backends.x11.keys import keysym_for_char
from actui.errors import UnknownKey, UnsupportedAction

TYPABLE = st.characters(
    blacklist_categories=("Cs", "Cc"), blacklist_characters="\x7f"
) | st.sampled_from("\n\t ")


@given(st.text(TYPABLE, max_size=300))
def test_every_text_types_as_its_own_keysyms_in_order(text: str) -> None:
    batches = plan_text(text)
    typed = [dict(b.layout)[key] for b in batches for key in b.keys]
    assert typed == [keysym_for_char(c) for c in text]
    assert sum(b.chars for b in batches) == len(text)


@given(st.text(TYPABLE, max_size=300))
def test_a_batch_puts_characters_only_on_printable_positions_once_each(text: str) -> None:
    for batch in plan_text(text):
        layout = dict(batch.layout)
        assert len(set(layout.values())) == len(layout)
        for key, keysym in layout.items():
            assert key in PRINTABLE or NAMED_POSITION.get(keysym) == key


def test_more_distinct_characters_than_positions_split_into_batches() -> None:
    text = "".join(chr(0x4E00 + i) for i in range(len(PRINTABLE) * 2 + 3))
    batches = plan_text(text)
    assert [b.chars for b in batches] == [len(PRINTABLE), len(PRINTABLE), 3]


def test_ascii_letters_and_digits_keep_their_us_positions() -> None:
    (batch,) = plan_text("hello 42")
    layout = dict(batch.layout)
    assert layout[US_POSITION["h"]] == ord("h") and layout[US_POSITION["4"]] == ord("4")
    assert batch.keys[5] == SPACE


def test_enter_and_tab_are_typed_on_their_real_keys() -> None:
    (batch,) = plan_text("a\nb\t")
    assert batch.keys[1] == NAMED_POSITION[0xFF0D] == 28
    assert batch.keys[3] == NAMED_POSITION[0xFF09] == 15


def test_a_chord_uses_the_base_layout_with_modifiers_in_the_mask() -> None:
    batch = plan_chord(["ctrl", "shift", "a"])
    assert batch.layout == BASE_LAYOUT
    assert batch.keys == (29, 42, US_POSITION["a"])
    held = [dict(batch.layout)[k] for k in batch.keys]
    assert modifier_mask(held) == 4 | 1


def test_an_unknown_key_name_is_named() -> None:
    with pytest.raises(UnknownKey):
        plan_chord(["ctrl", "hyperspace"])


def test_a_chord_with_a_character_the_base_layout_lacks_is_refused() -> None:
    with pytest.raises(UnsupportedAction):
        plan_chord(["ctrl", "é"])


def test_control_characters_have_no_key() -> None:
    with pytest.raises(UnsupportedAction):
        plan_text("a\x01")


@given(st.text(TYPABLE, max_size=80))
def test_the_keymap_text_declares_every_key_once_with_one_symbol(text: str) -> None:
    for batch in plan_text(text) or [plan_chord(["enter"])]:
        keymap = batch.keymap()
        codes = re.findall(r"<K(\d+)> = (\d+);", keymap)
        assert all(a == b for a, b in codes)
        declared = {int(a) - EVDEV_OFFSET for a, _ in codes}
        assert len(declared) == len(codes)
        assert set(dict(batch.layout)) <= declared
        assert set(NAMED_POSITION.values()) <= declared
        assert len(re.findall(r"key <K\d+> \{ \[ [^\]]+ \] \};", keymap)) == len(codes)


def test_the_keymap_names_characters_as_unicode_keysyms_and_maps_modifiers() -> None:
    text = keymap_text({2: 0x010003A9, 3: ord("a")})
    assert "key <K10> { [ U03A9 ] };" in text and "key <K11> { [ U0061 ] };" in text
    assert "modifier_map Control { <K37> };" in text
    assert "modifier_map Shift { <K50> };" in text


def test_only_a_truncating_toolkit_loses_characters_outside_the_bmp() -> None:
    assert lost_by_keys("ab😀c😀🎉", "Chromium 120") == "😀🎉"
    assert lost_by_keys("Ωmega – 42 ✓ é ß 中", "Chromium 120") == ""
    assert lost_by_keys("ab😀", "GTK 3.24.38") == ""
