"""Pure pieces of the browser backend: native ids, the dialog gate and the dialog's tree."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import Rect
from actui.backends.cdp import dom
from actui.backends.cdp.dialog import ACCEPT_ID, DISMISS_ID, PROMPT_ID, Dialog, dialog_tree, refuses
from actui.errors import UnsupportedAction


@given(st.integers(min_value=0, max_value=2**31), st.from_regex(r"[0-9A-F]{32}", fullmatch=True))
def test_native_ids_name_their_frame_and_node(node: int, frame: str) -> None:
    assert dom.parse_id(f"cdp:{node}") == ("", node)
    assert dom.parse_id(f"cdp:{frame}:{node}") == (frame, node)


@pytest.mark.parametrize("native_id", ["cdp:ax:12", ACCEPT_ID, PROMPT_ID, "cdp:", "atspi:1"])
def test_ids_without_a_dom_node_are_refused(native_id: str) -> None:
    with pytest.raises(UnsupportedAction):
        dom.parse_id(native_id)


def test_only_browser_side_commands_pass_while_a_dialog_is_open() -> None:
    dialog = Dialog("alert", "hi")
    assert refuses(dialog, "Page.handleJavaScriptDialog") is None
    assert refuses(dialog, "Target.getTargets") is None
    for method in ("Runtime.evaluate", "DOM.resolveNode", "Input.dispatchMouseEvent"):
        refused = refuses(dialog, method)
        assert refused is not None and "alert" in str(refused) and refused.code == "dialog_open"


def test_an_alert_shows_its_message_and_ok_only() -> None:
    tree = dialog_tree(Dialog("alert", "Saved!"), "page", Rect(0, 0, 1000, 700))
    (alert,) = tree.children
    assert alert.raw_role == "alertdialog" and alert.name == "Saved!"
    buttons = [(n.name, n.native_id) for n in alert.children if n.raw_role == "button"]
    assert buttons == [("OK", ACCEPT_ID)]
    assert all(n.rect is not None and n.rect.x >= 0 for n in alert.children)


def test_a_prompt_has_a_field_with_its_default_and_both_buttons() -> None:
    dialog = Dialog.from_event({"type": "prompt", "message": "Name?", "defaultPrompt": "Ada"})
    (alert,) = dialog_tree(dialog, "page", None).children
    field = next(n for n in alert.children if n.raw_role == "textbox")
    assert field.native_id == PROMPT_ID and field.value == "Ada" and "setText" in field.caps
    assert [n.native_id for n in alert.children if n.raw_role == "button"] == [
        DISMISS_ID,
        ACCEPT_ID,
    ]
