"""inspect_ui's actions line never contradicts the capabilities line."""

from __future__ import annotations

from actui.backends.base import RawNode
from actui.outline.model import build_outline
from actui.tools.queries import _actions_text


def _node(**fields: object) -> str:
    tree = RawNode("w", "frame", children=(RawNode("b", "push button", **fields),))
    outline = build_outline(tree, None)
    return _actions_text(next(node for node in outline if node.raw_role == "push button"))


def test_read_names_are_listed() -> None:
    assert _node(actions=("click",), caps=frozenset({"press"})) == '"click"'


def test_a_press_taken_from_the_role_says_its_names_were_not_read() -> None:
    assert _node(caps=frozenset({"press", "focus"})).startswith("not read by the look")


def test_an_element_that_cannot_be_pressed_has_none() -> None:
    assert _node(caps=frozenset({"focus"})) == "none"
