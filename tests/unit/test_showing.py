"""What is not displayed is not shown (``model.is_hidden``): a backend says ``hidden`` of an
element that is neither visible nor showing, a first view leaves it out, a search ranks it
after everything displayed and marks it, and a condition does not count it unless it names
it. The example is FeatherPad's window: an editor on screen, a closed find/replace dock
whose fields exist but are not displayed."""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import STATES, outline_of, outlines, raw

from actui.backends.atspi.snapshot import SEEN_STATES, with_hidden
from actui.outline.conditions import UiCondition, evaluate
from actui.outline.model import Outline, is_hidden
from actui.outline.search import render_search, search
from actui.outline.view import render_view

SHOWN = frozenset({"enabled", "sensitive", "visible", "showing"})
HIDDEN = frozenset({"enabled", "sensitive", "hidden"})
REF = re.compile(r"@e\d+")


def featherpad() -> Outline:
    """@e1 window; @e2 editor (focused), @e3 dock (hidden); @e4, @e5 its two fields."""
    return outline_of(
        raw(
            "frame",
            "notes.txt",
            raw("text", "", states=SHOWN | {"focused", "multi_line"}, caps=frozenset({"typeText"})),
            raw(
                "panel",
                "Replacement",
                raw("text", "To be replaced", states=HIDDEN, caps=frozenset({"typeText"})),
                raw("text", "Replacing text", states=HIDDEN, caps=frozenset({"typeText"})),
                states=HIDDEN,
            ),
            states=SHOWN,
        )
    )


@given(st.frozensets(st.sampled_from((*STATES, "offscreen")), max_size=6))
def test_a_backend_says_hidden_of_exactly_what_is_neither_visible_nor_showing(
    states: frozenset[str],
) -> None:
    judged = with_hidden(states)
    assert ("hidden" in judged) == (bool(states) and not states & SEEN_STATES)
    assert judged - {"hidden"} == states


def test_a_closed_find_bar_is_left_out_of_the_view_and_ranked_after_the_editor() -> None:
    outline = featherpad()
    view = render_view(outline, "s1", 50_000).text
    assert "To be replaced" not in view and "Replacing text" not in view
    assert "@e2 textbox" in view
    found = search(outline, capability="typeText")
    assert [m.ref for m in found.matches] == ["@e2", "@e4", "@e5"]
    text = render_search(found)
    assert '@e4 textbox "To be replaced" [hidden]' in text and "@e2 textbox [hidden]" not in text
    # even an exact match of a hidden field comes after a weaker one that is displayed
    outline = outline_of(
        raw(
            "frame",
            "w",
            raw("text", "Find", states=HIDDEN),
            raw("text", "Find what", states=SHOWN),
            states=SHOWN,
        )
    )
    assert [m.label for m in search(outline, text="Find").matches] == ["Find what", "Find"]


def test_a_condition_counts_a_hidden_match_only_where_it_names_it() -> None:
    outline = featherpad()
    assert not evaluate(UiCondition(text="To be replaced"), outline).present
    assert evaluate(UiCondition(text="To be replaced", until="absent"), outline).satisfied
    assert evaluate(UiCondition(ref="@e4", text="To be replaced"), outline).present
    assert evaluate(UiCondition(scope_ref="@e3", text="Replacing"), outline).present
    assert not evaluate(UiCondition(scope_ref="@e1", text="Replacing"), outline).present


def _hiding(outline: Outline, picks: list[bool]) -> Outline:
    """``outline`` with the nodes ``picks`` names (by position) said to be hidden."""
    nodes = {
        node.ref: replace(node, states=node.states | {"hidden"}) if hide else node
        for node, hide in zip(outline, picks + [False] * len(outline), strict=False)
    }
    return Outline(outline.root, nodes)


@settings(max_examples=60, deadline=None)
@given(outlines(30), st.lists(st.booleans(), max_size=30), st.integers(100, 3000))
def test_no_view_draws_a_hidden_element_that_leads_to_nothing_shown(
    outline: Outline, picks: list[bool], budget: int
) -> None:
    outline = _hiding(outline, picks)
    drawn = set(REF.findall(render_view(outline, "s1", budget).text))
    for node in outline:
        if node.ref not in drawn or not is_hidden(node) or node.ref == outline.root:
            continue
        below = [d for d in outline.subtree(node) if d is not node]
        # only as the path to something displayed (or focused) it draws
        assert node.focused or any(
            d.ref in drawn and (not is_hidden(d) or d.focused) for d in below
        ), node


@settings(max_examples=60, deadline=None)
@given(outlines(30), st.lists(st.booleans(), max_size=30), st.sampled_from(("button", "textbox")))
def test_every_search_lists_what_is_displayed_before_anything_hidden(
    outline: Outline, picks: list[bool], role: str
) -> None:
    outline = _hiding(outline, picks)
    found = search(outline, role=role, limit=100)
    flags = [m.hidden for m in found.matches]
    assert flags == sorted(flags)
    assert all(m.hidden == is_hidden(outline.nodes[m.ref]) for m in found.matches)
