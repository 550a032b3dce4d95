"""Which calls a cold look leaves out: GTK 3 buttons' action names, the child lists of
scroll panes the cache already orders, the details of elements settled without a task."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.address import Address
from actui.backends.atspi.caps import PRESS_ROLES, derive_caps
from actui.backends.atspi.reader import Basics, Details, uncalled_details
from actui.backends.atspi.snapshot import _Plan, index_cache
from actui.backends.atspi.tables import ROLE_NAMES, STATE_NAMES
from actui.backends.base import RootInfo

GTK3_PRESSES = ("Click", "Press", "Toggle")
"""The one action gtk3-widget-factory's buttons, check and radio buttons, switches and
combo boxes list (``snapshot.PRESS_BY_ROLE_TOOLKITS``)."""


def _plan(toolkit: str) -> _Plan:
    root = RootInfo(":1.2:/root", 1, "app", "w", "window", "frame", toolkit=toolkit)
    return _Plan.of(root, None, None, (0, 0), None)


def _basics(role: str, states: frozenset[str] = frozenset({"showing"})) -> Basics:
    return Basics(role, "", "", states, frozenset({"Action", "Component"}), 0)


@given(
    st.sampled_from(sorted(PRESS_ROLES)),
    st.sampled_from(GTK3_PRESSES),
    st.frozensets(st.sampled_from(["checkable", "expandable", "focusable", "showing"])),
)
def test_gtk3_buttons_skip_their_action_names_with_the_caps_they_would_give(
    role: str, action: str, states: frozenset[str]
) -> None:
    basics = _basics(role, states | {"showing"})
    assert not _plan("GTK 3.24.38").wants_actions(basics, shown=True)
    ifaces = basics.interfaces
    assert derive_caps(role, ifaces, None, states) == derive_caps(role, ifaces, (action,), states)


def test_other_roles_and_gtk4_buttons_still_read_their_action_names() -> None:
    assert _plan("GTK 3.24.38").wants_actions(_basics("table cell"), shown=True)
    assert _plan("GTK 3.24.38").wants_actions(_basics("text"), shown=True)
    assert _plan("GTK 4.8.3").wants_actions(_basics("push button"), shown=True)
    assert _plan("Qt 5.15.8").wants_actions(_basics("push button"), shown=True)


def _bits(*names: str) -> list[int]:
    number = sum(1 << STATE_NAMES.index(name) for name in names)
    return [number & 0xFFFFFFFF, number >> 32]


def test_a_gtk3_scroll_panes_bars_follow_its_child_horizontal_first() -> None:
    def item(
        path: str, parent: str, index: int, role: str, *states: str, count: int = 0
    ) -> tuple[object, ...]:
        app, code = (":1.5", "/root"), ROLE_NAMES.index(role)
        return (
            (":1.5", path),
            app,
            (":1.5", parent),
            index,
            count,
            [],
            "",
            code,
            "",
            _bits(*states),
        )

    def pane(*bars: tuple[str, ...]) -> tuple[str, ...]:
        cache = index_cache(
            [
                item("/pane", "/org/a11y/atspi/null", -1, "scroll pane", count=3),
                *(item(f"/bar{i}", "/pane", -1, "scroll bar", *way) for i, way in enumerate(bars)),
                item("/view", "/pane", 0, "table"),
            ]
        )
        entry = cache[Address(":1.5", "/pane")]
        return tuple(a.path for a in entry.children) if entry.complete else ()

    assert pane(("vertical",), ("horizontal",)) == ("/view", "/bar1", "/bar0")
    assert pane(("horizontal",), ("vertical",)) == ("/view", "/bar0", "/bar1")
    assert pane(("vertical",), ("vertical",)) == ()  # which goes first is not known
    assert pane((), ("horizontal",)) == ()


def _element(role: str, *interfaces: str, name: str = "") -> Basics:
    return Basics(role, name, "", frozenset({"showing"}), frozenset(interfaces), 0)


def test_elements_that_need_no_call_are_settled_as_a_read_would_leave_them() -> None:
    hidden_panel = _element("panel", "Component")
    assert uncalled_details(
        hidden_panel, want_rect=False, want_actions=False, value_is_name=False
    ) == Details(None, None, 0, None)
    label = _element("label", "Component", "Text", name="Volume")
    assert uncalled_details(label, want_rect=False, want_actions=False, value_is_name=True) == (
        Details(None, "Volume", 6, None)
    )
    # action names wanted but no Action interface: none to read, caps from an empty list
    image = _element("image", "Component")
    assert uncalled_details(
        image, want_rect=False, want_actions=True, value_is_name=False
    ) == Details(None, None, 0, ())
    # a password's text is never read, so it needs no call for it
    secret = _element("password text", "Text", "EditableText")
    assert uncalled_details(
        secret, want_rect=False, want_actions=False, value_is_name=False
    ) == Details(None, None, 0, None)


def test_elements_with_something_to_read_are_left_to_their_visit() -> None:
    def needs(basics: Basics, **wanted: bool) -> bool:
        flags = {"want_rect": False, "want_actions": False, "value_is_name": False, **wanted}
        return uncalled_details(basics, **flags) is None

    assert needs(_element("push button", "Component"), want_rect=True)
    assert needs(_element("push button", "Action"), want_actions=True)
    assert needs(_element("text", "Text", "EditableText"))
    assert needs(_element("slider", "Value"))
    assert not needs(_element("slider", "Value", "Text"), value_is_name=True)
