"""Key chords become the keyboard events a US keyboard would produce."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.cdp.input import CTRL, SHIFT, key_events, mouse_events, parse_chord
from actui.errors import UnknownKey
from actui.tools.contract import chord_names


def test_enter_types_a_carriage_return() -> None:
    down, up = key_events(parse_chord(["Enter"]))
    assert (down["type"], down["key"], down["code"], down["windowsVirtualKeyCode"]) == (
        "keyDown",
        "Enter",
        "Enter",
        13,
    )
    assert down["text"] == "\r" and up["type"] == "keyUp"


def test_ctrl_a_holds_control_around_a_without_text() -> None:
    events = key_events(parse_chord(["ctrl", "a"]))
    assert [e["key"] for e in events] == ["Control", "a", "a", "Control"]
    assert [e["type"] for e in events] == ["rawKeyDown", "rawKeyDown", "keyUp", "keyUp"]
    assert events[1]["modifiers"] == CTRL and "text" not in events[1]
    assert events[-1]["modifiers"] == 0


def test_plus_joined_chords_and_shifted_symbols() -> None:
    assert parse_chord(chord_names(["ctrl+shift+Tab"])).mask == CTRL | SHIFT
    chord = parse_chord(["!"])
    assert chord.mask == SHIFT
    main = key_events(chord)[1]
    assert (main["key"], main["code"], main["text"]) == ("!", "Digit1", "!")
    assert parse_chord(chord_names(["ctrl++"])).main is not None


def test_uppercase_letter_implies_shift_and_types_it() -> None:
    main = key_events(parse_chord(["Z"]))[1]
    assert (main["key"], main["code"], main["text"], main["modifiers"]) == ("Z", "KeyZ", "Z", SHIFT)


@pytest.mark.parametrize(
    ("name", "code", "key_code"),
    [
        ("Tab", "Tab", 9),
        ("esc", "Escape", 27),
        ("Backspace", "Backspace", 8),
        ("Delete", "Delete", 46),
        ("ArrowLeft", "ArrowLeft", 37),
        ("down", "ArrowDown", 40),
        ("Home", "Home", 36),
        ("End", "End", 35),
        ("PageUp", "PageUp", 33),
        ("PageDown", "PageDown", 34),
        ("F1", "F1", 112),
        ("F12", "F12", 123),
    ],
)
def test_named_keys_have_real_codes(name: str, code: str, key_code: int) -> None:
    main = key_events(parse_chord([name]))[0]
    assert (main["code"], main["windowsVirtualKeyCode"]) == (code, key_code)


def test_a_key_the_page_keyboard_lacks_is_an_unknown_key_naming_it() -> None:
    with pytest.raises(UnknownKey) as raised:
        parse_chord(["ctrl", "hyper"])
    assert raised.value.key == "hyper"
    assert "F1–F24" in raised.value.message
    with pytest.raises(UnknownKey):
        parse_chord(["é"])  # the US layout has no key for it


@given(
    st.sampled_from(list("abcXYZ019!@#-=[];',./`~")),
    st.lists(st.sampled_from(["ctrl", "shift", "alt", "meta"]), max_size=4),
)
def test_every_chord_releases_what_it_presses(char: str, modifiers: list[str]) -> None:
    events = key_events(parse_chord([*modifiers, char]))
    downs = [str(e["code"]) for e in events if e["type"] != "keyUp"]
    ups = [str(e["code"]) for e in events if e["type"] == "keyUp"]
    assert sorted(downs) == sorted(ups) and events[-1]["modifiers"] == 0


def test_double_click_counts_up() -> None:
    events = mouse_events(10, 20, click_count=2)
    assert [e.get("clickCount") for e in events[1:]] == [1, 1, 2, 2]
