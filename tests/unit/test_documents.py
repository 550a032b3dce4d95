"""Documents and office suites, the pure parts: where a click lands (``atspi.hits``), which
toolkits report window-relative extents, a document page's children, menu capabilities, a
long text searched whole, and a page's paragraphs shown first in a view."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.caps import action_may_hold_call, derive_caps
from actui.backends.atspi.hits import PART_ROLES, AtPoint, judge
from actui.backends.atspi.reader import Basics
from actui.backends.atspi.toolkits import is_libreoffice, window_relative
from actui.backends.atspi.viewport import is_document, is_windowed
from actui.backends.base import RawNode, Rect
from actui.outline.model import build_outline
from actui.outline.search import rank_text
from actui.outline.view import render_view

names = st.text(alphabet="abcdefghij .…", max_size=12)
roles = st.sampled_from(["menu item", "push button", "check box", "paragraph", "cell"])


def test_a_sibling_under_the_point_is_a_miss_that_names_it() -> None:
    """Impress's Tools menu: the point of "AutoCorrect Options..." fell on "Redact"."""
    there = AtPoint(True, "menu item", "Redact")
    said = judge("menu item", "AutoCorrect Options...", there)
    assert said == 'menu item "Redact" is there, not menu item "AutoCorrect Options..."'


def test_a_point_outside_the_element_is_a_miss() -> None:
    assert judge("menu item", "Options...", AtPoint(False)) == (
        'it is outside menu item "Options..."'
    )


@given(roles, names, st.sampled_from(sorted(PART_ROLES)), names, st.booleans())
def test_a_controls_own_caption_under_the_point_is_no_miss(
    role: str, name: str, part: str, caption: str, inside: bool
) -> None:
    """GTK 4 lists a check button's label beside it: a click there reaches the button."""
    said = judge(role, name, AtPoint(inside, part, caption))
    assert said is None if inside else said == judge(role, name, AtPoint(False))


@given(roles, names, roles, names, st.one_of(st.none(), st.booleans()))
def test_a_click_is_refused_exactly_when_something_says_it_misses(
    role: str, name: str, other: str, other_name: str, contains: bool | None
) -> None:
    said = judge(role, name, AtPoint(contains, other, other_name))
    stranger = other_name != name
    assert (said is not None) == (stranger or contains is False)
    if said is not None and stranger:
        assert said.endswith(f'not {role} "{name}"' if name else f"not the {role}")


def test_only_gtk_4_and_unknown_toolkits_report_window_relative_extents() -> None:
    assert window_relative("GTK 4.8.3")
    assert window_relative("")
    for label in ("GTK 3.24.38", "Qt 5.15.8", "Gecko 153.8.0", "Chromium 1.0"):
        assert not window_relative(label), label


def test_libreoffice_is_known_by_its_process_not_its_toolkit() -> None:
    assert is_libreoffice("soffice") and is_libreoffice("libreoffice-writer")
    assert not is_libreoffice("mousepad")
    # its actions run after the reply: an item ending in ... is pressed semantically
    assert not action_may_hold_call("GTK 3.24.38", "Save As...", libreoffice=True)
    assert action_may_hold_call("GTK 3.24.38", "Save As...")


def _basics(role: str, count: int, *states: str) -> Basics:
    return Basics(role, "", "", frozenset(states), frozenset({"Component"}), count)


def test_a_page_holding_only_what_is_on_screen_lists_its_children() -> None:
    writer = _basics("document text", 15, "manages_descendants", "showing")
    assert is_document(writer) and not is_windowed(writer)
    sheet = _basics("table", 2**31 - 1, "manages_descendants")
    assert is_windowed(sheet) and not is_document(sheet)
    huge = _basics("document text", 100_000, "manages_descendants")
    assert is_windowed(huge) and not is_document(huge)
    assert not is_document(_basics("document text", 0, "manages_descendants"))


def test_menus_take_no_value_whatever_interfaces_they_carry() -> None:
    ifaces = frozenset({"Action", "Component", "Selection", "Value"})
    item = derive_caps("menu item", ifaces, ("click",), frozenset({"selectable"}))
    assert "press" in item and not {"setValue", "increment", "decrement"} & item
    assert "setValue" in derive_caps("spin button", ifaces, (), frozenset())


def test_a_phrase_at_the_end_of_a_long_text_is_a_substring_match() -> None:
    page = "Paragraph of words. " * 100 + "The last phrase: purple elephants dance."
    assert rank_text("purple elephants", (page,)) == ("substring", 0.90)
    assert rank_text("The last phrase: purple elephants dance.", (page[-40:],))[0] == "exact"


def _paragraph(i: int) -> RawNode:
    return RawNode(
        native_id=f":1.1/p{i}",
        raw_role="paragraph",
        value=f"Paragraph {i} of the letter",
        value_length=26,
        states=frozenset({"showing", "visible", "editable"}),
        interfaces=frozenset({"Text", "EditableText", "Component"}),
        caps=frozenset({"typeText", "setText", "focus"}),
        rect=Rect(200, 300 + 20 * i, 600, 18),
    )


def test_a_pages_paragraphs_are_shown_before_toolbar_buttons() -> None:
    """Writer's 74 toolbar buttons came before the paragraphs of its page."""
    buttons = tuple(
        RawNode(
            native_id=f":1.1/b{i}",
            raw_role="push button",
            name=f"Button number {i}",
            states=frozenset({"showing", "visible"}),
            caps=frozenset({"press"}),
            rect=Rect(10 * i, 30, 10, 10),
        )
        for i in range(80)
    )
    page = RawNode(
        native_id=":1.1/page",
        raw_role="document text",
        states=frozenset({"showing", "visible", "manages_descendants"}),
        rect=Rect(0, 100, 1200, 600),
        children=tuple(_paragraph(i) for i in range(5)),
    )
    toolbar = RawNode(native_id=":1.1/tb", raw_role="tool bar", children=buttons)
    frame = RawNode(
        native_id=":1.1/f",
        raw_role="frame",
        name="letter - Writer",
        rect=Rect(0, 0, 1200, 800),
        children=(toolbar, page),
    )
    view = render_view(build_outline(frame, frame.rect), "s1", 400).text
    for i in range(5):
        assert f"Paragraph {i} of the letter" in view, view
