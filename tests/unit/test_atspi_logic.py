"""Pure logic of the AT-SPI backend: state bits, roles, ids, caps, names, mirrors, pairing."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from dbus_fast import Message, MessageType, Variant
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import REGISTRY, AtspiBus, registry_owned
from actui.backends.atspi.caps import (
    action_may_hold_call,
    derive_caps,
    normalize_action,
    press_index,
)
from actui.backends.atspi.changes import OBJECT_EVENTS, WINDOW_EVENTS, ChangeCounters, concerned
from actui.backends.atspi.events import evidence_label
from actui.backends.atspi.gecko import closed_popup, ignores_editable_text
from actui.backends.atspi.mirror import (
    Assembled,
    Mirrors,
    NodeRecord,
    Reuse,
    mirrored,
    remembered,
)
from actui.backends.atspi.names import clean_name
from actui.backends.atspi.reader import VALUE_CAP, Basics, Details, text_head_from
from actui.backends.atspi.roots import RootLister, keeps_roots, root_kind, touches_roots
from actui.backends.atspi.scrollbars import Bar, wheel_target
from actui.backends.atspi.snapshot import index_cache
from actui.backends.atspi.tables import STATE_NAMES, role_name, state_names
from actui.backends.atspi.window_origin import WindowOrigins, choose_window, content_offset
from actui.backends.base import RawNode, Rect
from actui.backends.x11.ewmh import XWindow
from actui.errors import TargetGone


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


@pytest.mark.parametrize("reply", [None, 7, ":1.2/a", [":1.2"], (":1.2", "/a", "/b")])
def test_a_reply_that_is_no_bus_path_pair_reads_as_gone_not_as_an_address(reply: object) -> None:
    assert Address.of([":1.2", "/a"]) == Address.of((":1.2", "/a")) == Address(":1.2", "/a")
    with pytest.raises(TargetGone):
        Address.of(reply)


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
        frozenset({"focusable", "editable"}),
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


def _x_window(
    window_id: int, title: str, frame: Rect, shadow: tuple[int, int, int, int] | None = None
) -> XWindow:
    return XWindow(
        window_id, 7, title, ("", ""), frame, (0, 0, 0, 0), 0, False, False, False, None, shadow
    )


def test_window_pairing_prefers_title_then_size_and_offsets_the_border() -> None:
    frame = Rect(0, 0, 355, 486)
    calc = _x_window(1, "Calculator", Rect(457, 164, 365, 496))
    other = _x_window(2, "Other", Rect(0, 0, 355, 486))
    assert choose_window([other, calc], 7, "Calculator", frame) is calc
    assert choose_window([calc], 8, "Calculator", frame) is None
    assert content_offset(calc, frame) == (462, 169)
    shadowed = _x_window(3, "x", Rect(100, 100, 400, 540), (20, 20, 14, 40))
    assert content_offset(shadowed, frame) == (120, 114)


def _signal(
    sender: str, interface: str, member: str, signature: str, body: list[object]
) -> Message:
    return Message(
        message_type=MessageType.SIGNAL,
        sender=sender,
        path="/org/a11y/atspi/accessible/root",
        interface=interface,
        member=member,
        signature=signature,
        body=body,
    )


def test_events_are_credited_to_their_app_and_registry_news_to_the_announced_app() -> None:
    text = _signal(
        ":1.5", OBJECT_EVENTS, "TextChanged", "siiva{sv}", ["insert", 0, 2, Variant("s", "hi"), {}]
    )
    assert concerned(text) == (":1.5",)
    child = Variant("(so)", [":1.9", "/org/a11y/atspi/accessible/root"])
    arrived = _signal(
        ":1.1", OBJECT_EVENTS, "ChildrenChanged", "siiva{sv}", ["add", 3, 0, child, {}]
    )
    assert concerned(arrived) == (":1.1", ":1.9")
    gone = _signal(
        "org.freedesktop.DBus",
        "org.freedesktop.DBus",
        "NameOwnerChanged",
        "sss",
        [":1.9", ":1.9", ""],
    )
    assert concerned(gone) == (":1.9",)
    joined = _signal(
        "org.freedesktop.DBus",
        "org.freedesktop.DBus",
        "NameOwnerChanged",
        "sss",
        [":1.4", "", ":1.4"],
    )
    assert concerned(joined) == ()
    window = _signal(
        ":1.5", WINDOW_EVENTS, "activate", "siiva{sv}", ["", 0, 0, Variant("s", "0"), {}]
    )
    assert concerned(window) == (":1.5",)


def test_only_the_registry_name_getting_an_owner_reads_as_a_registry_restart() -> None:
    def owner_changed(name: str, old: str, new: str) -> Message:
        return _signal(
            "org.freedesktop.DBus",
            "org.freedesktop.DBus",
            "NameOwnerChanged",
            "sss",
            [name, old, new],
        )

    assert registry_owned(owner_changed(REGISTRY, "", ":1.7"))
    assert not registry_owned(owner_changed(REGISTRY, ":1.3", ""))  # lost, not yet back
    assert not registry_owned(owner_changed(":1.7", "", ":1.7"))
    assert not registry_owned(
        _signal(":1.5", OBJECT_EVENTS, "StateChanged", "siiva{sv}", ["focused", 1, 0, 0, {}])
    )


async def test_counters_wake_only_the_changed_app_and_time_out_quietly() -> None:
    counters = ChangeCounters()
    mark = counters.mark(":1.5")
    other = asyncio.create_task(counters.wait(":1.6", counters.mark(":1.6"), 0.05))
    waiting = asyncio.create_task(counters.wait(":1.5", mark, 5.0))
    await asyncio.sleep(0)
    counters.on_signal(
        _signal(
            ":1.5",
            OBJECT_EVENTS,
            "StateChanged",
            "siiva{sv}",
            ["checked", 1, 0, Variant("i", 0), {}],
        )
    )
    assert await asyncio.wait_for(waiting, 1.0) == mark + 1
    assert await other == 0
    assert await counters.wait(":1.5", mark, 5.0) == mark + 1  # already passed: at once


@given(
    st.floats(0, 1000),
    st.floats(0, 1000),
    st.floats(0, 50),
    st.integers(-20, 20),
)
def test_wheel_clicks_move_by_the_step_and_stay_in_range(
    current: float, span: float, step: float, clicks: int
) -> None:
    bar = Bar(Address(":1.2", "/a"), True, min(current, span), 0.0, span, step)
    target = wheel_target(bar, clicks)
    assert 0.0 <= target <= span
    if clicks == 0:
        assert target == bar.current
    elif clicks > 0:
        assert target >= bar.current
    else:
        assert target <= bar.current


def test_a_bar_without_a_step_moves_a_tenth_of_its_range() -> None:
    bar = Bar(Address(":1.2", "/a"), True, 0.0, 0.0, 400.0, 0.0)
    assert wheel_target(bar, 2) == 80.0


def _record() -> NodeRecord:
    basics = Basics("push button", "OK", "", frozenset({"showing"}), frozenset({"Action"}), 0)
    return NodeRecord(basics, Details(None, None, 0, ("click",)), ())


def _state_event(sender: str, path: str) -> Message:
    body = ["checked", 1, 0, Variant("i", 0), {}]
    message = _signal(sender, OBJECT_EVENTS, "StateChanged", "siiva{sv}", body)
    message.path = path
    return message


def test_mirror_events_dirty_their_element_until_the_next_walk_takes_them() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    root, button = Address(":1.5", "/root"), Address(":1.5", "/button")
    mirrors.store(root.native_id, key, {root: _record(), button: _record()})
    mirrors.on_event(":1.5", _state_event(":1.5", "/button"))
    mirrors.on_event(":1.6", _state_event(":1.6", "/button"))  # another app
    reuse = mirrors.take(root.native_id, key, trusted=True)
    assert reuse is not None and reuse.dirty == {button}
    assert reuse.clean(button) is None and reuse.clean(root) is not None
    mirrors.store(root.native_id, key, reuse.records)  # the walk read the button again
    assert mirrors.take(root.native_id, key, trusted=True) == Reuse(
        reuse.records, frozenset(), True
    )
    assert mirrors.take(root.native_id, key, trusted=True) is None, (
        "a walk that took the mirror and failed leaves nothing to trust"
    )
    assert mirrors.take(root.native_id, (512, 20, 2), trusted=True) is None, (
        "a new connection may have missed events"
    )


def test_a_mirror_is_held_exactly_when_a_take_would_give_something_to_reuse() -> None:
    """A snapshot asks the cache with the root's extents only when nothing is held."""
    mirrors, key = Mirrors(), (512, 20, 1)
    root = Address(":1.5", "/root")
    assert not mirrors.holds(root.native_id, key)
    assert mirrors.take(root.native_id, key, trusted=True) is None
    assert not mirrors.holds(root.native_id, key), "the empty mirror a take left collects dirt"
    mirrors.on_event(":1.5", _state_event(":1.5", "/root"))
    mirrors.store(root.native_id, key, {root: _record()})
    assert mirrors.holds(root.native_id, key)
    assert not mirrors.holds(root.native_id, (512, 20, 2)), "another connection or caps"
    reuse = mirrors.take(root.native_id, key, trusted=True)
    assert reuse is not None and reuse.dirty == {root}, "an event during the walk is kept"
    assert not mirrors.holds(root.native_id, key), "taken: nothing until the walk stores"


def test_an_exited_app_loses_its_mirrors() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    root = Address(":1.5", "/root")
    mirrors.store(root.native_id, key, {root: _record()})
    gone = _signal(
        "org.freedesktop.DBus",
        "org.freedesktop.DBus",
        "NameOwnerChanged",
        "sss",
        [":1.5", ":1.5", ""],
    )
    mirrors.on_event(":1.5", gone)
    assert mirrors.take(root.native_id, key, trusted=True) is None
    assert mirrored("GTK 3.24.38") and mirrored("GTK 4.8.3") and mirrored("Qt 6.12.0")
    assert not mirrored("Chromium 120")


def test_an_event_during_the_first_walk_dirties_what_that_walk_read() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    root, button = Address(":1.5", "/root"), Address(":1.5", "/button")
    assert mirrors.take(root.native_id, key, trusted=True) is None  # cold: nothing to reuse yet
    mirrors.on_event(":1.5", _state_event(":1.5", "/button"))  # while the walk runs
    mirrors.store(root.native_id, key, {root: _record(), button: _record()})
    reuse = mirrors.take(root.native_id, key, trusted=True)
    assert reuse is not None and reuse.dirty == {button}


def test_without_trusted_events_nothing_is_clean_but_roles_are_remembered() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    root = Address(":1.5", "/org/gtk/a11y/72c35acd")
    mirrors.take(root.native_id, key, trusted=False)
    mirrors.store(root.native_id, key, {root: _record()})
    reuse = mirrors.take(root.native_id, key, trusted=False)
    assert reuse is not None and reuse.clean(root) is None
    assert reuse.identity(root) == ("push button", frozenset({"Action"}))
    assert remembered("GTK 4.8.3") and remembered("Qt 6.12.0") and not remembered("Chromium")


def test_the_last_tree_is_reused_only_while_nothing_touched_or_moved_the_root() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    root, button = Address(":1.5", "/root"), Address(":1.5", "/button")
    frame = Rect(10, 20, 300, 200)
    tree = RawNode(root.native_id, "frame", children=(RawNode(button.native_id, "push button"),))
    made = Assembled(tree, 2, False, frame)

    def reused(frame_now: Rect, *, trusted: bool = True) -> Assembled | None:
        reuse = mirrors.take(root.native_id, key, trusted=trusted)
        assert reuse is not None
        mirrors.store(root.native_id, key, reuse.records, made)  # as the walk would
        return reuse.unchanged(frame_now)

    mirrors.store(root.native_id, key, {root: _record(), button: _record()}, made)
    assert reused(frame) is made
    assert reused(Rect(11, 20, 300, 200)) is None, "the window moved: every rect changed"
    assert reused(frame, trusted=False) is None, "events may still be due (GTK 4 after input)"
    mirrors.on_event(":1.5", _state_event(":1.5", "/button"))
    assert reused(frame) is None, "an event touched an element"
    assert reused(frame) is made, "the walk that took the dirt read the button again"


@given(st.from_regex(r"(Gtk|Adw|Gdk)[A-Z][A-Za-z0-9_]{0,20}", fullmatch=True))
def test_gtk_type_names_are_blanked(name: str) -> None:
    assert clean_name(name, "GTK 4.8.3") == "" and clean_name(name, "GTK 3.24.38") == ""
    assert clean_name(name, "Qt 6.12.0") == name


@given(
    st.text(alphabet=st.characters(blacklist_characters="\ufffc\ufeff"), min_size=1, max_size=20)
)
def test_gtk4_doubled_names_collapse_and_object_replacements_vanish(word: str) -> None:
    assert clean_name(f"{word} {word}", "GTK 4.8.3") == word
    assert clean_name(f"{word} {word}", "Chromium 156") == f"{word} {word}"
    assert clean_name(f"\ufffc{word}\ufffc", "Chromium 156") == word


def test_gecko_fillers_after_characters_beyond_the_bmp_vanish() -> None:
    assert clean_name("x😀\ufeffy\ufffc", "Gecko 153.8.0") == "x😀y"


def test_names_that_only_look_doubled_are_kept() -> None:
    assert clean_name("7 7", "GTK 4.8.3") == "7"
    assert clean_name("Clear all Clear all", "GTK 4.8.3") == "Clear all"
    assert clean_name("7 77", "GTK 4.8.3") == "7 77"
    assert clean_name("GtkSourceView2 x", "GTK 4.8.3") == "GtkSourceView2 x"


def test_a_read_only_text_view_offers_no_typing_and_unread_actions_follow_the_role() -> None:
    ifaces = frozenset({"EditableText", "Text", "Component", "Action"})
    viewer = derive_caps("text", ifaces, (), frozenset({"focusable"}))
    assert not {"setText", "typeText"} & viewer
    hidden = derive_caps("push button", frozenset({"Action"}), None, frozenset())
    assert "press" in hidden
    assert "press" not in derive_caps("label", frozenset({"Action"}), None, frozenset())
    assert {"toggle", "press"} <= derive_caps("check box", frozenset({"Action"}), None, frozenset())


def _event(member: str, path: str, detail: str = "", interface: str = OBJECT_EVENTS) -> Message:
    body = [detail, 0, 0, Variant("i", 0), {}]
    message = _signal(":1.5", interface, member, "siiva{sv}", body)
    message.path = path
    return message


def _scroll_bar() -> NodeRecord:
    return NodeRecord(
        Basics("scroll bar", "", "", frozenset(), frozenset({"Value"}), 0),
        Details(None, "0", 1, ()),
        (),
    )


def test_geometry_events_mark_subtrees_moved_without_dirtying_fields() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    root, button = Address(":1.5", "/root"), Address(":1.5", "/button")
    bar = Address(":1.5", "/bar")
    mirrors.store(root.native_id, key, {root: _record(), button: _record(), bar: _scroll_bar()})
    mirrors.on_event(":1.5", _event("BoundsChanged", "/button"))
    reuse = mirrors.take(root.native_id, key, trusted=True)
    assert reuse is not None and reuse.dirty == frozenset() and reuse.moves(button)
    assert not reuse.moves(root) and reuse.clean(button) is not None
    mirrors.store(root.native_id, key, reuse.records)  # the walk read the button's extents
    mirrors.on_event(":1.5", _event("PropertyChange", "/bar", "accessible-value"))
    scrolled = mirrors.take(root.native_id, key, trusted=True)
    assert scrolled is not None and scrolled.moves(root) and scrolled.dirty == {bar}


def _bounds_event(path: str, rect: tuple[int, int, int, int]) -> Message:
    message = _event("BoundsChanged", path)
    message.body[3] = Variant("(iiii)", list(rect))
    return message


def test_bounds_announced_again_unchanged_move_nothing() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    root, box = Address(":1.5", "/root"), Address(":1.5", "/box")
    mirrors.store(root.native_id, key, {root: _record(), box: _record()})

    def moved_after(*events: Message) -> bool:
        for event in events:
            mirrors.on_event(":1.5", event)
        reuse = mirrors.take(root.native_id, key, trusted=True)
        assert reuse is not None
        mirrors.store(root.native_id, key, reuse.records)
        return reuse.moves(box)

    assert moved_after(_bounds_event("/box", (5, 51, 1356, 685))), "first announcement"
    assert not moved_after(*[_bounds_event("/box", (5, 51, 1356, 685))] * 3)
    assert moved_after(_bounds_event("/box", (5, 60, 1356, 685)))
    assert moved_after(_bounds_event("/box", (5, 51, 1356, 685))), "and back again"
    assert moved_after(_event("BoundsChanged", "/box")), "no bounds in the event"


def test_a_value_change_moves_everything_only_when_a_scroll_bar_made_it() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    root, bar, bar_record = Address(":1.5", "/root"), Address(":1.5", "/bar"), _scroll_bar()
    mirrors.store(root.native_id, key, {root: _record()})
    mirrors.on_event(":1.5", _event("PropertyChange", "/popup-scale", "accessible-value"))
    reuse = mirrors.take(root.native_id, key, trusted=True)
    assert reuse is not None and not reuse.moves(root), "outside the walked tree"
    # while a walk runs (the mirror is taken) a role is known only once it stores
    mirrors.on_event(":1.5", _event("PropertyChange", "/progress", "accessible-value"))
    mirrors.store(root.native_id, key, {root: _record(), Address(":1.5", "/progress"): _record()})
    during = mirrors.take(root.native_id, key, trusted=True)
    assert during is not None and not during.moves(root), "not a scroll bar"
    mirrors.on_event(":1.5", _event("PropertyChange", "/bar", "accessible-value"))
    mirrors.store(root.native_id, key, {root: _record(), bar: bar_record})
    scrolled = mirrors.take(root.native_id, key, trusted=True)
    assert scrolled is not None and scrolled.moves(root), "a scroll bar read by that walk"


def test_gtk4_mirrors_are_trusted_only_once_lagging_events_are_due() -> None:
    mirrors = Mirrors()
    assert mirrors.trusts(":1.5", "GTK 4.8.3") and mirrors.trusts(":1.5", "GTK 3.24.38")
    mirrors.acted(":1.5", "GTK 4.8.3")
    assert not mirrors.trusts(":1.5", "GTK 4.8.3"), "its events may still be on their way"
    assert mirrors.trusts(":1.5", "GTK 3.24.38") and mirrors.trusts(":1.6", "GTK 4.8.3")
    assert mirrors.trusts(":1.5", "Qt 6.12.0") and not mirrors.trusts(":1.5", "Chromium")


def test_input_to_gtk4_makes_its_mirror_read_every_rect_again() -> None:
    mirrors, key = Mirrors(), (512, 20, 1)
    gtk4, gtk3 = Address(":1.5", "/root"), Address(":1.6", "/root")
    for root in (gtk4, gtk3):
        mirrors.store(root.native_id, key, {root: _record()})
    mirrors.acted(":1.5", "GTK 4.8.3")
    mirrors.acted(":1.6", "GTK 3.24.38")
    moved, kept = (mirrors.take(r.native_id, key, trusted=True) for r in (gtk4, gtk3))
    assert moved is not None and moved.moves(gtk4) and moved.unchanged(Rect(0, 0, 9, 9)) is None
    assert kept is not None and not kept.moves(gtk3), "GTK 3 reports its geometry changes"


def test_root_listings_change_only_on_window_app_and_root_events() -> None:
    roots = frozenset({"/win"})
    assert touches_roots(_event("Create", "/win", interface=WINDOW_EVENTS), "/root", roots)
    assert touches_roots(_event("ChildrenChanged", "/root", "add"), "/root", roots)
    assert touches_roots(_event("StateChanged", "/win", "active"), "/root", roots)
    assert touches_roots(_event("PropertyChange", "/win", "accessible-name"), "/root", roots)
    assert not touches_roots(_event("StateChanged", "/win", "focusable"), "/root", roots)
    assert not touches_roots(_event("StateChanged", "/button", "active"), "/root", roots)
    assert not touches_roots(_event("TextChanged", "/entry", "insert"), "/root", roots)
    assert keeps_roots("GTK 3.24.38") and not keeps_roots("GTK 4.8.3")


def test_a_rename_while_an_apps_roots_are_first_read_keeps_that_read_from_being_kept() -> None:
    # no root is known yet: a name change on any element may be the new window's
    rename = _event("PropertyChange", "/win/2", "accessible-name")
    assert touches_roots(rename, "/root", None)
    assert not touches_roots(_event("TextChanged", "/entry", "insert"), "/root", None)
    assert not touches_roots(_event("StateChanged", "/win/2", "focusable"), "/root", None)
    lister = RootLister(cast(AtspiBus, None), cast(WindowOrigins, None))
    before = lister._generations[":1.5"]
    lister.on_event(":1.5", rename)
    assert lister._generations[":1.5"] == before + 1, "the read under way is not kept"


def test_cached_children_without_indices_are_read_live() -> None:
    def item(path: str, parent: str, index: int, count: int) -> tuple[object, ...]:
        app = (":1.5", "/root")
        return ((":1.5", path), app, (":1.5", parent), index, count, [], "", 49, "", [0, 0])

    cache = index_cache(
        [
            item("/pane", "/org/a11y/atspi/null", -1, 3),
            item("/bar", "/pane", -1, 0),
            item("/view", "/pane", 0, 0),
            item("/vbar", "/pane", -1, 0),
            item("/box", "/org/a11y/atspi/null", -1, 2),
            item("/b", "/box", 1, 0),
            item("/a", "/box", 0, 0),
        ]
    )
    assert not cache[Address(":1.5", "/pane")].complete
    box = cache[Address(":1.5", "/box")]
    assert box.complete and [a.path for a in box.children] == ["/a", "/b"]


def test_only_the_acted_on_window_and_window_events_count_as_evidence() -> None:
    inside = frozenset({"/win", "/win/button"})

    def label(message: Message, known: frozenset[str] | None = inside) -> str | None:
        return evidence_label(message, ":1.5", known)

    assert label(_event("StateChanged", "/win/button", "checked")) == "StateChanged:checked"
    assert label(_event("ChildrenChanged", "/win", "add")) == "ChildrenChanged:add"
    assert label(_event("Activate", "/new/dialog", interface=WINDOW_EVENTS)) == "Activate"
    assert label(_event("BoundsChanged", "/win/button")) is None, "a spinner moves all the time"
    assert label(_event("StateChanged", "/win/button", "focused")) is None
    assert label(_event("TextChanged", "/other/window/entry", "insert")) is None
    assert label(_event("TextChanged", "/other/window/entry", "insert"), None) == (
        "TextChanged:insert"
    ), "without a mirror of the window, the application's events count"
    assert evidence_label(_event("StateChanged", "/win/button", "checked"), ":1.6", None) is None


def test_a_root_that_changed_size_has_every_rect_read_again() -> None:
    """Qt re-lays out a resized window without one event about the widgets it moved."""
    mirrors, key = Mirrors(), (512, 20, 1)
    root = Address(":1.5", "/root")
    frame = Rect(10, 20, 300, 200)
    made = Assembled(RawNode(root.native_id, "frame"), 1, False, frame)
    mirrors.store(root.native_id, key, {root: _record()}, made)
    reuse = mirrors.take(root.native_id, key, trusted=True)
    assert reuse is not None
    assert not reuse.sized(Rect(50, 60, 300, 200)).moves(root), "a move keeps relative rects"
    assert reuse.sized(Rect(10, 20, 420, 200)).moves(root)


@pytest.mark.parametrize(
    ("toolkit", "name", "held"),
    [
        ("GTK 3.24.38", "Create Folder...", True),
        ("GTK 3.24.38", "  Save As...  ", True),
        ("GTK 3.24.38", "Open With Other Application\u2026", True),
        ("GTK 3.24.38", "Save", False),
        ("GTK 4.8.3", "Save As...", False),
        ("Qt 6.12.0", "Open...", False),
    ],
)
def test_only_gtk3_commands_that_announce_a_dialog_would_hold_the_call(
    toolkit: str, name: str, held: bool
) -> None:
    assert action_may_hold_call(toolkit, name) is held


class _TextToolkit:
    """Answers Text calls as a toolkit does: clamping an end past the text, or (Gecko) not."""

    def __init__(self, text: str, *, clamps: bool) -> None:
        self.text = text
        self.clamps = clamps
        self.calls = 0

    def answer(self, start: int, end: int) -> str:
        if end > len(self.text) and not self.clamps:
            return ""
        return self.text[start:end]

    async def get_int(self, destination: str, path: str, interface: str, name: str) -> int:
        self.calls += 1
        assert (interface, name) == ("org.a11y.atspi.Text", "CharacterCount")
        return len(self.text)

    async def call(
        self, destination: str, path: str, interface: str, member: str, sig: str, body: Any
    ) -> list[Any]:
        self.calls += 1
        assert member == "GetText"
        return [self.answer(*body)]


@given(st.text(max_size=VALUE_CAP + 50), st.booleans())
def test_the_text_head_is_read_whether_or_not_the_toolkit_clamps_the_end(
    text: str, clamps: bool
) -> None:
    toolkit = _TextToolkit(text, clamps=clamps)

    async def head() -> tuple[str, int]:
        first: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        first.set_result([toolkit.answer(0, VALUE_CAP)])
        return await text_head_from(toolkit, Address(":1.1", "/a"), first)  # type: ignore[arg-type]

    assert asyncio.run(head()) == (text[:VALUE_CAP], len(text))
    if clamps and 0 < len(text) < VALUE_CAP:
        assert toolkit.calls == 0  # a short clamped answer is the whole text: one call


def test_closed_gecko_popups_are_told_by_their_states_only_in_gecko() -> None:
    closed = frozenset({"enabled", "sensitive"})
    assert closed_popup("Gecko 153.8.0", closed)
    assert not closed_popup("Gecko 153.8.0", closed | {"visible", "showing"})
    assert not closed_popup("GTK 3.24.38", closed)
    assert ignores_editable_text("Gecko 153.8.0") and not ignores_editable_text("Qt 5.15.8")
