"""JavaScript dialogs (alert, confirm, prompt, beforeunload) that an agent can see and answer.

While such a dialog is open the page's renderer is blocked: every command that
needs it would hang until its timeout. This module owns the dialog's model,
the error every blocked command gets instead (at once), and the small
synthetic tree a snapshot shows in place of the page: an ``alertdialog`` with
the message, a prompt field when there is one, and OK/Cancel buttons whose
native ids the actions map to ``Page.handleJavaScriptDialog``. It must not
send commands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from actui.backends.base import RawNode, Rect
from actui.errors import DialogOpen

ACCEPT_ID = "cdp:dialog:accept"
DISMISS_ID = "cdp:dialog:dismiss"
PROMPT_ID = "cdp:dialog:prompt"
MESSAGE_CAP = 500
ALLOWED_WHILE_OPEN = ("Page.handleJavaScriptDialog", "Target.")
"""Commands the browser answers itself, so they pass while the renderer is blocked."""

_WIDTH, _HEIGHT = 460, 150
_LEAVE = "Leave site? Changes that you made may not be saved."
"""What Chromium shows for beforeunload (pages cannot set that text any more)."""


@dataclass
class Dialog:
    """One open dialog; ``prompt_text`` is what the prompt field holds now."""

    kind: str
    message: str
    prompt_text: str = ""

    @classmethod
    def from_event(cls, params: Mapping[str, object]) -> Dialog:
        kind = str(params.get("type") or "alert")
        message = str(params.get("message") or "")[:MESSAGE_CAP]
        return cls(
            kind=kind,
            message=message or (_LEAVE if kind == "beforeunload" else ""),
            prompt_text=str(params.get("defaultPrompt") or ""),
        )

    @property
    def has_cancel(self) -> bool:
        return self.kind != "alert"

    def describe(self) -> str:
        return f"a JavaScript {self.kind} ({self.message[:120]!r})"


def refuses(dialog: Dialog, method: str) -> DialogOpen | None:
    """The gate's rule: only browser-side commands pass while ``dialog`` is open."""
    if method.startswith(ALLOWED_WHILE_OPEN):
        return None
    return DialogOpen(dialog.describe())


def dialog_tree(dialog: Dialog, title: str, viewport: Rect | None) -> RawNode:
    """The page as the agent sees it while ``dialog`` is open: the dialog alone.

    Rects follow where Chromium draws the dialog (top centre of the viewport),
    so the outline's visibility rules keep the nodes.
    """
    width = viewport.w if viewport is not None and viewport.w > 0 else 800
    box = Rect(max(0, (width - _WIDTH) // 2), 0, _WIDTH, _HEIGHT)
    shown = frozenset({"enabled", "sensitive", "visible", "showing"})
    buttons = [("OK", ACCEPT_ID, box.x + box.w - 90)]
    if dialog.has_cancel:
        buttons.insert(0, ("Cancel", DISMISS_ID, box.x + box.w - 180))
    children: list[RawNode] = [
        RawNode(
            native_id="cdp:dialog:message",
            raw_role="StaticText",
            name=dialog.message,
            states=shown,
            rect=Rect(box.x + 16, box.y + 16, box.w - 32, 40),
        )
    ]
    if dialog.kind == "prompt":
        children.append(
            RawNode(
                native_id=PROMPT_ID,
                raw_role="textbox",
                name=dialog.message,
                value=dialog.prompt_text,
                value_length=len(dialog.prompt_text),
                states=shown | {"editable", "focusable"},
                caps=frozenset({"setText", "typeText", "focus"}),
                rect=Rect(box.x + 16, box.y + 64, box.w - 32, 28),
            )
        )
    children += [
        RawNode(
            native_id=native_id,
            raw_role="button",
            name=label,
            states=shown | {"focusable"},
            caps=frozenset({"press", "focus"}),
            rect=Rect(x, box.y + box.h - 44, 80, 32),
        )
        for label, native_id, x in buttons
    ]
    alert = RawNode(
        native_id="cdp:dialog",
        raw_role="alertdialog",
        name=dialog.message,
        description=f"JavaScript {dialog.kind}",
        states=shown | {"modal"},
        rect=box,
        children=tuple(children),
    )
    return RawNode(
        native_id="cdp:dialog:page",
        raw_role="RootWebArea",
        name=title,
        states=shown,
        caps=frozenset(),
        rect=viewport,
        children=(alert,),
    )
