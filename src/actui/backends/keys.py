"""A key press judged by its effect at the keyboard focus, read before and after.

A key goes to whatever has the focus, so that element is where its effect is looked
for: its text, its caret and selection, its formatting (Writer's ctrl+b gives the
selected run ``weight: 600`` and changes nothing else), or the focus itself moving (Tab, or
Return closing a dialog). A change there makes the press ``worked``, with what changed
as its evidence; no change leaves it ``unknown`` (a key may do what no reading of the
focus shows), never ``didnt``. A change anywhere else is not this press's evidence
(issue 24: every ``keypress`` said ``unknown``, even when its effect showed). It must
not send input itself (the display's input does) nor read AT-SPI beyond the focused
element's field and format (``atspi`` does).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from actui.backends.atspi.backend import AtspiBackend
from actui.backends.atspi.fields import FieldText
from actui.backends.base import ActionRequest, ActionResult, RootInfo, TextFormat
from actui.backends.evidence import explain, read_back, settle_window
from actui.errors import ActuiError, TargetGone


@dataclass(frozen=True)
class AtFocus:
    """What a key can change at the focus: which element has it and what it holds."""

    element: str | None
    """The focused element's id (None: no element of the application has the focus)."""
    field: FieldText | None = None
    """Its text, caret and selection (None: it has no text, or it could not be read)."""
    format: TextFormat | None = None
    """Its formatting (None for a password field and an element without text)."""


def key_effect(before: AtFocus, after: AtFocus) -> str | None:
    """What a key changed at the focus, in words; None when the focus reads the same."""
    if after.element != before.element:
        return "the keyboard focus moved" if after.element else "the focused element lost focus"
    changed = []
    old, new = before.field, after.field
    if old is not None and new is not None:
        if old.text != new.text:
            changed.append("text")
        if (old.start, old.end) != (new.start, new.end):
            changed.append("caret or selection")
    elif old != new:
        changed.append("text")  # readable before and not after, or the reverse
    if before.format and after.format and _looks(before.format) != _looks(after.format):
        changed.append("formatting")
    if not changed:
        return None
    return f"the focused element's {' and '.join(changed)} changed"


def _looks(shape: TextFormat) -> tuple[object, ...]:
    """What a text looks like, without where its caret is (the field says that)."""
    return (shape.defaults, shape.runs)


class KeyEffects:
    """Key presses at the focus of one desktop, each judged by the focus read back."""

    def __init__(self, atspi: AtspiBackend) -> None:
        self.atspi = atspi

    async def press(
        self, request: ActionRequest, send: Callable[[], Awaitable[ActionResult]]
    ) -> ActionResult:
        """Read the focus, ``send`` the key, re-read the focus on each event of the
        application until it changed or the settle window passed; judge by it."""
        before = await self._at_focus(request.root)
        sent = await send()

        async def wake(timeout_s: float) -> object:
            mark = self.atspi.change_mark(request.root)
            try:
                return await self.atspi.wait_for_change(request.root, mark, timeout_s)
            except TargetGone:
                return mark  # the window closed: the focus reading says the rest

        outcome, after = await read_back(
            before,
            lambda: self._at_focus(request.root),
            lambda now: key_effect(before, now) is not None,
            wake,
            settle_window(),
            effect_named=False,
        )
        effect = key_effect(before, after)
        reason = explain(
            outcome,
            worked=f"its effect read back: {effect}" if effect else "",
            unknown="the keyboard focus reads the same after the key (its effect, if any, is "
            "elsewhere: check it with expect)",
        )
        evidence = {**sent.evidence, "atFocus": effect or "unchanged"}
        return replace(sent, outcome=outcome, reason=reason, evidence=evidence)

    async def _at_focus(self, root: RootInfo) -> AtFocus:
        element = await self.atspi.focused_element(root)
        if element is None:
            return AtFocus(None)
        try:
            field = await self.atspi.read_field(element)
            shape = await self.atspi.text_format(root, element) if field else None
        except ActuiError:
            return AtFocus(element)
        return AtFocus(element, field, shape)
