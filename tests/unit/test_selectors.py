"""Portable selectors: found again by role, name and named ancestors; strict when resolved."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import outline_of, raw

from actui.outline.model import Outline
from actui.outline.selectors import Ancestor, Selector, resolve, selector_of


def form(*names: str, ok: str = "OK") -> Outline:
    return outline_of(
        raw(
            "dialog",
            "Forms",
            raw("panel", "Contact", *(raw("text", name) for name in names)),
            raw("push button", ok),
            raw("push button", "Cancel"),
        )
    )


def node_named(outline: Outline, name: str, role: str = "textbox") -> str:
    (node,) = [n for n in outline if n.name == name and n.role == role]
    return node.ref


def test_a_selector_keeps_role_name_and_named_ancestors_but_not_the_window() -> None:
    outline = form("Name", "City")
    selector = selector_of(outline, outline.nodes[node_named(outline, "City")])
    assert selector == Selector("textbox", "City", (Ancestor("group", "Contact"),))
    assert selector.describe() == 'textbox "City" in group "Contact"'


def test_the_same_element_is_found_in_a_later_look_with_other_refs_and_order() -> None:
    recorded = form("Name", "City")
    selector = selector_of(recorded, recorded.nodes[node_named(recorded, "City")])
    later = form("City", "Zip", "Name")  # rows re-ordered and one added around the target
    found = resolve(later, selector)
    assert found.node is not None and found.node.name == "City"
    assert found.node.ref != node_named(recorded, "City")


def test_a_relabelled_button_is_not_found_and_the_nearest_candidates_are_named() -> None:
    recorded = form("Name")
    selector = selector_of(recorded, recorded.nodes[node_named(recorded, "OK", "button")])
    found = resolve(form("Name", ok="Okay"), selector)
    assert found.node is None and found.why == "not_found"
    assert found.candidates[0] == 'dialog "Forms" ▸ button "Okay"'


def test_equals_are_told_apart_by_index_only_while_their_count_is_the_same() -> None:
    recorded = form("Item", "Item", "Item")
    second = [n for n in recorded if n.name == "Item"][1]
    selector = selector_of(recorded, second)
    assert (selector.index, selector.of) == (1, 3)
    assert resolve(recorded, selector).node == second
    found = resolve(form("Item", "Item"), selector)
    assert found.node is None and found.why == "ambiguous" and len(found.candidates) == 2


def test_two_equals_without_a_recorded_index_are_ambiguous_not_a_guess() -> None:
    selector = Selector("textbox", "Item", (Ancestor("group", "Contact"),))
    found = resolve(form("Item", "Item"), selector)
    assert found.node is None and found.why == "ambiguous"


def test_an_offscreen_element_is_never_a_match() -> None:
    hidden = frozenset({"visible"})  # visible without showing: a hidden page
    outline = outline_of(
        raw("frame", "Editor", raw("text", "Body", states=hidden), raw("text", "Body"))
    )
    found = resolve(outline, Selector("textbox", "Body"))
    assert found.node is not None and "showing" not in found.node.states
    assert found.node.ref == [n for n in outline if n.name == "Body"][1].ref


@given(st.lists(st.sampled_from(["A", "B", "C", "D"]), min_size=1, max_size=8))
def test_every_shown_element_resolves_back_to_itself(names: list[str]) -> None:
    outline = form(*names)
    for node in outline:
        if node.ref != outline.root:
            assert resolve(outline, selector_of(outline, node)).node == node


def test_a_query_without_a_path_finds_the_one_element_under_any_ancestors() -> None:
    outline = form("Name", "City")
    assert resolve(outline, Selector("textbox", "Name")).why == "not_found"  # path pinned: none
    found = resolve(outline, Selector("textbox", "Name"), anywhere=True)
    assert found.node is not None and found.node.name == "Name"
