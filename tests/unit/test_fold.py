"""The folded outline, display names, label lines and paths."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import outline_of, outlines, raw

from actui.backends.base import CAPABILITIES, RawNode
from actui.errors import UnknownRef
from actui.outline.fold import (
    RUN_MIN,
    USUAL_CAPS,
    caps_text,
    display_name,
    fold_header,
    label_line,
    path_text,
    render_fold,
)
from actui.outline.model import Outline

LIVE = frozenset({"enabled", "sensitive", "visible", "showing"})
PRESS = USUAL_CAPS["button"]
LINE = re.compile(r"^\s*(@e\d+) ")
RUN = re.compile(r"^\s*(@e\d+) … (@e\d+): (\d+) × ")


def rendered_refs(text: str) -> list[str]:
    return [m.group(1) for line in text.splitlines() if (m := LINE.match(line))]


def wide_window(groups: int = 3, buttons: int = 4) -> Outline:
    return outline_of(
        raw(
            "frame",
            "Main",
            *[
                raw(
                    "panel",
                    f"G{g}",
                    *[
                        raw("panel", f"Row{b}", raw("push button", f"B{g}.{b}"), raw("label", "x"))
                        for b in range(buttons)
                    ],
                )
                for g in range(groups)
            ],
        )
    )


def test_display_name_is_neutral_role_then_json_quoted_label() -> None:
    outline = outline_of(raw("frame", "A", raw("push button", 'Say "hi"\nnow')))
    assert display_name(outline.nodes["@e2"]) == 'button "Say \\"hi\\"\\nnow"'


def test_a_menu_left_unread_says_how_many_items_it_holds() -> None:
    def menu_line(unread: int) -> str:
        menu = replace(raw("menu", "File"), unread=unread)
        return render_fold(outline_of(raw("menu bar", "", menu))).text

    assert "(not shown; 31 items unread)" in menu_line(31)
    assert "(not shown; 1 item unread)" in menu_line(1)
    assert "(not shown; items unread)" in menu_line(-1)
    assert "unread" not in menu_line(0)


def test_unlabeled_node_displays_its_role_alone() -> None:
    assert display_name(outline_of(raw("filler")).root_node) == "group"


def test_native_ids_never_appear_in_any_rendering() -> None:
    wire = "/org/a11y/atspi/accessible/42"
    outline = outline_of(raw("frame", "", raw("push button", "", wire=wire)))
    node = outline.nodes["@e2"]
    texts = [render_fold(outline).text, label_line(node), path_text(outline, node)]
    assert not any("atspi" in text for text in texts)


def test_label_line_shows_raw_role_in_brackets_when_it_differs() -> None:
    outline = outline_of(
        raw(
            "frame",
            "Win",
            raw("push button", "OK", caps=frozenset({"focus", "press"}), states=LIVE),
            raw("button", ""),
        )
    )
    assert label_line(outline.nodes["@e2"]) == '@e2 button [push button] "OK" {press,focus}'
    assert label_line(outline.nodes["@e3"]) == "@e3 button (unlabeled)"


def test_path_joins_display_names_from_the_root() -> None:
    outline = outline_of(raw("frame", "Win", raw("panel", "", raw("check box", "Bold"))))
    assert path_text(outline, outline.nodes["@e3"]) == 'window "Win" ▸ group ▸ checkbox "Bold"'


def test_states_that_matter_are_shown_compactly() -> None:
    outline = outline_of(
        raw(
            "frame",
            "Win",
            raw(
                "check box",
                "Bold",
                states=LIVE | {"checked", "focused"},
                caps=USUAL_CAPS["checkbox"],
            ),
            raw("push button", "Off", states=frozenset({"visible", "showing"}), caps=PRESS),
            raw("combo box", "Size", states=LIVE | {"expandable"}, caps=USUAL_CAPS["combobox"]),
            raw("text", "Name", states=LIVE | {"editable"}, caps=USUAL_CAPS["textbox"]),
            raw("text", "Log", states=LIVE, caps=frozenset({"focus"})),
            raw("label", "Hidden page", states=frozenset({"enabled", "sensitive", "visible"})),
        )
    )
    lines = [line.strip() for line in render_fold(outline).text.splitlines()]
    assert '@e2 checkbox "Bold" [focused, checked]' in lines
    assert '@e3 button "Off" [disabled]' in lines
    assert '@e4 combobox "Size" [collapsed]' in lines
    assert '@e5 textbox "Name"' in lines, "a text field is editable unless it says otherwise"
    assert '@e6 textbox "Log" {-press,-setText,-typeText} [read-only]' in lines
    assert '@e7 label "Hidden page" [offscreen]' in lines


def test_nodes_without_reported_states_are_not_called_disabled() -> None:
    assert "disabled" not in render_fold(outline_of(raw("push button", "Go"))).text


def test_value_is_shown_quoted_and_capped_with_its_full_length() -> None:
    outline = outline_of(
        raw(
            "frame",
            "Win",
            raw(
                "text",
                "Notes",
                value="y" * 100,
                value_length=5000,
                states=frozenset({"editable"}),
                caps=USUAL_CAPS["textbox"],
            ),
        )
    )
    line = render_fold(outline).text.splitlines()[1]
    assert line == f'  @e2 textbox "Notes" value="{"y" * 80}…" (5000 chars)'


def test_a_value_that_repeats_the_name_is_not_shown_twice() -> None:
    outline = outline_of(raw("frame", "Win", raw("heading", "Contact", value="Contact")))
    assert render_fold(outline).text.splitlines()[1] == '  @e2 heading "Contact"'


def test_a_password_value_never_renders() -> None:
    outline = outline_of(
        raw("frame", "Login", raw("password text", "", value="hunter2", secure=True))
    )
    node = outline.nodes["@e2"]
    texts = [render_fold(outline).text, label_line(node), path_text(outline, node)]
    assert not any("hunter2" in text for text in texts)
    assert "@e2 password" in texts[0]


def test_nodes_below_max_depth_fold_with_descendant_counts_by_role() -> None:
    text = render_fold(wide_window(groups=1, buttons=3), max_depth=1).text
    assert text.splitlines() == [
        '@e1 window "Main"',
        '  @e2 group "G0" ▸ (9: 3 buttons, 3 groups, 3 labels)',
    ]


def test_fold_summary_lists_four_roles_ties_alphabetical() -> None:
    kids = [raw("label", "a"), raw("label", "b"), raw("link", "c"), raw("image", "d")]
    kids += [raw("push button", "e"), raw("check box", "f"), raw("check box", "g")]
    outline = outline_of(raw("frame", "", raw("panel", "", *kids)))
    line = render_fold(outline, max_depth=1).text.splitlines()[1]
    assert line.endswith("▸ (7: 2 checkboxes, 2 labels, 1 button, 1 image, …)")


def test_focused_node_is_unfolded_with_its_path_at_any_depth() -> None:
    deep = raw(
        "panel",
        "Deep",
        raw("text", "Field", raw("label", "inner"), states=LIVE | {"focused"}),
    )
    outline = outline_of(raw("frame", "W", raw("panel", "A", raw("panel", "B", deep))))
    refs = rendered_refs(render_fold(outline, max_depth=1).text)
    assert refs == ["@e1", "@e2", "@e3", "@e4", "@e5", "@e6"]


def test_truncated_node_is_reachable_through_unfolded_ancestors() -> None:
    outline = outline_of(
        raw("frame", "", raw("panel", "", raw("panel", "", raw("list", "Big", truncated=True))))
    )
    assert '@e4 list "Big" [truncated]' in render_fold(outline, max_depth=1).text


def test_explicit_unfold_opens_a_node_and_its_path() -> None:
    outline = wide_window(groups=2, buttons=2)
    folded = render_fold(outline, max_depth=1)
    opened = render_fold(outline, max_depth=1, unfold=["@e6"])
    assert "@e6" not in rendered_refs(folded.text)
    assert {"@e6", "@e12", "@e13"} <= set(rendered_refs(opened.text))


def test_budget_cut_ends_with_a_receipt_of_hidden_nodes() -> None:
    outline = wide_window()
    fold = render_fold(outline, max_lines=5)
    assert fold.cut and fold.shown == 5
    assert fold.text.splitlines()[-1].startswith(f"… {len(outline) - 5} of {len(outline)} nodes")
    assert "search_ui" in fold.text and "expand_ui" in fold.text


def test_no_receipt_when_everything_fits() -> None:
    fold = render_fold(wide_window(groups=1, buttons=1), max_depth=8)
    assert not fold.cut and "not shown" not in fold.text and fold.shown == fold.total


def test_focused_node_renders_even_past_the_budget() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            *[raw("push button", f"b{i}") for i in range(20)],
            raw("text", "Typing here", states=LIVE | {"focused"}),
        )
    )
    fold = render_fold(outline, max_lines=3)
    assert "@e22" in rendered_refs(fold.text) and fold.shown == 3 and fold.cut


def test_expand_counts_depth_from_the_target_and_spends_budget_on_its_subtree() -> None:
    outline = wide_window(groups=6, buttons=6)
    target = outline.nodes["@e7"]  # the last group; pre-order puts it after everything else
    assert target.name == "G5"
    fold = render_fold(outline, start="@e7", max_depth=2, max_lines=20)
    lines = fold.text.splitlines()
    assert lines[0] == '@e1 window "Main" (path; 5 other children hidden)'
    assert lines[1] == '  @e7 group "G5"'
    assert fold.shown == fold.total == 1 + 6 * 3 and not fold.cut


def test_expand_folds_below_its_depth() -> None:
    outline = wide_window(groups=1, buttons=2)
    fold = render_fold(outline, start="@e2", max_depth=1)
    assert fold.text.splitlines()[2:] == [
        '    @e3 group "Row0" ▸ (2: 1 button, 1 label)',
        '    @e4 group "Row1" ▸ (2: 1 button, 1 label)',
    ]


def test_unknown_start_ref_is_a_stale_ref_error() -> None:
    with pytest.raises(UnknownRef):
        render_fold(wide_window(), start="@e999")


def test_header_names_count_state_reason_and_cut() -> None:
    fold = render_fold(wide_window(), max_lines=4)
    assert fold_header(fold, "S1", "root_replaced") == (
        f"outline: {fold.total} nodes, 4 shown; stateId S1; full view: root_replaced; "
        "folded output truncated"
    )


def required_refs(outline: Outline) -> set[str]:
    required = {outline.root}
    for node in outline:
        if node.focused:
            required |= {node.ref, *(a.ref for a in outline.ancestors(node))}
    return required


@settings(max_examples=60, deadline=None)
@given(outlines(60), st.integers(1, 40), st.integers(0, 4))
def test_fold_invariants_hold_for_random_trees(
    outline: Outline, max_lines: int, max_depth: int
) -> None:
    fold = render_fold(outline, max_lines=max_lines, max_depth=max_depth)
    header = fold_header(fold, "S")
    assert header.startswith(f"outline: {len(outline)} nodes")
    refs = rendered_refs(fold.text)
    assert len(refs) == len(set(refs)) == fold.shown
    assert fold.shown <= max(max_lines, len(required_refs(outline)))
    assert {n.ref for n in outline if n.focused} <= set(refs)
    has_receipt = fold.text.splitlines()[-1].startswith("… ")
    assert has_receipt == fold.cut
    for line in fold.text.splitlines():
        counted = re.search(r"^\s*(@e\d+) .* ▸ \((\d+): ", line)
        if counted:
            node = outline.nodes[counted.group(1)]
            assert int(counted.group(2)) == outline.descendant_count(node) > 0


@settings(max_examples=30, deadline=None)
@given(outlines(40))
def test_an_unlimited_fold_shows_every_node_at_full_depth(outline: Outline) -> None:
    fold = render_fold(outline, max_lines=10_000, max_depth=100)
    assert not fold.cut
    refs = rendered_refs(fold.text)
    order = [n.ref for n in outline.subtree(outline.root_node)]
    assert refs == [r for r in order if r in set(refs)]
    folded: set[str] = set()
    for run in (m for line in fold.text.splitlines() if (m := RUN.match(line))):
        first = outline.nodes[run.group(1)]
        siblings = outline.children(outline.nodes[first.parent or ""])
        at = siblings.index(first)
        members = siblings[at : at + int(run.group(3))]
        assert members[-1].ref == run.group(2)
        folded |= {d.ref for n in members for d in outline.subtree(n)} - {first.ref}
    assert set(refs) | folded == set(order) and not set(refs) & folded
    assert fold.shown == len(refs)


@settings(max_examples=30, deadline=None)
@given(outlines(40), st.data())
def test_expand_renders_its_target_with_the_path_above(
    outline: Outline, data: st.DataObject
) -> None:
    target = data.draw(st.sampled_from(list(outline)))
    fold = render_fold(outline, start=target.ref, max_lines=10)
    refs = rendered_refs(fold.text)
    path = [a.ref for a in outline.ancestors(target)]
    assert refs[: len(path) + 1] == [*path, target.ref]
    assert fold.total == outline.descendant_count(target) + 1


def _menus(count: int, *extra: RawNode) -> Outline:
    hidden = frozenset({"visible"})
    return outline_of(
        raw("frame", "Browser", *[raw("menu", "", states=hidden) for _ in range(count)], *extra)
    )


def test_a_long_run_of_alike_unlabeled_siblings_is_one_line() -> None:
    outline = _menus(23, raw("push button", "Reload"))
    text = render_fold(outline).text
    assert "@e2 … @e24: 23 × menu [disabled, offscreen] (unlabeled" in text
    assert rendered_refs(text) == ["@e1", "@e2", "@e25"]


def test_a_short_run_is_listed_one_by_one() -> None:
    text = render_fold(_menus(RUN_MIN - 1)).text
    assert rendered_refs(text) == [f"@e{i}" for i in range(1, RUN_MIN + 1)]


def test_a_focused_or_labelled_sibling_breaks_a_run_and_is_shown() -> None:
    outline = outline_of(
        raw(
            "frame",
            "",
            *[raw("menu", "") for _ in range(5)],
            raw("menu", "", states=frozenset({"focused"})),
            raw("menu", "Edit"),
            *[raw("menu", "") for _ in range(5)],
        )
    )
    text = render_fold(outline).text
    assert "@e2 … @e6: 5 × menu" in text and "@e9 … @e13: 5 × menu" in text
    assert {"@e7", "@e8"} <= set(rendered_refs(text))


def test_a_run_says_what_its_members_hold_together() -> None:
    outline = outline_of(
        raw("frame", "", *[raw("menu", "", raw("separator", "")) for _ in range(4)])
    )
    assert "@e2 … @e5: 4 × menu" in (text := render_fold(outline).text)
    assert "▸ together (4: 4 separators)" in text


def test_alike_siblings_holding_text_are_never_folded_into_a_run() -> None:
    rows = [raw("table row", "", raw("table cell", f"cell {i}")) for i in range(6)]
    text = render_fold(outline_of(raw("table", "", *rows)), max_depth=3).text
    assert "×" not in text and all(f'"cell {i}"' in text for i in range(6))


def test_a_subtree_left_unread_says_it_is_not_shown_and_how_many_items_it_holds() -> None:
    outline = outline_of(
        raw(
            "frame",
            "Main",
            raw("panel", "Lists", unread=212, states=frozenset({"visible", "sensitive"})),
            raw("panel", "Bar", unread=1),
            raw("push button", "OK", states=LIVE),
        )
    )
    text = render_fold(outline, max_depth=3).text
    assert '@e2 group "Lists" (not shown; 212 items unread)\n' in text, text
    assert '@e3 group "Bar" (not shown; 1 item unread)' in text, text
    assert "@e4" in text and text.count("unread") == 2


_CAP_SETS = st.frozensets(st.sampled_from([*CAPABILITIES, "zoom"]))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([*USUAL_CAPS, "group", "label"]), _CAP_SETS)
def test_a_line_says_exactly_which_capabilities_differ_from_the_roles_usual(
    role: str, caps: frozenset[str]
) -> None:
    """Nothing to act on is lost: the role's usual set, plus what is listed, less what is
    marked ``-``, is the element's whole set; an element with just the usual set says nothing."""
    text = caps_text(role, caps)
    listed = text.strip()[1:-1].split(",") if text else []
    plus = {c for c in listed if not c.startswith("-")}
    minus = {c[1:] for c in listed if c.startswith("-")}
    usual = USUAL_CAPS.get(role, frozenset())
    assert (usual | plus) - minus == caps
    assert not plus & usual and minus <= usual
    assert (text == "") == (caps == usual)
