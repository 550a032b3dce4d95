"""Folding recognised text into an outline: evidence, picture-only nodes, passwords."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from strategies import outline_of, outlines, raw

from actui.backends.base import Rect
from actui.outline.model import Outline
from actui.runtime.ocr import TextBox
from actui.runtime.visual import add_visual_evidence


def _form() -> Outline:
    return outline_of(
        raw(
            "frame",
            "Login",
            raw("label", "User name", rect=Rect(10, 10, 80, 20), states=frozenset({"showing"})),
            raw("text", "", rect=Rect(100, 10, 150, 20), value="ada"),
            raw("password text", "", rect=Rect(100, 40, 150, 20), secure=True),
            raw("push button", "Sign in", rect=Rect(100, 70, 60, 24)),
            rect=Rect(0, 0, 300, 200),
        )
    )


def _box(text: str, x: int, y: int, w: int = 60, h: int = 16) -> TextBox:
    return TextBox(text, 0.9, Rect(x, y, w, h))


def _picture_only(outline: Outline) -> list[str]:
    return [n.name for n in outline if n.picture_only]


def test_text_an_accessible_node_carries_becomes_evidence_on_it_not_a_new_node() -> None:
    base = _form()
    result = add_visual_evidence(base, [_box("User name", 12, 12), _box("Sign in", 104, 74)])
    assert len(result) == len(base)
    by_name = {n.name: n for n in result if not n.name_inferred}
    assert by_name["User name"].ocr_text == ("User name",)
    assert by_name["Sign in"].ocr_text == ("Sign in",)


def test_a_misread_letter_or_icon_glyph_still_counts_as_the_carried_text() -> None:
    result = add_visual_evidence(_form(), [_box("Sign ln", 104, 74), _box("@ User name", 8, 12)])
    assert _picture_only(result) == []


def test_text_no_node_carries_becomes_a_picture_only_node_under_the_root() -> None:
    base = _form()
    result = add_visual_evidence(base, [_box("Forgot password?", 10, 120, 120)])
    assert len(result) == len(base) + 1
    (added,) = [n for n in result if n.picture_only]
    assert added.name == "Forgot password?" and added.wire is None
    assert added.rect == Rect(10, 120, 120, 16)
    assert added.role == "label" and added.ocr_text == ("Forgot password?",)
    assert added.parent == result.root and added.ref in result.root_node.children
    assert added.depth == result.root_node.depth + 1


def test_matching_text_elsewhere_in_the_window_does_not_cover_a_box() -> None:
    result = add_visual_evidence(_form(), [_box("Sign in", 10, 150)])
    assert _picture_only(result) == ["Sign in"]


def test_nothing_read_in_a_password_field_area_survives() -> None:
    base = _form()
    result = add_visual_evidence(
        base, [_box("hunter2", 102, 42), _box("●●●●●●", 110, 44, 20), _box("x hunter2", 90, 38)]
    )
    assert result.nodes == base.nodes
    assert not any("hunter2" in t for n in result for t in (n.name, *n.ocr_text))


def test_picture_only_refs_follow_the_highest_ref_in_reading_order() -> None:
    base = _form()
    boxes = [_box("Second", 10, 180), _box("First", 10, 150), _box("Beside", 150, 150)]
    result = add_visual_evidence(base, boxes)
    added = [n for n in result if n.picture_only]
    assert [n.ref for n in added] == [f"@e{base.max_ref + i}" for i in (1, 2, 3)]
    assert [n.name for n in added] == ["First", "Beside", "Second"]


def test_an_empty_box_list_changes_nothing() -> None:
    base = _form()
    assert add_visual_evidence(base, []).nodes == base.nodes


_BOXES = st.lists(
    st.builds(
        TextBox,
        st.sampled_from(("Save", "OK", "Cancel", "Nothing here", "hint", "Open file", "  ")),
        st.floats(0, 1),
        st.builds(
            Rect,
            st.integers(0, 500),
            st.integers(0, 500),
            st.integers(1, 90),
            st.integers(1, 40),
        ),
    ),
    max_size=12,
)


def _overlaps(a: Rect, b: Rect) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


@given(outlines(), _BOXES)
def test_existing_nodes_keep_their_refs_and_fields_and_only_gain_evidence(
    base: Outline, boxes: list[TextBox]
) -> None:
    result = add_visual_evidence(base, boxes)
    for ref, node in base.nodes.items():
        after = result.nodes[ref]
        assert after.ocr_text[: len(node.ocr_text)] == node.ocr_text
        children = after.children if ref == base.root else node.children
        assert after == replace(node, ocr_text=after.ocr_text, children=children)
    added = [n for n in result if n.ref not in base.nodes]
    assert all(n.picture_only and n.wire is None for n in added)
    assert [int(n.ref[2:]) for n in added] == list(
        range(base.max_ref + 1, base.max_ref + 1 + len(added))
    )


@given(outlines(), _BOXES)
def test_each_box_outside_password_fields_lands_once_and_none_inside_does(
    base: Outline, boxes: list[TextBox]
) -> None:
    result = add_visual_evidence(base, boxes)
    secure = [n.rect for n in base if n.secure and n.rect is not None]
    kept = [b for b in boxes if b.text.strip() and not any(_overlaps(b.rect, r) for r in secure)]
    gained = sum(len(result.nodes[n.ref].ocr_text) - len(n.ocr_text) for n in base)
    added = [n for n in result if n.picture_only]
    assert gained + len(added) == len(kept)
    for node in added:
        assert node.rect is not None
        assert not any(_overlaps(node.rect, r) for r in secure)
    assert all(not result.nodes[n.ref].ocr_text for n in base if n.secure)
