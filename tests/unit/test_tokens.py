"""The token estimator and the budget it enforces on every result (``maxTokens``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actui.errors import InvalidParams
from actui.results.bounds import OutputStore
from actui.tokens import estimate_tokens
from actui.tools.catalog import validate_call as validate
from actui.tools.contract import MAX_TOKENS, MIN_TOKENS


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("hello world", 4),  # a space before a word is part of it
        ("camelCase", 3),  # camel + Case
        ("1234567", 3),  # digits go three by three
        ("@e12", 3),
        ("日本語", 3),
        ("😀", 2),
        ("a\n\nb", 3),
    ],
)
def test_the_estimate_counts_by_character_class(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


@given(st.text(max_size=200), st.text(max_size=200))
def test_two_texts_joined_by_a_line_cost_at_most_their_parts_and_three(a: str, b: str) -> None:
    assert estimate_tokens(a + "\n" + b) <= estimate_tokens(a) + estimate_tokens(b) + 3


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=3000), st.integers(MIN_TOKENS, 800))
def test_output_over_its_budget_is_cut_with_a_receipt_and_kept_whole(
    text: str, budget: int
) -> None:
    store = OutputStore()
    try:
        shown = store.bound(text, tool="search_ui", max_tokens=budget)
        assert estimate_tokens(shown) <= budget
        if shown == text:
            return
        assert f"(maxTokens {budget})" in shown and 'read_text({"ref": "@o1"' in shown
        cut = int(shown.rsplit('"offset": ', 1)[1].split("}", 1)[0])
        preview = shown.rsplit("\n\n[output truncated", 1)[0]
        data = text.encode("utf-8", "replace")
        assert preview.encode() == data[:cut]
        rest, offset = b"", cut
        while offset < len(data):
            page = store.read("@o1", offset)
            rest += page.text.encode()
            offset = page.offset + page.limit
        assert data[:cut] + rest == data
    finally:
        store.close()


@pytest.mark.parametrize("bad", [0, MIN_TOKENS - 1, MAX_TOKENS + 1, "many", True])
def test_a_budget_out_of_range_is_refused_naming_the_field_and_the_range(bad: object) -> None:
    with pytest.raises(InvalidParams) as raised:
        validate("observe_ui", {"maxTokens": bad})
    assert raised.value.field == "maxTokens"
    assert f"from {MIN_TOKENS} to {MAX_TOKENS}" in raised.value.message


def test_every_tool_takes_a_budget() -> None:
    from actui.tools.catalog import TOOLS
    from actui.tools.contract import input_schema

    for tool in TOOLS:
        prop = input_schema(tool.params)["properties"]["maxTokens"]
        assert (prop["minimum"], prop["maximum"]) == (MIN_TOKENS, MAX_TOKENS), tool.name
