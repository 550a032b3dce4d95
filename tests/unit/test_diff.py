"""Ref stabilization and successor diffs."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import inserted, outline_of, paths, raw, raw_trees, removed, rewired

from actui.backends.base import RawNode, Rect
from actui.outline.diff import (
    changes_json,
    compute_changes,
    diff_or_view,
    render_changes,
    stabilize,
    structural_key,
)
from actui.outline.fold import USUAL_CAPS
from actui.outline.model import Outline, build_outline
from actui.outline.view import render_view

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from page_model import Page  # the agent's reader of views and diffs


def successor_of(base: Outline, tree: RawNode) -> Outline:
    return stabilize(base, outline_of(tree))


def refs_by_wire(outline: Outline) -> dict[str | None, str]:
    return {n.wire: n.ref for n in outline}


def form(value: str = "", name: str = "Name") -> RawNode:
    return raw(
        "frame",
        "Form",
        raw(
            "panel",
            "",
            raw("label", name, wire="/l"),
            raw("text", "", wire="/t", value=value),
            wire="/p",
        ),
        raw("push button", "OK", wire="/ok"),
        wire="/f",
    )


def test_structural_key_chains_tokens_and_same_token_sibling_index() -> None:
    outline = outline_of(raw("frame", "Win", raw("push button", "A"), raw("push button", "A")))
    assert structural_key(outline, outline.nodes["@e3"]) == "frame|win|#0/push button|a|#1"


def test_inserting_before_siblings_keeps_wire_matched_refs_and_diffs_small() -> None:
    base = outline_of(form())
    tree = inserted(form(value="hi"), (0,), 0, raw("label", "New", wire="/new"))
    successor = successor_of(base, tree)
    for wire, ref in refs_by_wire(base).items():
        assert refs_by_wire(successor)[wire] == ref
    changes = compute_changes(base, successor)
    assert changes.full_view_reason is None
    assert [a.ref for a in changes.added] == ["@e6"] and refs_by_wire(successor)["/new"] == "@e6"
    assert [(u.ref, dict(u.fields)) for u in changes.updated] == [
        (refs_by_wire(base)["/t"], {"value": "hi"})
    ]
    assert changes.removed == ()


def test_regenerated_wire_ids_keep_refs_through_structural_keys() -> None:
    base = outline_of(form())
    successor = successor_of(base, rewired(form(), "/look2"))
    assert [(n.ref, n.name, n.raw_role) for n in successor] == [
        (n.ref, n.name, n.raw_role) for n in base
    ]
    changes = compute_changes(base, successor)
    assert changes.count == 0 and changes.full_view_reason is None


def test_renaming_a_container_does_not_rekey_its_children() -> None:
    base = outline_of(form())
    renamed = raw(
        "frame",
        "Form (edited)",
        raw("panel", "", raw("label", "Name"), raw("text", "")),
        raw("push button", "OK"),
    )
    successor = successor_of(base, renamed)
    assert [n.ref for n in successor] == [n.ref for n in base]
    assert [u.ref for u in compute_changes(base, successor).updated] == ["@e1"]


def test_new_nodes_are_numbered_above_the_base_maximum_in_breadth_first_order() -> None:
    base = outline_of(form())
    tree = inserted(
        inserted(form(), (), 2, raw("label", "Z", wire="/z")), (), 0, raw("label", "Y", wire="/y")
    )
    successor = successor_of(base, tree)
    assert [n.ref for n in successor] == ["@e1", "@e6", "@e2", "@e3", "@e7", "@e4", "@e5"]
    assert [n.wire for n in successor] == [n.wire for n in outline_of(tree)]


def test_removed_nodes_are_each_listed_with_their_parent() -> None:
    base = outline_of(form())
    successor = successor_of(base, removed(form(), (0,)))
    changes = compute_changes(base, successor)
    assert [(r.ref, r.parent) for r in changes.removed] == [
        ("@e2", "@e1"),
        ("@e4", "@e2"),
        ("@e5", "@e2"),
    ]


def test_a_changed_root_role_asks_for_a_full_view() -> None:
    base = outline_of(form())
    tree = raw("dialog", "Form", *form().children, wire="/f")
    assert compute_changes(base, successor_of(base, tree)).full_view_reason == "root_replaced"


def many(count: int, prefix: str, role: str = "label") -> list[RawNode]:
    return [raw(role, f"{prefix}{i}", wire=f"/{prefix}{i}") for i in range(count)]


def test_low_identity_confidence_asks_for_a_full_view_only_above_eight_nodes() -> None:
    base = outline_of(raw("frame", "W", *many(8, "old"), wire="/w"))
    big = successor_of(base, raw("frame", "W", *many(8, "new", "push button"), wire="/w"))
    assert compute_changes(base, big).identity_confidence == 1 / 9
    assert compute_changes(base, big).full_view_reason == "identity_confidence_low"
    small = outline_of(raw("frame", "W", *many(2, "old"), wire="/w"))
    replaced = successor_of(small, raw("frame", "W", *many(7, "new", "push button"), wire="/w"))
    assert len(replaced) == 8 and compute_changes(small, replaced).full_view_reason is None


def test_more_than_a_hundred_changes_ask_for_a_full_view() -> None:
    base = outline_of(raw("frame", "W", *many(400, "a"), wire="/w"))
    tree = raw("frame", "W", *many(400, "a"), *many(101, "b"), wire="/w")
    changes = compute_changes(base, successor_of(base, tree))
    assert changes.count == 101 and changes.change_ratio < 0.65
    assert changes.full_view_reason == "change_budget_exceeded"
    fewer = compute_changes(
        base, successor_of(base, raw("frame", "W", *many(400, "a"), *many(100, "b"), wire="/w"))
    )
    assert fewer.full_view_reason is None


def test_over_twenty_changes_with_a_high_ratio_ask_for_a_full_view() -> None:
    def labels(total: int, edited: int) -> RawNode:
        kids = [
            replace(n, value="edited" if i < edited else None)
            for i, n in enumerate(many(total, "a"))
        ]
        return raw("frame", "W", *kids, wire="/w")

    base = outline_of(labels(30, 0))
    changes = compute_changes(base, successor_of(base, labels(30, 21)))
    assert changes.count == 21 and changes.change_ratio > 0.65
    assert changes.full_view_reason == "change_budget_exceeded"
    base = outline_of(labels(40, 0))
    changes = compute_changes(base, successor_of(base, labels(40, 21)))
    assert changes.change_ratio <= 0.65 and changes.full_view_reason is None


def test_render_lists_added_updated_removed_and_the_new_state() -> None:
    base = outline_of(form())
    tree = removed(
        inserted(
            form(value="hi", name="Full name"),
            (),
            2,
            raw("push button", "Cancel", wire="/c", caps=USUAL_CAPS["button"]),
        ),
        (1,),
    )
    successor = successor_of(base, tree)
    text = render_changes(compute_changes(base, successor), successor, "S0", "S1")
    assert text.splitlines() == [
        "S0 → S1",
        '+ @e6 under @e1 after @e5 button "Cancel"',
        '~ @e4 label "Full name"',
        '~ @e5 textbox "hi": value="hi"',
        '- @e3 (was button "OK")',
    ]


def test_render_says_so_when_nothing_changed() -> None:
    base = outline_of(form())
    successor = successor_of(base, form())
    text = render_changes(compute_changes(base, successor), successor, "S0", "S1")
    assert text.splitlines() == ["S0 → S1: no changes"]


def test_render_names_state_changes_and_counts_moved_elements() -> None:
    base = outline_of(
        raw("frame", "", raw("check box", "Bold", wire="/b", rect=Rect(0, 0, 9, 9)), wire="/f")
    )
    tree = raw(
        "frame",
        "",
        raw("check box", "Bold", wire="/b", states=frozenset({"checked"}), rect=Rect(1, 0, 9, 9)),
        wire="/f",
    )
    moved = raw("frame", "", raw("check box", "Bold", wire="/b", rect=Rect(5, 5, 9, 9)), wire="/f")
    successor = successor_of(base, tree)
    assert '~ @e2 checkbox "Bold": +checked' in render_changes(
        compute_changes(base, successor), successor, "S0", "S1"
    )
    successor = successor_of(base, moved)
    assert "(1 moved or resized)" in render_changes(
        compute_changes(base, successor), successor, "S0", "S1"
    )


def test_full_view_renders_the_fold_with_the_reason_in_its_header() -> None:
    base = outline_of(form())
    successor = successor_of(base, raw("dialog", "Form", *form().children))
    text = render_changes(compute_changes(base, successor), successor, "S0", "S1")
    assert text.splitlines()[0] == ("stateId S1: 5 nodes, 4 shown; full view: root_replaced")
    assert sum(line.count("S1") for line in text.splitlines()) == 1, "the new state named once"


def test_password_values_never_enter_a_diff() -> None:
    def login(secret: str) -> RawNode:
        return raw(
            "frame",
            "",
            raw("password text", "Pin", wire="/pw", value=secret, secure=True),
            wire="/f",
        )

    base = build_outline(login("1234"), None)
    successor = successor_of(base, login("98765"))
    changes = compute_changes(base, successor)
    assert changes.count == 0
    everything = render_changes(changes, successor, "S0", "S1") + json.dumps(changes_json(changes))
    assert "1234" not in everything and "98765" not in everything


def test_changes_json_is_plain_json() -> None:
    base = outline_of(form())
    tree = removed(inserted(form(value="hi"), (), 0, raw("push button", "Cancel")), (2,))
    changes = compute_changes(base, successor_of(base, tree))
    details = json.loads(json.dumps(changes_json(changes)))
    assert {d["change"] for d in details} == {"added", "updated", "removed"}


@settings(max_examples=40, deadline=None)
@given(raw_trees(40))
def test_a_successor_identical_to_its_base_keeps_every_ref_and_has_no_changes(
    tree: RawNode,
) -> None:
    base = outline_of(tree)
    for successor in (successor_of(base, tree), successor_of(base, rewired(tree, "/again"))):
        assert [(n.ref, n.parent, n.children) for n in successor] == [
            (n.ref, n.parent, n.children) for n in base
        ]
        changes = compute_changes(base, successor)
        assert changes.count == 0 and changes.full_view_reason is None
        assert changes.identity_confidence == 1.0


@settings(max_examples=40, deadline=None)
@given(raw_trees(40), st.data())
def test_a_sibling_insertion_adds_one_node_and_keeps_all_other_refs(
    tree: RawNode, data: st.DataObject
) -> None:
    at = data.draw(st.sampled_from(paths(tree)))
    parent = tree
    for index in at:
        parent = parent.children[index]
    index = data.draw(st.integers(0, len(parent.children)))
    new = raw("push button", data.draw(st.sampled_from(["", "Save", "OK"])), wire="/inserted")
    base = outline_of(tree)
    successor = successor_of(base, inserted(tree, at, index, new))
    assert {w: r for w, r in refs_by_wire(successor).items() if w != "/inserted"} == refs_by_wire(
        base
    )
    changes = compute_changes(base, successor)
    assert [a.ref for a in changes.added] == [f"@e{len(base) + 1}"]
    assert changes.updated == () and changes.removed == ()
    assert changes.full_view_reason is None


@settings(max_examples=40, deadline=None)
@given(raw_trees(40), raw_trees(40), st.booleans())
def test_added_and_removed_are_the_ref_set_differences(
    first: RawNode, second: RawNode, regenerate: bool
) -> None:
    base = outline_of(first)
    successor = successor_of(base, rewired(second, "/x") if regenerate else second)
    changes = compute_changes(base, successor)
    assert {a.ref for a in changes.added} == set(successor.nodes) - set(base.nodes)
    assert {r.ref for r in changes.removed} == set(base.nodes) - set(successor.nodes)
    fresh = [n for n in successor if n.ref not in base.nodes]
    assert [int(n.ref[2:]) for n in fresh] == list(
        range(base.max_ref + 1, base.max_ref + 1 + len(fresh))
    )
    assert len({n.ref for n in successor}) == len(successor)
    assert changes.identity_confidence == (len(successor) - len(fresh)) / len(successor)
    json.dumps(changes_json(changes))


def _two_fields(first: str, second: str) -> RawNode:
    return raw(
        "frame",
        "Form",
        raw("panel", "Billing", raw("text", "", wire="/b", value=first), wire="/pb"),
        raw("panel", "Shipping", raw("text", "", wire="/s", value=second), wire="/ps"),
        wire="/f",
    )


def test_a_changed_line_names_its_ancestors_only_when_its_name_is_not_unique() -> None:
    base = outline_of(_two_fields("a", "b"))
    successor = successor_of(base, _two_fields("a", "c"))
    lines = render_changes(compute_changes(base, successor), successor, "S0", "S1").splitlines()
    assert lines[1:] == ['~ @e5 textbox "c": value="c"'], "a unique name needs no path"

    def copies(second_value: str) -> RawNode:
        return raw(
            "frame",
            "Form",
            raw("panel", "Billing", raw("push button", "Copy", wire="/b"), wire="/pb"),
            raw(
                "panel",
                "Shipping",
                raw("push button", "Copy", wire="/s", value=second_value),
                wire="/ps",
            ),
            wire="/f",
        )

    base = outline_of(copies(""))
    successor = successor_of(base, copies("x"))
    text = render_changes(compute_changes(base, successor), successor, "S0", "S1")
    (line,) = text.splitlines()[1:]
    shipping = next(n.ref for n in successor if n.label == "Shipping")
    assert line.startswith(f'~ @e5 (@e1 > {shipping}) button "Copy"'), line


def test_a_diff_longer_than_the_fresh_view_is_replaced_by_the_view() -> None:
    press = USUAL_CAPS["button"]
    many = [raw("push button", f"Old {i}", wire=f"/o{i}", caps=press) for i in range(8)]
    fresh = [raw("push button", f"New {i}", wire=f"/n{i}", caps=press) for i in range(8)]
    kept = [raw("push button", f"Kept {i}", wire=f"/k{i}", caps=press) for i in range(6)]
    base = outline_of(raw("frame", "Log", *kept, *many, wire="/f"))
    successor = successor_of(base, raw("frame", "Log", *kept, *fresh, wire="/f"))
    changes = compute_changes(base, successor)
    assert changes.full_view_reason is None, "not over the change budget by count"
    text, reason = diff_or_view(changes, successor, "S0", "S1", 800)
    assert reason == "diff_longer_than_view"
    assert text.splitlines()[0] == "stateId S1: 15 nodes, 15 shown", "the old refs still hold"
    assert "New 7" in text


def test_a_label_whose_text_changed_in_place_keeps_its_ref_and_reads_as_an_update() -> None:
    def page(left: str) -> RawNode:
        return raw(
            "frame",
            "Task",
            raw("panel", "", raw("label", "Time left:"), raw("label", left), wire="/p"),
            wire="/f",
        )

    base = outline_of(page("60 / 60sec"))
    successor = successor_of(base, page("59 / 60sec"))  # the page made a new text node
    text = render_changes(compute_changes(base, successor), successor, "S0", "S1")
    assert text.splitlines() == [
        "S0 → S1",
        '~ @e3 … @e4: text "Time left: 59 / 60sec"',  # the line a view draws, whole
    ]


def test_text_leaves_are_not_paired_when_their_count_changed() -> None:
    base = outline_of(raw("frame", "", raw("label", "a"), raw("label", "b"), wire="/f"))
    successor = successor_of(base, raw("frame", "", raw("label", "c"), wire="/f"))
    changes = compute_changes(base, successor)
    assert (len(changes.added), len(changes.removed)) == (1, 2)


def test_alike_lines_under_unnamed_groups_name_no_refs_a_view_never_drew() -> None:
    def scores(first: str) -> RawNode:
        return raw(
            "frame",
            "Task",
            raw("panel", "", raw("label", first, wire="/a"), wire="/pa"),
            raw("panel", "", raw("label", "1.00", wire="/b"), wire="/pb"),
            wire="/f",
        )

    base = outline_of(scores("-"))
    successor = successor_of(base, scores("1.00"))
    text = render_changes(compute_changes(base, successor), successor, "S0", "S1")
    assert text.splitlines()[1:] == ['~ @e4 label "1.00"']


def test_an_added_element_in_the_details_carries_only_its_non_empty_fields() -> None:
    base = outline_of(form())
    successor = successor_of(base, inserted(form(), (), 1, raw("push button", "Cancel")))
    (added,) = [d for d in changes_json(compute_changes(base, successor)) if d["change"] == "added"]
    assert added["role"] == "button" and added["name"] == "Cancel" and added["parent"] == "@e1"
    assert "description" not in added and "states" not in added and "secure" not in added


def test_what_a_page_holds_is_not_removed_when_the_next_look_leaves_it_unread() -> None:
    base = outline_of(form())  # the panel's children were read on demand into the base
    hidden = form()
    panel = replace(hidden.children[0], children=(), unread=2)
    left = successor_of(base, replace(hidden, children=(panel, *hidden.children[1:])))
    assert compute_changes(base, left).removed == ()
    emptied = replace(hidden, children=(replace(panel, unread=0), *hidden.children[1:]))
    gone = compute_changes(base, successor_of(base, emptied)).removed
    assert [r.ref for r in gone] == ["@e4", "@e5"], "a page read and emptied lost them"


def test_a_field_whose_inferred_label_changed_reads_its_new_name() -> None:
    def page(label: str) -> RawNode:
        return raw(
            "frame",
            "Form",
            raw("label", label, wire="/l", rect=Rect(0, 0, 40, 20)),
            raw("text", "", wire="/t", rect=Rect(50, 0, 100, 20)),
            wire="/f",
        )

    base = outline_of(page("Age"))
    successor = successor_of(base, page("Height"))
    text = render_changes(compute_changes(base, successor), successor, "s1", "s2")
    assert text.splitlines() == [
        "s1 → s2",
        '~ @e2 label "Height"',
        '~ @e3 textbox "Height" (label inferred)',
    ]


def test_focus_that_moved_is_said_once_on_the_element_that_gained_it() -> None:
    def page(focused: str) -> RawNode:
        def field(name: str) -> RawNode:
            states = frozenset({"focused"}) if name == focused else frozenset()
            return raw("push button", name, wire=f"/{name}", states=states)

        return raw("frame", "Form", field("A"), field("B"), wire="/f")

    base = outline_of(page("A"))
    successor = successor_of(base, page("B"))
    changes = compute_changes(base, successor)
    assert render_changes(changes, successor, "s1", "s2").splitlines() == [
        "s1 → s2",
        '~ @e3 button "B": +focused',
        "(1 unfocused)",
    ]
    assert len(changes_json(changes)) == 2, "structuredContent lists both"
    lost = successor_of(base, page(""))  # focus went nowhere shown: the loss is a line
    assert '~ @e2 button "A": -focused' in render_changes(
        compute_changes(base, lost), lost, "s1", "s2"
    )


def test_a_removed_subtree_is_one_line_naming_the_refs_gone_with_it() -> None:
    def page(dialog: bool) -> RawNode:
        panel = raw("panel", "", raw("push button", "Close", wire="/c"), wire="/p")
        kids = [raw("label", "Score", wire="/s")]
        if dialog:
            kids += [
                raw("dialog", "Hi", panel, raw("label", "Hi there", wire="/l"), wire="/d"),
                raw("panel", "", raw("push button", "Later", wire="/b"), wire="/q"),
            ]
        return raw("frame", "Task", *kids, wire="/f")

    base = outline_of(page(True))
    successor = successor_of(base, page(False))
    changes = compute_changes(base, successor)
    refs = {n.name: n.ref for n in base}
    assert render_changes(changes, successor, "s1", "s2").splitlines() == [
        "s1 → s2",
        f'- {refs["Hi"]} (was dialog "Hi"; with {refs["Hi there"]} {refs["Close"]})',
        f'- {refs["Later"]} (was button "Later")',  # its layout-only parent is no line
    ]
    assert len([c for c in changes_json(changes) if c["change"] == "removed"]) == 6


def test_a_caption_that_becomes_a_line_again_is_added_before_what_it_now_holds() -> None:
    """A label repeating its parent's name is no line of a view; once it holds a button it
    is one, and an agent that read the base needs it to place the button."""

    def page(saving: bool) -> RawNode:
        held = (raw("push button", "Save", wire="/s"),) if saving else ()
        caption = raw("label", "File", *held, wire="/c")
        return raw("frame", "Form", raw("list item", "File", caption, wire="/i"), wire="/f")

    base = outline_of(page(False))
    successor = successor_of(base, page(True))
    refs = {n.role: n.ref for n in successor}
    assert 'label "File"' not in render_view(base, "s1", 1000).text, "no line in the base"
    diff = render_changes(compute_changes(base, successor), successor, "s1", "s2")
    assert diff.splitlines()[1:] == [
        f'+ {refs["label"]} under {refs["listitem"]} label "File"',
        f'+   {refs["button"]} button "Save" {{-press,-focus}}',
    ]


def _kept(text: str, page: Page | None = None) -> list[tuple[str, str, str, str | None]]:
    """What an agent keeps of a result (``page_model``): its lines in reading order."""
    page = page or Page()
    page.read(text)
    return [(r.ref, r.role, r.label, r.parent) for r in page.ordered()]


@settings(max_examples=80, deadline=None)
@given(raw_trees(30), st.data())
def test_a_diff_brings_what_an_agent_kept_of_the_base_to_the_successors_view(
    tree: RawNode, data: st.DataObject
) -> None:
    """Nothing needed to act is dropped: an agent that read the base's view and then the
    diff holds the lines (refs, roles, names, places) the successor's own view shows."""
    at = data.draw(st.sampled_from(paths(tree)))
    parent = tree
    for index in at:
        parent = parent.children[index]
    index = data.draw(st.integers(0, len(parent.children)))
    new = raw("push button", data.draw(st.sampled_from(["Save", "OK"])), wire="/inserted")
    base = outline_of(tree)
    successor = successor_of(base, inserted(tree, at, index, new))
    room = 50_000
    page = Page()
    page.read(render_view(base, "s1", room).text)
    if any(r.role == "run" for r in page.rows.values()):
        return  # a run's members are one line: a diff may split it
    text, _ = diff_or_view(compute_changes(base, successor), successor, "s1", "s2", room)
    assert _kept(text, page) == _kept(render_view(successor, "s2", room).text)
