"""Pure logic of the AT-SPI backend: state bits, roles, ids, caps, window pairing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.address import Address
from actui.backends.atspi.caps import derive_caps, normalize_action, press_index
from actui.backends.atspi.roots import root_kind
from actui.backends.atspi.tables import STATE_NAMES, role_name, state_names
from actui.backends.atspi.window_origin import XWindow, choose_window, content_offset
from actui.backends.base import Rect


@given(st.sets(st.integers(min_value=1, max_value=len(STATE_NAMES) - 1)))
def test_state_bits_round_trip_to_names(bits: set[int]) -> None:
    words = [0, 0]
    for bit in bits:
        words[bit // 32] |= 1 << (bit % 32)
    assert state_names(words) == {STATE_NAMES[b] for b in bits}


def test_gtk4_root_states_and_roles_read_as_names() -> None:
    assert state_names([0x43000000, 0]) == {"sensitive", "showing", "visible"}
    assert role_name(43) == "push button" and role_name(23) == "frame"
    assert role_name(999) == "role 999"


@given(
    st.from_regex(r":1\.[0-9]{1,4}", fullmatch=True),
    st.from_regex(r"(/[a-z0-9_]{1,8}){1,5}", fullmatch=True),
)
def test_native_ids_parse_back_to_the_address(bus: str, path: str) -> None:
    assert Address.parse(Address(bus, path).native_id) == Address(bus, path)


def test_press_prefers_the_reference_order_after_normalizing() -> None:
    assert press_index(["Set Focus", "Press", " CLICK "]) == 2
    assert press_index(["expand_or-contract"]) == 0
    assert press_index([]) is None
    assert normalize_action(" Expand_or-Contract ") == "expand or contract"


def test_caps_come_from_interfaces_actions_and_states() -> None:
    entry = derive_caps(
        "text",
        frozenset({"EditableText", "Text", "Component", "Action"}),
        ("activate",),
        frozenset({"focusable"}),
    )
    assert {"setText", "typeText", "press", "focus"} <= entry
    check = derive_caps("check box", frozenset({"Action"}), ("click",), frozenset())
    assert {"toggle", "press"} <= check
    bar = derive_caps("progress bar", frozenset({"Value"}), (), frozenset())
    assert "setValue" not in bar
    item = derive_caps("list item", frozenset(), (), frozenset(), parent_selects=True)
    assert item == {"select"}


def test_root_kinds_from_roles() -> None:
    assert root_kind("dialog", frozenset()) == "dialog"
    assert root_kind("window", frozenset({"popup menu"})) == "menu"
    assert root_kind("tool tip", frozenset()) == "tooltip"
    assert root_kind("frame", frozenset()) == "window"


def test_window_pairing_prefers_title_then_size_and_offsets_the_border() -> None:
    frame = Rect(0, 0, 355, 486)
    calc = XWindow(1, 7, "Calculator", Rect(457, 164, 365, 496), None)
    other = XWindow(2, 7, "Other", Rect(0, 0, 355, 486), None)
    assert choose_window([other, calc], 7, "Calculator", frame) is calc
    assert choose_window([calc], 8, "Calculator", frame) is None
    assert content_offset(calc, frame) == (462, 169)
    shadowed = XWindow(3, 7, "x", Rect(100, 100, 400, 540), (20, 20, 14, 40))
    assert content_offset(shadowed, frame) == (120, 114)
