"""Typed text that arrives whole: physical typing waited for and judged by read-back.

XTEST keystrokes are queued for the application the moment they are sent; a next step
sent right after (a press of OK) can overtake the keys it has not handled yet. This
module owns typing at the focus on the Linux desktop: it finds the field the keys go to,
waits after each batch of keystrokes until that field shows them (or, with no readable
field, until the application's events go quiet), bounded by the step's own timeout (which
grows with the length) and by a stall of the field's length, and reports ``worked`` /
``didnt`` from the field's read-back. Long text typed at the focus goes in with
``EditableText.InsertText`` where the field takes it. Password fields are compared by
length only. It must not send input itself (the display's input does) nor read the field's details
(AT-SPI does).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

from actui.backends.atspi.backend import AtspiBackend
from actui.backends.atspi.fields import FieldText
from actui.backends.base import ActionRequest, ActionResult, RootInfo
from actui.backends.evidence import explain, judge
from actui.backends.linux.physical import PhysicalInput
from actui.deadlines import Deadline
from actui.errors import ActuiError, TargetGone

SEMANTIC_TYPING_CHARS = 200
"""From this length, text typed at the focus is inserted with EditableText where the field
takes it: keystrokes at the rate an application consumes them take seconds."""
STALL_S = 3.0
"""A field whose length has not moved for this long is not going to show the rest (GTK 3
on a 2-core machine at load 12 consumed 45–65 typed characters a second, steadily)."""
QUIET_S = 0.2
"""Without a readable field: the application's events silent this long means it caught up."""
POLL_S = 0.05
"""The field's length is re-read at this interval, not on each of its events: a GTK entry
announces every character, and reading that often would slow the typing it waits for."""


class ArrivingText:
    """Typing at the focus of one desktop, done only once the application has the text."""

    def __init__(self, atspi: AtspiBackend, physical: PhysicalInput) -> None:
        self.atspi = atspi
        self._input = physical

    async def type(self, request: ActionRequest, window_id: int, aimed: str | None) -> ActionResult:
        """Type at the focus and wait until the field shows it; judge by its read-back.

        ``setText`` is typed the same way over the field's whole text, which
        X11 selects first: Firefox handles keys later than the next
        accessibility call, so text set by keys is waited for like typed text.

        Text aimed at an element comes here after its semantic insert did
        nothing (or under the foreground policy), so only text typed at the
        focus tries the semantic insert first.
        """
        field = aimed or await self.atspi.focused_element(request.root)
        if field is not None and await self.atspi.edits_in_own_editor(field):
            return await self._into_editor(request, window_id)
        before = await self._field(field)
        if before is not None and request.kind == "setText":  # X11 selects it all first
            before = replace(before, start=0, end=len(before.text))
        if (
            field is not None
            and before is not None
            and aimed is None
            and request.kind == "typeText"
            and before.editable
            and len(request.text) >= SEMANTIC_TYPING_CHARS
        ):
            inserted = await self.atspi.act(replace(request, target=field, policy="background"))
            if isinstance(inserted, ActionResult) and inserted.outcome != "didnt":
                return inserted
        deadline = Deadline(request.timeout_s)
        typed = await self._input.deliver(
            request, window_id, self._arrival(request.root, field, before, request.text, deadline)
        )
        if field is None or before is None:
            return typed
        after = await self._field(field)
        return _judged(typed, before.text, after, before.after_typing(request.text))

    async def _into_editor(self, request: ActionRequest, window_id: int) -> ActionResult:
        """Typed at a spreadsheet cell: the first key opens the cell's editor
        (``atspi.cell_editor``), which then holds the keyboard focus and the entry, the
        typed text replacing what the cell held. Judged by that editor's read-back once
        the application is quiet."""
        deadline = Deadline(request.timeout_s)
        arrived = self._arrival(request.root, None, None, request.text, deadline)
        typed = await self._input.deliver(request, window_id, arrived)
        editor = await self._field(await self.atspi.focused_element(request.root))
        return _judged(typed, "", editor, request.text)

    async def _field(self, field: str | None) -> FieldText | None:
        if field is None:
            return None
        try:
            return await self.atspi.read_field(field)
        except ActuiError:
            return None

    async def _length(self, field: str) -> int:
        try:
            return await self.atspi.field_length(field)
        except ActuiError:
            return -1

    def _arrival(
        self,
        root: RootInfo,
        field: str | None,
        before: FieldText | None,
        text: str,
        deadline: Deadline,
    ) -> Callable[[int], Awaitable[bool]]:
        """The wait after each batch of keystrokes: until the field shows the text sent so
        far (True), or until the application is quiet when no field can be read (False)."""

        async def arrived(sent: int) -> bool:
            if field is None or before is None:
                await self._quiet(root, deadline)
                return False
            wanted = before.after_typing(text[:sent])
            last, stall = len(before.text), Deadline(STALL_S)
            while True:
                length = await self._length(field)
                if length == len(wanted):
                    current = await self._field(field)
                    if current is not None and current.text == wanted:
                        return True
                if length != last:
                    last, stall = length, Deadline(STALL_S)
                if deadline.expired or stall.expired:
                    return False
                await asyncio.sleep(POLL_S)

        return arrived

    async def _quiet(self, root: RootInfo, deadline: Deadline) -> None:
        while (left := deadline.left()) > 0:
            mark = self.atspi.change_mark(root)
            try:
                woke = await self.atspi.wait_for_change(root, mark, min(QUIET_S, left))
            except TargetGone:
                return
            if woke == mark:
                return


def _judged(typed: ActionResult, before: str, after: FieldText | None, wanted: str) -> ActionResult:
    """``typed`` judged by the field's read-back: ``worked`` when it shows ``wanted``."""
    shown = {"length": len(after.text) if after else None, "expectedLength": len(wanted)}
    evidence = {**typed.evidence, "readBack": shown}
    shown_text = after.text if after is not None else before
    outcome = judge(before, shown_text, wanted.__eq__, readable=after is not None)
    reason = explain(
        outcome,
        didnt="the field's text did not change",
        unknown="the field's text changed but does not show exactly the typed text",
    )
    return replace(typed, outcome=outcome, evidence=evidence, reason=reason)
