"""The AX tree mapping, on a response recorded from Chromium and on generated trees."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from actui.backends.base import RawNode, Rect
from actui.backends.cdp.axtree import VALUE_CAP, build_tree
from actui.backends.cdp.layout import PageLayout, parse_snapshot

RECORDED = json.loads((Path(__file__).parent / "data" / "cdp_form_page.json").read_text())
SECRET = "hunter2-secret"


def walk(node: RawNode) -> Iterator[RawNode]:
    yield node
    for child in node.children:
        yield from walk(child)


def recorded(max_nodes: int = 512, max_depth: int = 20) -> RawNode:
    return build_tree(
        RECORDED["frames"],
        RECORDED["main_frame"],
        parse_snapshot(RECORDED["snapshot"]),
        viewport=Rect(0, 0, *RECORDED["viewport"]),
        max_nodes=max_nodes,
        max_depth=max_depth,
    ).tree


def named(tree: RawNode, role: str, name: str) -> RawNode:
    return next(n for n in walk(tree) if n.raw_role == role and n.name == name)


def test_recorded_page_maps_to_one_tree_rooted_at_the_web_area() -> None:
    tree = recorded()
    assert tree.raw_role == "RootWebArea" and tree.name == "actui form"
    roles = {n.raw_role for n in walk(tree)}
    assert "InlineTextBox" not in roles and "none" not in roles
    ids = [n.native_id for n in walk(tree)]
    assert len(ids) == len(set(ids)) and all(i.startswith("cdp:") for i in ids)


def test_password_field_is_secure_valueless_and_childless() -> None:
    tree = recorded()
    password = named(tree, "textbox", "Password")
    assert password.secure and password.value is None and password.children == ()
    assert SECRET not in repr(tree) and "•" not in repr(tree)


def test_text_fields_show_their_text_once_as_value() -> None:
    name = named(recorded(), "textbox", "Name")
    assert name.value == "Ada" and name.children == ()
    assert {"setText", "typeText", "focus"} <= name.caps and "required" in name.states


def test_controls_get_states_and_capabilities() -> None:
    tree = recorded()
    assert "toggle" in named(tree, "checkbox", "I agree").caps
    assert {"checked", "checkable"} <= named(tree, "radio", "Free").states
    colour = named(tree, "combobox", "Colour")
    assert "select" in colour.caps and "setText" not in colour.caps and colour.value == "Red"
    disabled = named(tree, "button", "Disabled")
    assert "enabled" not in disabled.states and not disabled.caps
    assert "scroll" in tree.caps


def test_unnamed_button_stays_addressable() -> None:
    unnamed = [n for n in walk(recorded()) if n.raw_role == "button" and not n.name]
    assert unnamed and "press" in unnamed[0].caps and unnamed[0].rect is not None


def test_button_label_text_is_not_repeated_as_a_child() -> None:
    assert named(recorded(), "button", "Submit").children == ()


def test_iframe_document_hangs_under_its_frame_with_offset_rects() -> None:
    frame = named(recorded(), "Iframe", "Inner frame")
    (document,) = frame.children
    assert document.raw_role == "RootWebArea"
    button = named(document, "button", "Inner button")
    assert frame.rect and button.rect
    assert frame.rect.x < button.rect.x < frame.rect.x + frame.rect.w
    assert frame.rect.y < button.rect.y < frame.rect.y + frame.rect.h


def test_offscreen_nodes_are_visible_but_not_showing() -> None:
    bottom = named(recorded(), "StaticText", "Bottom of the page")
    assert "visible" in bottom.states and "showing" not in bottom.states
    assert "showing" in named(recorded(), "button", "Submit").states


def test_caps_cut_breadth_first_and_mark_the_cut_parents() -> None:
    small = recorded(max_nodes=5)
    assert len(list(walk(small))) == 5 and small.truncated
    shallow = recorded(max_depth=2)
    assert max(depth(shallow)) == 1
    assert any(n.truncated for n in walk(shallow))


def depth(node: RawNode, level: int = 0) -> Iterator[int]:
    yield level
    for child in node.children:
        yield from depth(child, level + 1)


# --- generated trees -------------------------------------------------------

ROLES = ["generic", "button", "textbox", "StaticText", "InlineTextBox", "link", "checkbox"]


@st.composite
def ax_trees(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A random AX tree (some ignored nodes, long values) in CDP's flat form."""
    count = draw(st.integers(1, 40))
    parents = [None] + [draw(st.integers(0, i - 1)) for i in range(1, count)]
    nodes: list[dict[str, Any]] = []
    for i in range(count):
        role = "RootWebArea" if i == 0 else draw(st.sampled_from(ROLES))
        node: dict[str, Any] = {
            "nodeId": str(i + 1),
            "ignored": i > 0 and draw(st.booleans()),
            "role": {"value": role},
            "name": {"value": draw(st.sampled_from(["", "OK", "  padded  "]))},
            "backendDOMNodeId": i + 1,
            "childIds": [str(j + 1) for j in range(count) if parents[j] == i],
        }
        parent = parents[i]
        if parent is not None:
            node["parentId"] = str(parent + 1)
        if role == "textbox":
            node["value"] = {"value": "x" * draw(st.integers(0, 2 * VALUE_CAP))}
        nodes.append(node)
    return nodes


@given(ax_trees(), st.integers(1, 50), st.integers(1, 10))
@settings(max_examples=100, deadline=None)
def test_generated_trees_respect_caps_and_drop_ignored_nodes(
    nodes: list[dict[str, Any]], max_nodes: int, max_depth: int
) -> None:
    built = build_tree(
        {"F": nodes},
        "F",
        PageLayout({}, {}),
        viewport=None,
        max_nodes=max_nodes,
        max_depth=max_depth,
    )
    kept = list(walk(built.tree))
    assert len(kept) == built.node_count <= max_nodes
    assert max(depth(built.tree)) < max_depth
    ignored = {f"cdp:{n['backendDOMNodeId']}" for n in nodes if n["ignored"]}
    assert not ignored & {n.native_id for n in kept}
    assert len({n.native_id for n in kept}) == len(kept)
    for node in kept:
        assert node.name == node.name.strip()
        assert node.value is None or len(node.value) <= VALUE_CAP
        assert node.raw_role != "InlineTextBox"
