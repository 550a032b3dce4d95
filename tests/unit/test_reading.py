"""Reading order and inferred labels: what a person sees on a form, whatever the toolkit says."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from strategies import outline_of, raw

from actui.backends.base import Rect
from actui.outline.fold import display_name, render_fold
from actui.outline.model import Outline
from actui.outline.reading import (
    PANE_ROLES,
    SPLIT_ROLES,
    Box,
    infer_labels,
    panes,
    reading_order,
)
from actui.outline.search import render_search, search

SHOWN = frozenset({"visible", "showing"})


def _zenity_forms() -> Outline:
    """The grid of ``zenity --forms`` as GTK lists it: reversed, fields unnamed."""
    return outline_of(
        raw(
            "dialog",
            "Forms",
            raw("text", "", rect=Rect(80, 70, 200, 24), value="Paris", states=SHOWN),
            raw("label", "City", rect=Rect(10, 74, 40, 16), states=SHOWN),
            raw("password text", "", rect=Rect(80, 40, 200, 24), secure=True, states=SHOWN),
            raw("label", "Secret", rect=Rect(10, 44, 50, 16), states=SHOWN),
            raw("text", "", rect=Rect(80, 10, 200, 24), states=SHOWN),
            raw("label", "Name", rect=Rect(10, 14, 40, 16), states=SHOWN),
            rect=Rect(0, 0, 300, 120),
        )
    )


def _lines(outline: Outline) -> list[str]:
    return [display_name(outline.nodes[ref]) for ref in outline.root_node.children]


def test_a_reversed_grid_reads_top_to_bottom_with_each_field_named_by_its_label() -> None:
    assert _lines(_zenity_forms()) == [
        'label "Name"',
        'textbox "Name" (label inferred)',
        'label "Secret"',
        'password "Secret" (label inferred)',
        'label "City"',
        'textbox "City" (label inferred)',
    ]


def test_search_finds_a_field_by_its_visible_label_and_says_it_was_inferred() -> None:
    outline = _zenity_forms()
    result = search(outline, text="Name", role="textbox")
    assert [m.ref for m in result.matches] == ["@e3"]
    assert result.matches[0].inferred
    assert "(label inferred)" in render_search(result)


def test_a_label_beside_a_field_wins_over_one_above_it() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("label", "Heading", rect=Rect(100, 0, 100, 16)),
            raw("label", "Email", rect=Rect(10, 24, 60, 16)),
            raw("text", "", rect=Rect(100, 20, 150, 24)),
        )
    )
    field = next(n for n in outline if n.role == "textbox")
    assert field.name == "Email" and field.name_inferred


def test_a_label_above_names_a_field_with_nothing_beside_it() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("label", "Address", rect=Rect(10, 0, 60, 16)),
            raw("text", "", rect=Rect(10, 20, 250, 24)),
        )
    )
    assert next(n for n in outline if n.role == "textbox").name == "Address"


def test_a_label_beyond_another_field_is_not_this_fields_label() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("label", "First", rect=Rect(10, 4, 40, 16)),
            raw("text", "First", rect=Rect(60, 0, 100, 24)),
            raw("text", "", rect=Rect(170, 0, 100, 24)),
        )
    )
    second = [n for n in outline if n.role == "textbox"][1]
    assert second.name == "" and not second.name_inferred


def test_a_field_with_a_name_keeps_it() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("label", "Shown", rect=Rect(10, 4, 40, 16)),
            raw("text", "Own name", rect=Rect(60, 0, 100, 24)),
        )
    )
    field = next(n for n in outline if n.role == "textbox")
    assert field.name == "Own name" and not field.name_inferred


def test_the_labelled_by_relation_comes_before_layout_and_is_not_marked_inferred() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("label", "Beside", rect=Rect(10, 4, 40, 16)),
            raw("text", "", rect=Rect(60, 0, 100, 24), labelled_by=("/far",)),
            raw("label", "Linked", wire="/far", rect=Rect(500, 500, 40, 16)),
        )
    )
    field = next(n for n in outline if n.role == "textbox")
    assert field.name == "Linked" and not field.name_inferred


def test_a_relation_to_an_element_of_any_role_names_the_field_with_its_text() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("heading", "Shipping address", wire="/h"),
            raw("text", "", labelled_by=("/h", "/missing")),
        )
    )
    field = next(n for n in outline if n.role == "textbox")
    assert field.name == "Shipping address" and not field.name_inferred


def test_hidden_labels_and_fields_are_not_paired() -> None:
    hidden = frozenset({"visible"})
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("label", "Other page", rect=Rect(10, 4, 40, 16), states=hidden),
            raw("text", "", rect=Rect(60, 0, 100, 24), states=SHOWN),
        )
    )
    assert next(n for n in outline if n.role == "textbox").name == ""


def test_a_platform_order_that_already_reads_right_is_kept() -> None:
    rects = [Rect(0, 0, 10, 10), Rect(20, 0, 10, 10), Rect(0, 20, 10, 10), None]
    assert reading_order(rects) == [0, 1, 2, 3]


def test_a_tall_column_beside_stacked_panes_reads_left_column_first() -> None:
    rects = [Rect(300, 300, 300, 300), Rect(0, 0, 300, 600), Rect(300, 0, 300, 300)]
    assert reading_order(rects) == [1, 2, 0]


_rects = st.one_of(
    st.none(),
    st.builds(
        Rect,
        st.integers(-50, 800),
        st.integers(-50, 800),
        st.integers(0, 300),
        st.integers(0, 300),
    ),
)


@given(st.lists(_rects, max_size=12))
def test_reading_order_is_a_permutation_that_keeps_unplaced_siblings_in_their_slots(
    rects: list[Rect | None],
) -> None:
    order = reading_order(rects)
    assert sorted(order) == list(range(len(rects)))
    for slot, rect in enumerate(rects):
        if rect is None or rect.empty:
            assert order[slot] == slot


def _one_height_per_top(rects: list[Rect | None]) -> bool:
    heights: dict[int, int] = {}
    placed = [r for r in rects if r is not None and not r.empty]
    return all(heights.setdefault(r.y, r.h) == r.h for r in placed)


@given(st.lists(_rects, max_size=12).filter(_one_height_per_top))
def test_reading_order_is_stable_once_applied(rects: list[Rect | None]) -> None:
    """Where siblings of one top edge differ in height, the first of them in platform order
    anchors the row (a wrapped run of text starts a line its pieces share, a tall column
    spans the panes beside it), so only a platform order can be read; otherwise reading
    the order read changes nothing."""
    order = reading_order(rects)
    assert reading_order([rects[i] for i in order]) == list(range(len(rects)))


def test_the_first_of_one_top_edge_anchors_the_row() -> None:
    """An instruction's inline pieces: "Enter the value of", a bold "Gender", and the
    rest of the sentence, which wraps (its box spans both lines from the left edge)."""
    rects = [Rect(0, 0, 120, 16), Rect(120, 0, 50, 16), Rect(0, 0, 160, 32)]
    assert reading_order(rects) == [0, 1, 2]


_roles = st.sampled_from(["label", "textbox", "password", "button", "group"])


@st.composite
def _boxes(draw: st.DrawFn) -> list[Box]:
    count = draw(st.integers(0, 10))
    return [
        Box(
            key=f"k{i}",
            role=draw(_roles),
            text=draw(st.sampled_from(["", "Name", "City", "Secret"])),
            rect=draw(_rects),
            named=draw(st.booleans()),
        )
        for i in range(count)
    ]


@given(_boxes())
def test_only_unnamed_fields_get_a_name_and_only_from_a_labels_text(boxes: list[Box]) -> None:
    by_key = {b.key: b for b in boxes}
    label_texts = {b.text for b in boxes if b.role == "label"}
    for key, (name, inferred) in infer_labels(boxes).items():
        box = by_key[key]
        assert not box.named and inferred
        assert box.role in ("textbox", "password")
        assert name in label_texts


@given(st.text(min_size=1, max_size=12).filter(str.strip))
def test_a_password_value_never_becomes_a_name_or_reaches_the_outline_text(secret: str) -> None:
    tree = raw(
        "frame",
        "",
        raw("label", "Secret", rect=Rect(10, 4, 40, 16)),
        raw("password text", "", rect=Rect(60, 0, 100, 24), secure=True, value=secret),
        raw("text", "", rect=Rect(60, 30, 100, 24)),
    )
    outline = outline_of(tree)
    names = [n.name for n in outline]
    assert secret.strip() not in [n.strip() for n in names if n.strip() != "Secret"]
    assert all(n.value == "" for n in outline if n.secure)
    text = render_fold(outline, max_depth=5).text
    assert f'value="{secret}"' not in text


@given(
    st.integers(0, 600),
    st.integers(0, 600),
    st.integers(12, 40),
    st.integers(0, 40),
    st.integers(0, 30),
    st.integers(-20, 60),
)
def test_a_label_beside_on_the_same_row_always_wins_over_one_above(
    x: int, y: int, height: int, left_gap: int, up_gap: int, up_shift: int
) -> None:
    field = Rect(x + 100, y + 60, 150, height)
    beside = Rect(field.x - left_gap - 60, field.y + (height - 14) // 2, 60, 14)
    above = Rect(field.x + up_shift, field.y - up_gap - 14, 60, 14)
    boxes = [
        Box("above", "label", "Above", above),
        Box("field", "textbox", "", field),
        Box("beside", "label", "Beside", beside),
    ]
    assert infer_labels(boxes) == {"field": ("Beside", True)}


def _geany() -> Outline:
    """Geany's window: a split pane with the symbol list's placeholder on the left, right
    beside the unnamed editor on the right, and a status text under both."""
    return outline_of(
        raw(
            "frame",
            "notes.txt - Geany",
            raw(
                "split pane",
                "",
                raw(
                    "page tab",
                    "Symbols",
                    raw("label", "No symbols found", rect=Rect(1, 121, 154, 329), states=SHOWN),
                    states=SHOWN,
                ),
                raw(
                    "page tab",
                    "notes.txt",
                    raw(
                        "text",
                        "",
                        rect=Rect(158, 121, 741, 329),
                        states=SHOWN | {"multi_line"},
                    ),
                    states=SHOWN,
                ),
                states=SHOWN,
            ),
            raw(
                "status bar",
                "",
                raw("label", "line: 1 / 1", rect=Rect(158, 452, 200, 16), states=SHOWN),
                states=SHOWN,
            ),
            rect=Rect(0, 0, 900, 470),
            states=SHOWN,
        )
    )


def test_a_label_of_another_pane_never_names_a_field_and_an_unnamed_editor_is_an_editor() -> None:
    outline = _geany()
    (editor,) = [n for n in outline if n.role == "textbox"]
    assert editor.name == "editor" and editor.name_inferred
    assert display_name(editor) == 'textbox "editor" (label inferred)'


def test_several_unnamed_editors_are_numbered_in_reading_order() -> None:
    editors = [
        raw("text", "", rect=Rect(x, 10, 100, 100), states=SHOWN | {"multi_line"}) for x in (0, 200)
    ]
    outline = outline_of(raw("frame", "two", *editors, rect=Rect(0, 0, 400, 200)))
    names = [outline.nodes[ref].name for ref in outline.root_node.children]
    assert names == ["editor 1", "editor 2"]
    # one out of sight (another tab's) does not number the one shown
    away = raw("text", "", rect=Rect(0, 10, 100, 100), states=frozenset({"visible", "multi_line"}))
    outline = outline_of(raw("frame", "tabs", editors[0], away, rect=Rect(0, 0, 400, 200)))
    assert [outline.nodes[ref].name for ref in outline.root_node.children] == ["editor"] * 2


_pane_roles = st.sampled_from(["group", "split pane", "tab", "list", "statusbar", "textbox"])


@given(st.lists(st.tuples(st.integers(0, 1 << 10), _pane_roles), min_size=1, max_size=20))
def test_a_panes_key_is_its_nearest_pane_ancestor_and_children_of_a_split_are_panes(
    rows: list[tuple[int, str]],
) -> None:
    parents: dict[str, str | None] = {}
    roles: dict[str, str] = {}
    for i, (pick, role) in enumerate(rows):
        parents[f"n{i}"] = f"n{pick % i}" if i else None
        roles[f"n{i}"] = role
    found = panes(parents, roles)
    for key in parents:
        pane = found[key]
        chain = [key]
        while parents[chain[-1]] is not None and chain[-1] != pane:
            chain.append(parents[chain[-1]])  # type: ignore[arg-type]
        assert chain[-1] == pane, (key, pane)
        boundary = (
            parents[pane] is None
            or roles[pane] in PANE_ROLES
            or roles[parents[pane]] in SPLIT_ROLES  # type: ignore[index]
        )
        assert boundary
        for inner in chain[:-1]:  # nothing between the node and its pane is a pane
            assert roles[inner] not in PANE_ROLES and roles[parents[inner]] not in SPLIT_ROLES  # type: ignore[index]


@given(_boxes(), st.lists(st.sampled_from(["p1", "p2"]), min_size=10, max_size=10))
def test_a_field_is_named_only_by_a_label_of_its_own_pane(
    boxes: list[Box], pane_of: list[str]
) -> None:
    placed = [replace(b, pane=pane_of[i]) for i, b in enumerate(boxes)]
    by_key = {b.key: b for b in placed}
    for key, (name, _) in infer_labels(placed).items():
        pane = by_key[key].pane
        assert name in {b.text for b in placed if b.role == "label" and b.pane == pane}
