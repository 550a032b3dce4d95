"""App-controlled text is bounded in bytes: cached names, element details, structured content."""

from __future__ import annotations

import json

from strategies import outline_of, raw

from actui.backends.atspi import names
from actui.backends.base import TEXT_CAP
from actui.results.bounds import FIELD_CAP, bound_details
from actui.results.views import node_json


def test_long_names_are_cut_and_never_cached() -> None:
    names._cached_clean_name.cache_clear()
    for i in range(50):
        cleaned = names.clean_name(f"{i} " + "x" * 200_000, "GTK 3")
        assert len(cleaned) == TEXT_CAP
    assert names._cached_clean_name.cache_info().currsize == 0
    assert len(names.clean_text("y" * 200_000)) == TEXT_CAP


def test_the_name_cache_holds_a_bounded_number_of_characters() -> None:
    names._cached_clean_name.cache_clear()
    for i in range(names.CACHED_NAMES * 2):
        names.clean_name(f"{i:08d}" + "z" * (names.CACHED_NAME_CHARS - 8), "GTK 4")
    info = names._cached_clean_name.cache_info()
    assert info.currsize <= names.CACHED_NAMES
    assert names.clean_name("7 7", "GTK 4") == "7", "short names are still cleaned"


def test_node_details_cut_name_and_description_and_say_how_long_they_were() -> None:
    huge = "n" * 1_000_000
    outline = outline_of(raw("frame", "w", raw("label", huge, description=huge)))
    node = next(n for n in outline if n.role == "label")
    details = node_json(node)
    assert len(json.dumps(details)) < 4096
    assert details["nameLength"] == details["descriptionLength"] == 1_000_000


def test_structured_content_strings_are_capped_at_any_depth() -> None:
    huge = "é" * (FIELD_CAP * 3)
    details = bound_details({"a": [{"b": huge}], "c": huge, "n": 3, "ok": "short"})
    assert details["n"] == 3 and details["ok"] == "short"
    assert len(details["c"]) <= FIELD_CAP + 1 and details["c"].endswith("…")
    assert len(details["a"][0]["b"]) <= FIELD_CAP + 1
