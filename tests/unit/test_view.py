"""The first view: layout-only nodes dissolve, lines are chosen by worth within a token
budget, folds count what they hide, and nothing an agent needs to act on a shown line is lost."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import outline_of, outlines, raw

from actui.backends.base import RawNode, Rect
from actui.outline.fold import USUAL_CAPS, node_line
from actui.outline.model import Outline
from actui.outline.view import RECEIPT, ViewLines, is_layout, render_view
from actui.tokens import estimate_tokens

LIVE = frozenset({"enabled", "sensitive", "visible", "showing"})
LINE = re.compile(r"^(\s*)(@e\d+) ")
FOLD = re.compile(r" ▸ \((\d+)(?: more)?: ")
TOGETHER = re.compile(r" ▸ together \((\d+): ")
RUN = re.compile(r"^\s*@e\d+ … @e\d+: (\d+) × ")
TEXT = re.compile(r'^\s*(@e\d+) … (@e\d+): text ("(?:[^"\\]|\\.)*")$')


def task_page() -> Outline:
    """A MiniWoB-like page: instruction and controls three unnamed divs deep, a footer."""
    press = frozenset({"press", "focus"})
    return outline_of(
        raw(
            "document web",
            "Click Button Task",
            raw(
                "section",
                "",
                raw("section", "", raw("static", 'Click on the "previous" button.')),
                raw(
                    "section",
                    "",
                    raw("section", "", raw("button", "Ok", caps=press)),
                    raw("section", "", raw("button", "previous", caps=press)),
                    raw("line break", ""),
                ),
            ),
            raw("section", "", *[raw("static", f"Last reward: {i}") for i in range(3)]),
            caps=USUAL_CAPS["document"],
        )
    )


def test_layout_only_divs_dissolve_so_controls_read_at_their_parents_level() -> None:
    view = render_view(task_page(), "s1", 300)
    assert view.text.splitlines()[1:] == [
        '@e1 document "Click Button Task"',
        '  @e9 label "Click on the \\"previous\\" button."',
        '  @e13 button "Ok"',
        '  @e14 button "previous"',
        '  @e6 … @e8: text "Last reward: 0 Last reward: 1 Last reward: 2"',
    ]
    assert view.layout == 7 and view.folded == 0 and view.shown == 7
    assert view.text.splitlines()[0] == "stateId s1: 14 nodes, 7 shown"


def test_a_small_budget_reads_the_page_from_its_top_and_folds_its_foot_honestly() -> None:
    view = render_view(task_page(), "s1", 120)
    lines = view.text.splitlines()
    assert estimate_tokens(view.text) <= 120
    assert lines[2:5] == [
        '  @e9 label "Click on the \\"previous\\" button."',
        '  @e13 button "Ok"',
        '  @e14 button "previous"',
    ]
    assert "Last reward" not in view.text
    assert lines[1] == '@e1 document "Click Button Task" ▸ (3 more: 3 labels)'
    assert "more: " in lines[1] and lines[-1] == RECEIPT
    assert view.shown + view.layout + view.folded == view.total


def test_a_focused_field_is_shown_first_even_deep_in_a_large_window() -> None:
    rows = [raw("push button", f"Button {i}", caps=frozenset({"press"})) for i in range(200)]
    field = raw("text", "Search", states=LIVE | {"focused", "editable"}, value="cats")
    outline = outline_of(raw("frame", "Win", *rows, raw("panel", "", raw("panel", "", field))))
    view = render_view(outline, "s1", 150)
    assert 'textbox "Search" value="cats"' in view.text
    assert estimate_tokens(view.text) <= 150


def test_the_pieces_of_one_paragraph_read_as_one_line_spaced_as_laid_out() -> None:
    def piece(text: str, x: int, w: int) -> RawNode:
        return raw("static", text, rect=Rect(x, 10, w, 16))

    outline = outline_of(
        raw(
            "document web",
            "Task",
            raw(
                "section",
                "",
                piece('Enter "', 0, 40),
                piece("Ann", 40, 25),  # starts where the last one ended: no space
                piece('" into the field.', 65, 90),
            ),
            raw("section", "", piece("Time left:", 0, 60), piece("60", 70, 15)),
            # touching words had a space their trimmed names lost
            raw("section", "", piece("The value of", 0, 80), piece("Gender", 80, 45)),
            # the last piece wraps: its box starts at the next line's left edge
            raw(
                "section",
                "",
                piece('Enter "', 0, 40),
                piece("Bo", 40, 20),
                raw("static", '" into the text field.', rect=Rect(0, 10, 140, 32)),
            ),
        )
    )
    lines = render_view(outline, "s1", 300).text.splitlines()
    assert lines[2:] == [
        '  @e6 … @e8: text "Enter \\"Ann\\" into the field."',
        '  @e9 … @e10: text "Time left: 60"',
        '  @e11 … @e12: text "The value of Gender"',
        '  @e13 … @e15: text "Enter \\"Bo\\" into the text field."',
    ]


_PIECE = st.builds(
    lambda name, x: raw("static", name, rect=Rect(x, 0, 30, 16)),
    st.sampled_from(['Enter "', "Ann", '" and', "60", "Time left:", "ü €"]),
    st.integers(0, 200),
)
_PARAGRAPHS = st.lists(
    st.lists(_PIECE | st.just(raw("line break", "")), min_size=1, max_size=5).map(
        lambda pieces: raw("section", "", *pieces)
    ),
    min_size=1,
    max_size=8,
).map(lambda sections: outline_of(raw("document web", "Page", *sections)))
"""Pages of paragraphs whose text is split into pieces, as inline markup splits it."""


@settings(max_examples=60, deadline=None)
@given(_PARAGRAPHS | outlines(40), st.integers(100, 600))
def test_paragraph_lines_keep_every_piece_and_the_budget(outline: Outline, budget: int) -> None:
    check_lines(outline, budget)
    check_budget_and_counts(outline, budget)


def _line_refs(text: str) -> list[str]:
    return [m.group(2) for line in text.splitlines() if (m := LINE.match(line))]


@settings(max_examples=120, deadline=None)
@given(outlines(60), st.integers(100, 1200))
def test_every_view_keeps_its_budget_and_its_counts(outline: Outline, budget: int) -> None:
    check_budget_and_counts(outline, budget)


@settings(max_examples=60, deadline=None)
@given(outlines(40), st.lists(st.tuples(st.integers(60, 900), st.integers(1, 10**6)), max_size=4))
def test_views_of_one_outline_read_as_views_of_a_fresh_copy(
    outline: Outline, looks: list[tuple[int, int]]
) -> None:
    """The lines drawn for an outline serve its later views (an unchanged window's): each
    reads as the view of an outline never drawn before, whatever budget and state id."""
    recent = ViewLines()
    render_view(outline, "s0", 300, recent=recent)
    for budget, number in looks:
        fresh = Outline(outline.root, dict(outline.nodes))
        again = render_view(outline, f"s{number}", budget, recent=recent)
        assert again == render_view(fresh, f"s{number}", budget)
    assert len(recent) == 1, "one outline, drawn once"


def test_each_session_keeps_its_own_recent_outlines() -> None:
    """Sessions in one process do not push each other's outlines out of their recent
    lines: each keeps its own few."""
    ours, theirs = ViewLines(), ViewLines()
    outline = task_page()
    mine = ours.tree(outline)
    for _ in range(8):
        theirs.tree(Outline(outline.root, dict(outline.nodes)))
    assert ours.tree(outline) is mine


def check_budget_and_counts(outline: Outline, budget: int) -> None:
    view = render_view(outline, "s12", budget)
    assert estimate_tokens(view.text) <= budget
    assert view.shown + view.layout + view.folded == view.total == len(outline)
    if view.cut:
        assert "cut at the budget" in view.text.splitlines()[-1]
        return
    hidden = 0
    for line in view.text.splitlines()[1:]:
        hidden += sum(int(n) for n in FOLD.findall(line) + TOGETHER.findall(line))
    assert hidden == view.folded
    assert (view.folded > 0) == (view.text.splitlines()[-1] == RECEIPT)


@settings(max_examples=120, deadline=None)
@given(outlines(60), st.integers(100, 1200))
def test_a_shown_element_keeps_its_ref_name_value_and_marks(outline: Outline, budget: int) -> None:
    check_lines(outline, budget)


def check_lines(outline: Outline, budget: int) -> None:
    """Every drawn element's line is its own full line (ref, name, value, capabilities,
    marks); a paragraph's line holds each of its pieces' text, in order; focus is shown."""
    view = render_view(outline, "s1", budget)
    refs = _line_refs(view.text)
    assert len(refs) == len(set(refs))
    for line in view.text.splitlines()[1:]:
        parsed = LINE.match(line)
        text = TEXT.match(line)
        if text:  # a paragraph's pieces: each one's text, in order
            first, last = outline.nodes[text.group(1)], outline.nodes[text.group(2)]
            assert first.parent == last.parent
            siblings = outline.children(outline.nodes[first.parent or ""])
            pieces = siblings[siblings.index(first) : siblings.index(last) + 1]
            joined, at = json.loads(text.group(3)), 0
            for piece in (p for p in pieces if p.role == "label" and not is_layout(p)):
                at = joined.index(piece.name, at) + len(piece.name)
            continue
        if parsed is None or RUN.match(line):
            continue
        node = outline.nodes[parsed.group(2)]
        assert not is_layout(node) or node is outline.root_node
        assert line.strip().startswith(node_line(node)), line
    if not view.cut:
        assert {n.ref for n in outline if n.focused} <= set(refs)


@settings(max_examples=60, deadline=None)
@given(outlines(40))
def test_with_room_every_element_is_shown_and_only_layout_nodes_are_not(outline: Outline) -> None:
    view = render_view(outline, "s1", 50_000)
    assert view.folded == sum(
        int(n) for line in view.text.splitlines() for n in TOGETHER.findall(line)
    )
    drawn = set(_line_refs(view.text))
    for node in outline:
        if node.caps - {"focus", "scroll"} and not any(
            RUN.match(line) for line in view.text.splitlines()
        ):
            assert node.ref in drawn


def test_a_caption_that_repeats_its_button_is_not_a_line_of_its_own() -> None:
    press = USUAL_CAPS["button"]
    outline = outline_of(
        raw(
            "frame",
            "Calculator",
            raw("push button", "7", raw("label", "7"), caps=press),
            raw("push button", "Undo", raw("label", "Undo all"), caps=press),
        )
    )
    view = render_view(outline, "s1", 800)
    assert view.text.splitlines()[1:] == [
        '@e1 window "Calculator"',
        '  @e2 button "7"',
        '  @e3 button "Undo"',
        '    @e5 label "Undo all"',
    ]
    assert view.layout == 1
