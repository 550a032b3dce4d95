"""Ranked search: tiers, filters, ordering and rendering."""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import outline_of, outlines, raw

from actui.backends.base import RawNode
from actui.errors import InvalidParams
from actui.outline.fold import USUAL_CAPS
from actui.outline.model import Outline, build_outline, is_offscreen
from actui.outline.search import (
    TOP_N,
    osa_distance,
    rank_text,
    render_search,
    search,
)

PRESS = USUAL_CAPS["button"]


def fixture_window() -> Outline:
    return outline_of(
        raw(
            "frame",
            "Editor",
            raw("push button", "Svae", caps=PRESS),
            raw("push button", "Autosave", caps=PRESS),
            raw("push button", "Save changes", caps=PRESS),
            raw("push button", "Save", caps=PRESS),
        )
    )


def test_ranking_fixture_gives_exact_prefix_substring_fuzzy() -> None:
    result = search(fixture_window(), text="save")
    assert [(m.label, m.reason) for m in result.matches] == [
        ("Save", "exact"),
        ("Save changes", "prefix"),
        ("Autosave", "substring"),
        ("Svae", "fuzzy"),
    ]
    assert result.total == 4
    assert [m.score for m in result.matches] == [1.0, 0.95, 0.90, 0.75]


def test_query_and_candidates_are_normalized() -> None:
    assert rank_text("  SAVE \n changes ", ["save   Changes"]) == ("exact", 1.0)


def test_a_token_starting_with_the_query_is_a_prefix_match() -> None:
    assert rank_text("chan", ["Save changes"]) == ("prefix", 0.95)


def test_fuzzy_below_threshold_is_no_match() -> None:
    assert rank_text("save", ["sofa"]) is None
    assert rank_text("", ["save"]) is None


def test_role_words_are_not_matched_as_text() -> None:
    outline = outline_of(raw("frame", "", raw("push button", "")))
    assert search(outline, text="button").total == 0


def test_native_ids_are_never_matched() -> None:
    outline = outline_of(
        raw("frame", "", raw("push button", "", wire="/org/a11y/atspi/accessible/7"))
    )
    assert search(outline, text="accessible").total == 0
    assert search(outline, text="/org/a11y/atspi/accessible/7").total == 0


def test_a_password_value_is_never_matched() -> None:
    outline = outline_of(raw("frame", "", raw("password text", "Pin", value="4711", secure=True)))
    assert search(outline, text="4711").total == 0
    assert "4711" not in json.dumps(
        [dataclasses.asdict(m) for m in search(outline, role="password").matches]
    )


def test_description_and_value_are_candidates() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("text", "Name", value="Ada Lovelace"),
            raw("push button", "", description="Close tab"),
        )
    )
    assert [m.ref for m in search(outline, text="lovelace").matches] == ["@e2"]
    assert [m.ref for m in search(outline, text="close tab").matches] == ["@e3"]


def test_role_filter_uses_the_neutral_vocabulary() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("push button", "GTK3", caps=PRESS),
            raw("button", "GTK4", caps=PRESS),
            raw("toggle button", "Bold"),
        )
    )
    for query in ("button", "push button", "PushButton", "push_button"):
        result = search(outline, role=query)
        assert [m.label for m in result.matches] == ["GTK3", "GTK4"]
        assert {m.reason for m in result.matches} == {"filter"}
        assert {m.score for m in result.matches} == {1.0}
    assert render_search(search(outline, role="button")).splitlines()[1:] == [
        '@e2 button "GTK3"',
        '@e3 button "GTK4"',
    ], "a match by role alone carries no reason tag"


def test_capability_filter_uses_caps_aliases_and_action_names() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("text", "Entry", caps=frozenset({"setText", "focus"})),
            raw("slider", "Volume", caps=frozenset({"setValue"})),
            raw("push button", "OK", caps=frozenset({"press"})),
            raw("link", "Docs", actions=("jump",)),
        )
    )
    labels = {
        q: [m.label for m in search(outline, capability=q).matches]
        for q in ("settext", "set_text", "setText", "setvalue", "click", "press", "JUMP", "scroll")
    }
    assert labels == {
        "settext": ["Entry"],
        "set_text": ["Entry"],
        "setText": ["Entry"],
        "setvalue": ["Volume"],
        "click": ["OK"],
        "press": ["OK"],
        "JUMP": ["Docs"],
        "scroll": [],
    }


def test_text_and_filters_are_conjunctive() -> None:
    outline = outline_of(raw("frame", "", raw("label", "Save"), raw("push button", "Save")))
    assert [m.ref for m in search(outline, text="save", role="button").matches] == ["@e3"]


def test_without_any_query_it_is_an_invalid_params_error() -> None:
    with pytest.raises(InvalidParams):
        search(fixture_window(), text="  ", role=None)


def test_strong_matches_order_by_tier_then_breadth_first() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            raw("panel", "", raw("label", "Save")),
            raw("label", "Autosave"),
            raw("label", "save"),
        )
    )
    assert [m.ref for m in search(outline, text="save").matches] == ["@e4", "@e5", "@e3"]


def test_fuzzy_matches_are_dropped_once_strong_matches_fill_the_limit() -> None:
    strong = [raw("label", f"save {i}") for i in range(TOP_N)]
    outline = outline_of(raw("frame", "", raw("label", "svae"), *strong))
    result = search(outline, text="save")
    assert result.total == TOP_N and len(result.matches) == TOP_N
    assert {m.reason for m in result.matches} == {"prefix"}
    fewer = search(outline_of(raw("frame", "", raw("label", "svae"), *strong[:3])), text="save")
    assert fewer.total == 4 and fewer.matches[-1].reason == "fuzzy"


def test_limit_caps_the_returned_matches_not_the_total() -> None:
    outline = outline_of(raw("frame", "", *[raw("push button", f"b{i}") for i in range(30)]))
    result = search(outline, role="button", limit=5)
    assert len(result.matches) == 5 and result.total == 30


def test_render_search_lists_matches_with_their_reason() -> None:
    text = render_search(search(fixture_window(), text="save"))
    assert text.splitlines()[:3] == [
        "found 4.",
        '@e5 button "Save" [exact]',
        '@e4 button "Save changes" [prefix]',
    ]
    assert '@e2 button "Svae" [fuzzy 0.75]' in text
    assert "path:" not in text, "no match reads like another: no path is needed"


def test_render_search_gives_a_path_only_to_matches_that_read_alike() -> None:
    outline = outline_of(
        raw(
            "frame",
            "Editor",
            raw("panel", "Left", raw("push button", "Save")),
            raw("panel", "Right", raw("push button", "Save")),
            raw("push button", "Save all"),
        )
    )
    lines = render_search(search(outline, text="save")).splitlines()
    paths = [line for line in lines if line.startswith("  path: ")]
    assert paths == [
        '  path: window "Editor" ▸ group "Left" ▸ button "Save"',
        '  path: window "Editor" ▸ group "Right" ▸ button "Save"',
    ]


def test_render_search_hints_when_more_or_nothing_matched() -> None:
    outline = outline_of(raw("frame", "", *[raw("push button", f"b{i}") for i in range(30)]))
    assert render_search(search(outline, role="button")).startswith("found 30; returned 12. Refine")
    assert render_search(search(outline, text="zebra")).startswith("found 0.")


def test_matches_are_plain_json_safe_values() -> None:
    result = search(fixture_window(), text="save")
    json.dumps([dataclasses.asdict(m) for m in result.matches])


def test_osa_counts_an_adjacent_swap_as_one_edit() -> None:
    assert osa_distance("save", "svae") == 1
    assert osa_distance("kitten", "sitting") == 3
    assert osa_distance("ca", "abc") == 3  # restricted: no edit of a swapped pair
    assert osa_distance("", "abc") == osa_distance("abc", "") == 3


@cache
def reference_osa(a: str, b: str) -> int:
    """The textbook recursive definition, to check the table implementation."""
    if not a or not b:
        return len(a) + len(b)
    best = min(
        reference_osa(a[:-1], b) + 1,
        reference_osa(a, b[:-1]) + 1,
        reference_osa(a[:-1], b[:-1]) + (a[-1] != b[-1]),
    )
    if len(a) > 1 and len(b) > 1 and a[-1] == b[-2] and a[-2] == b[-1]:
        best = min(best, reference_osa(a[:-2], b[:-2]) + 1)
    return best


WORDS = st.text("abcs", max_size=7)


@settings(max_examples=200, deadline=None)
@given(WORDS, WORDS, WORDS)
def test_osa_is_symmetric_bounded_and_nearly_a_metric(a: str, b: str, c: str) -> None:
    assert osa_distance(a, b) == osa_distance(b, a) == reference_osa(a, b)
    assert (osa_distance(a, b) == 0) == (a == b)
    assert abs(len(a) - len(b)) <= osa_distance(a, b) <= max(len(a), len(b))
    assert osa_distance(a, c) <= 2 * (osa_distance(a, b) + osa_distance(b, c))


@settings(max_examples=200, deadline=None)
@given(WORDS, WORDS, st.integers(0, 4))
def test_a_capped_osa_is_exact_within_the_cap_and_above_it_otherwise(
    a: str, b: str, cap: int
) -> None:
    exact = reference_osa(a, b)
    capped = osa_distance(a, b, cap)
    assert capped == exact if exact <= cap else capped > cap


@settings(max_examples=200, deadline=None)
@given(WORDS.filter(bool), WORDS, WORDS)
def test_a_candidate_containing_the_query_ranks_at_least_substring(
    query: str, before: str, after: str
) -> None:
    ranked = rank_text(query, [before + query + after])
    assert ranked is not None and ranked[0] in ("exact", "prefix", "substring")
    assert rank_text(query, [query]) == ("exact", 1.0)


@settings(max_examples=60, deadline=None)
@given(outlines(40), st.sampled_from(["save", "ok", "nme", "hint", "b"]))
def test_search_totals_and_order_hold_for_random_trees(outline: Outline, text: str) -> None:
    result = search(outline, text=text)
    assert len(result.matches) <= min(TOP_N, result.total)
    assert len({m.ref for m in result.matches}) == len(result.matches)
    tiers = {"exact": 0, "prefix": 1, "substring": 2, "fuzzy": 3}
    keys = [(tiers[m.reason], -m.score if m.reason == "fuzzy" else 0) for m in result.matches]
    assert keys == sorted(keys)
    for match in result.matches:
        node = outline.nodes[match.ref]
        assert rank_text(text, (node.name, node.description, node.value)) is not None


@settings(max_examples=60, deadline=None)
@given(outlines(40), st.sampled_from(["button", "textbox", "group", "password"]))
def test_role_filter_finds_exactly_the_nodes_of_that_role(outline: Outline, role: str) -> None:
    result = search(outline, role=role, limit=1000)
    wanted = sorted((n for n in outline if n.role == role), key=is_offscreen)  # stable: BFS
    assert [m.ref for m in result.matches] == [n.ref for n in wanted]


def test_on_screen_matches_come_before_hidden_ones_of_the_same_tier() -> None:
    hidden = RawNode("a", "text", name="", states=frozenset({"visible"}))
    shown = RawNode("b", "text", name="", states=frozenset({"visible", "showing"}))
    outline = build_outline(RawNode("r", "frame", children=(hidden, shown)), None)
    found = search(outline, role="textbox")
    assert [outline.nodes[m.ref].wire for m in found.matches] == ["b", "a"]
