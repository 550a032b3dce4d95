"""Root lines tell an agent how far a window can be read; the focus line where keys go."""

from __future__ import annotations

from dataclasses import replace

from actui.backends.base import Rect, RootCapabilities, RootInfo, semantic_only
from actui.outline.model import Node, Outline
from actui.results.typed import KeyboardFocus, RootView
from actui.results.views import focus_line, reach_note, root_line

ROOT = RootInfo(
    native_id="x11:0x31",
    pid=42,
    app_name="xmessage",
    title="xmessage",
    kind="window",
    raw_role="window",
    frame=Rect(1, 2, 30, 40),
    window_id=0x31,
    accessibility="none",
)


def test_a_window_without_accessibility_says_so_in_text_and_details() -> None:
    assert root_line("@r1", ROOT).endswith("[accessibility: none]")
    assert "pid=42" in root_line("@r1", ROOT)
    assert RootView("@r1", ROOT).to_wire()["accessibility"] == "none"


def test_a_silent_application_is_marked_not_answering() -> None:
    silent = replace(ROOT, accessibility="not_answering", is_focused=True)
    assert root_line("@r1", silent).endswith("[focused, not answering]")
    assert "visual" in (reach_note(silent, "semantic") or "")


def test_only_a_non_visual_look_at_a_bare_window_is_pointed_to_visual_mode() -> None:
    assert "'visual'" in (reach_note(ROOT, "semantic") or "")
    assert reach_note(ROOT, "visual") is None
    assert reach_note(replace(ROOT, accessibility="full"), "semantic") is None


def _before(*nodes: Node) -> Outline:
    return Outline("@e1", {node.ref: node for node in nodes})


PARAGRAPH = Node("@e4", ":1.4/p/4", "paragraph", "paragraph", value="Hello world")


def test_after_a_menu_command_the_result_says_the_document_has_the_focus() -> None:
    focus = KeyboardFocus("@e4", "paragraph", "Hello world")
    before = _before(replace(PARAGRAPH, states=frozenset({"focused"})))
    assert focus_line(focus, before, menu_command=True) == ['focus: @e4 paragraph "Hello world"']
    # the same focus after any other step is no news
    assert focus_line(focus, before, menu_command=False) == []


def test_a_focus_that_moved_is_said_and_an_unknown_one_is_not() -> None:
    field = KeyboardFocus("@e9", "textbox", "")
    assert focus_line(field, _before(PARAGRAPH), menu_command=False) == ["focus: @e9 textbox"]
    assert focus_line(None, _before(PARAGRAPH), menu_command=True) == []


def test_what_the_display_cannot_do_for_a_root_is_typed_and_named_in_its_line() -> None:
    plain = replace(ROOT, accessibility="full", frame=None, window_id=None)
    semantic = semantic_only(plain)
    assert semantic.capabilities.missing() == ("input: none", "capture: none", "geometry: none")
    assert root_line("@r1", semantic).endswith("[input: none, capture: none, geometry: none]")
    assert RootView("@r1", semantic).to_wire()["capabilities"] == {
        "input": "none",
        "capture": "none",
        "geometry": "none",
    }
    assert RootView("@r1", plain).to_wire()["capabilities"] == {
        "input": "full",
        "capture": "full",
        "geometry": "exact",
    }
    assert not root_line("@r1", replace(ROOT, accessibility="full")).endswith("]")


def test_a_root_placed_by_an_estimate_says_its_coordinates_are_approximate() -> None:
    guessed = replace(
        ROOT, accessibility="full", capabilities=RootCapabilities(geometry="approximate")
    )
    assert root_line("@r1", guessed).endswith("[coordinates approximate]")
    assert guessed.capabilities.missing() == ()
    assert RootView("@r1", guessed).to_wire()["capabilities"] == {
        "input": "full",
        "capture": "full",
        "geometry": "approximate",
    }
