"""Semantic action delivery with outcomes proven by reading the element back.

Owns the step kinds AT-SPI can deliver without physical input (press, toggle,
setText, typeText at the caret, setValue, select, focus, scroll into view,
expand/collapse, and a click that keeps its meaning: an item is selected, never
activated) and their evidence: a D-Bus ``true`` is never enough for
``worked``; the element (or the application's windows, or its events) must
show the effect, and a select (or a click on an item) counts only when the
element itself reads back selected. Kinds that need a pointer or keyboard are refused
(:class:`Refused`, nothing sent); the X11 backend delivers them. What a read-back means
and how long it is waited for is ``evidence``'s. Typed text is never echoed for password
fields.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import replace

from dbus_fast import Variant

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.caps import (
    CLICK_WORDS,
    EXPAND_WORDS,
    MENU_ROLES,
    PRESS_ORDER,
    SELECT_WORDS,
    action_may_hold_call,
    named_index,
    press_index,
)
from actui.backends.atspi.events import NOISE, EventWatch
from actui.backends.atspi.gecko import (
    EDITABLE_TEXT_IGNORED,
    focus_settle_s,
    ignores_editable_text,
)
from actui.backends.atspi.pages import typing_paragraph
from actui.backends.atspi.reader import (
    IFACE_PREFIX,
    Basics,
    format_number,
    read_actions,
    read_basics,
    read_children,
    read_extents,
    read_states,
    read_text,
    read_value,
)
from actui.backends.atspi.scrollbars import scroll_bars, wheel_target
from actui.backends.atspi.toolkits import insert_length, is_libreoffice
from actui.backends.atspi.viewport import DOCUMENT_ROLES
from actui.backends.base import ACTION_KINDS, ActionRequest, ActionResult, Outcome, SemanticReach
from actui.backends.evidence import explain, judge, read_back, settle, settle_window, verdict
from actui.errors import ActuiError, CallTimeout, StepTimeout, TargetGone
from actui.refusals import Refused

# GTK 4 emits ~250 ms after a button's DoAction: its effect is read back 0.1 s later
# than the common window allows.
SETTLE_S = settle_window(lag_s=0.1)
INACTIVE_WINDOW_FOCUS_S = 1.5
"""How long a focus given in a window not yet active may take to show (a read-back that
shows it ends the wait sooner)."""
# How long an action waits for a disabled target to accept input. Apps enable
# controls a moment after the edit that makes them valid (GTK 3's file chooser
# enables Save 150 ms after the last change to the name), and GTK 3 drops an
# action on a disabled widget silently; a control still disabled after this
# is one the agent must not expect to work.
ENABLE_WAIT_S = 1.0
# Step kinds whose effect needs the element enabled. GTK 3 accepts text and
# values on a disabled widget (read back, so honest either way), and focus and
# scrolling into view need no input at all.
OPERATING = frozenset({"press", "click", "toggle", "select", "expand", "collapse"})
POLL_S = 0.05  # re-read interval when a toolkit sends no event
EVIDENCE_CAP = 200
ACTION = IFACE_PREFIX + "Action"
EDITABLE = IFACE_PREFIX + "EditableText"
COMMITTED_ROLES = frozenset({"spin button"})
"""LibreOffice fields that take a text only on their default action (``_commit``)."""
TEXT_BLOCK_ROLES = frozenset({"paragraph", "heading", "list item", "block quote"})
"""Roles of a document's blocks of text: focused by placing the caret in them."""
TEXT = IFACE_PREFIX + "Text"
COMPONENT = IFACE_PREFIX + "Component"
SCROLL_ANYWHERE = 6
TOGGLE_STATES = ("checked", "pressed", "indeterminate")
# GTK 3 runs an action inside its AT-SPI message handler; a handler that opens a
# modal dialog with gtk_dialog_run (mousepad's Save As) leaves the whole
# application unable to answer AT-SPI until that dialog closes (caps.py says
# why, and why a key press then deadlocks it).
MODAL_REASON = (
    "the application stopped answering accessibility calls right after the action, "
    "typically because it opened a modal dialog that blocks its accessibility until it "
    "closes; only pointer input can reach that dialog now (a key press would deadlock "
    "the application)"
)
HELD_CALL_REASON = (
    "this command opens a dialog, and the toolkit would run that dialog inside the "
    "accessibility call, leaving the application unable to answer until it closes (and "
    "deadlocked by the next key press); it needs a real click"
)
# Climbing from an element to the container whose Selection holds it: GTK 3 tree
# views put a row's name cell inside the row's first cell, under the table.
MAX_SELECTION_CLIMB = 3
PING_S = 0.5
ROOT_PATH = "/org/a11y/atspi/accessible/root"
ACCESSIBLE = IFACE_PREFIX + "Accessible"
SELECTION = IFACE_PREFIX + "Selection"
TABLE = IFACE_PREFIX + "Table"


def _cap(text: str) -> str:
    return text if len(text) <= EVIDENCE_CAP else text[:EVIDENCE_CAP] + "…"


REACH = SemanticReach(kinds=ACTION_KINDS - {"keypress", "drag", "moveMouse"}, elements_only=True)
"""What AT-SPI delivers without physical input: every kind but keys, drags and pointer
moves, on an element (a click only as a plain left click); the table in ``act`` runs them."""


def refuse_physical(request: ActionRequest, why: str) -> Refused:
    """The answer for a step that needs pointer or keyboard input: nothing is sent."""
    return Refused(why, "physical", request.policy)


def _refusal_unless_editable(request: ActionRequest, basics: Basics) -> Refused | None:
    """Text goes in through ``EditableText`` only where it has an effect."""
    if "EditableText" not in basics.interfaces:
        return refuse_physical(request, f"the {basics.role} has no editable text interface")
    if ignores_editable_text(request.root.toolkit):
        return refuse_physical(request, EDITABLE_TEXT_IGNORED)
    return None


Step = Callable[[ActionRequest, Address, Basics], Awaitable[ActionResult | Refused]]


class ActionDelivery:
    def __init__(self, bus: AtspiBus, known: Callable[[str], Collection[str] | None]) -> None:
        """``known`` gives the object paths last read under a root (None when unknown)."""
        self._bus = bus
        self._known = known
        self._stuck: dict[int, str] = {}
        """Applications (pid → bus name) that stopped answering right after an action."""

    def _watch(self, request: ActionRequest, app: str) -> EventWatch:
        """Evidence from the acted-on window only (see ``events.evidence_label``)."""
        return EventWatch(self._bus, app, self._known(request.root.native_id))

    async def act(self, request: ActionRequest) -> ActionResult | Refused:
        kind = request.kind
        steps: Mapping[str, Step] = {
            "press": self._press,
            "click": self._click,
            "toggle": self._toggle,
            "setText": self._set_text,
            "typeText": self._type_text,
            "setValue": self._set_value,
            "select": self._select,
            "focus": self._focus,
            "scroll": self._scroll,
            "expand": self._expand,
            "collapse": self._expand,
        }  # REACH's kinds
        refused = REACH.refusal(request)
        if refused is not None:
            return refused
        assert request.target is not None, "REACH takes elements only"
        at = Address.parse(request.target)
        try:
            async with asyncio.timeout(request.timeout_s):
                basics, refusal = await self._ready(request, at)
                if refusal is not None:
                    return refusal
                return await steps[kind](request, at, basics)
        except TimeoutError as exc:
            raise StepTimeout(kind, request.timeout_s, sent=True) from exc

    async def stuck_in_call(self, pid: int) -> bool:
        """Whether ``pid``'s application is still held inside an action's call.

        Only an application that stopped answering right after an action is
        asked (a ping of at most ``PING_S``); one that answers again, or exited,
        is forgotten.
        """
        app = self._stuck.get(pid)
        if app is None:
            return False
        try:
            await self._bus.call(app, ROOT_PATH, ACCESSIBLE, "GetRole", timeout_s=PING_S)
        except CallTimeout:
            return True
        except ActuiError:
            pass
        del self._stuck[pid]
        return False

    async def refusal_if_disabled(self, request: ActionRequest) -> ActionResult | None:
        """For physical input aimed at an element: wait for it to be enabled, as a
        semantic action does; the ``didnt`` result if it stays disabled."""
        if request.target is None or request.kind not in OPERATING:
            return None
        try:
            async with asyncio.timeout(request.timeout_s):
                return (await self._ready(request, Address.parse(request.target)))[1]
        except TimeoutError as exc:
            raise StepTimeout(request.kind, request.timeout_s, sent=False) from exc

    async def _ready(
        self, request: ActionRequest, at: Address
    ) -> tuple[Basics, ActionResult | None]:
        """The element's basics once it can take the step, or the refusal when it cannot."""
        await self._bus.ensure_events()
        basics = await read_basics(self._bus, at)
        if request.kind in OPERATING and basics.disabled:
            basics = await self.until_enabled(at, basics)
            if basics.disabled:
                return basics, self._disabled(request, basics)
        return basics, None

    def _result(
        self,
        request: ActionRequest,
        outcome: Outcome,
        mechanism: str,
        evidence: Mapping[str, object],
        reason: str = "",
    ) -> ActionResult:
        return ActionResult(
            outcome=outcome,
            delivery="ax",
            policy=request.policy,
            mechanism=mechanism,
            evidence=dict(evidence),
            reason=reason,
        )

    def _sent_nothing(self, request: ActionRequest, basics: Basics, reason: str) -> ActionResult:
        """``didnt`` for a step refused before anything was sent."""
        evidence = {"states": sorted(basics.states - NOISE)}
        return self._result(request, "didnt", "none", evidence, reason)

    async def until_enabled(self, at: Address, basics: Basics) -> Basics:
        """The element's basics once it is enabled, or after ``ENABLE_WAIT_S`` as they are."""
        with EventWatch(self._bus, at.bus) as watch:

            async def enabled() -> bool:
                nonlocal basics
                basics = await read_basics(self._bus, at, (basics.role, basics.interfaces))
                return not basics.disabled

            await settle(enabled, _wake(watch), ENABLE_WAIT_S)
        return basics

    def _disabled(self, request: ActionRequest, basics: Basics) -> ActionResult:
        # at-spi2-atk answers DoAction with true before running it, and GTK then
        # ignores a disabled widget: acting anyway would report an effect that
        # never came, so nothing is sent.
        disabled = self._result(
            request,
            "didnt",
            "none",
            {"states": sorted(basics.states - NOISE), "waitedS": ENABLE_WAIT_S},
            f"the {basics.role} is disabled (it stayed insensitive for {ENABLE_WAIT_S:g} s), "
            "so nothing was sent",
        )
        return replace(disabled, blocked="disabled")

    async def _observable(self, at: Address) -> dict[str, object]:
        """What a press might change: the element's states and name, the app's windows."""
        app = Address(at.bus, ROOT_PATH)
        try:
            basics, windows = await asyncio.gather(
                read_basics(self._bus, at), read_children(self._bus, app)
            )
        except TargetGone:
            return {"target": "gone"}
        return {
            "states": sorted(basics.states - NOISE),
            "name": basics.name,
            "windows": sorted(w.native_id for w in windows),
        }

    async def _do_action(self, at: Address, index: int) -> bool:
        body = await self._bus.call(at.bus, at.path, ACTION, "DoAction", "i", (index,))
        return bool(body[0])

    async def _press(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        actions = await self._actions(at, basics)
        index = press_index(actions)
        if index is None:
            return refuse_physical(request, f"the {basics.role} has no accessible action to press")
        return await self._do_press(request, at, basics, actions, index)

    async def _actions(self, at: Address, basics: Basics) -> tuple[str, ...]:
        return await read_actions(self._bus, at) if "Action" in basics.interfaces else ()

    async def _do_press(
        self,
        request: ActionRequest,
        at: Address,
        basics: Basics,
        actions: tuple[str, ...],
        index: int,
    ) -> ActionResult | Refused:
        """DoAction ``index``; ``worked`` once the element, its app's windows or events show it."""
        libreoffice = is_libreoffice(request.root.app_name)
        if action_may_hold_call(request.root.toolkit, basics.name, libreoffice=libreoffice):
            if "showing" not in basics.states:
                closed = self._sent_nothing(
                    request,
                    basics,
                    f"the {basics.role} is not on screen (its menu is closed) and "
                    f"{HELD_CALL_REASON}, so nothing was sent",
                )
                return replace(closed, blocked="menu_closed")
            return refuse_physical(request, HELD_CALL_REASON)
        mechanism = f"Action.DoAction({actions[index]})"
        before = await self._observable(at)
        with self._watch(request, at.bus) as watch:
            if not await self._do_action(at, index):
                return self._result(request, "didnt", mechanism, {}, "the toolkit refused")

            def shows(after: dict[str, object]) -> bool:
                return after != before or bool(watch.seen)

            try:
                outcome, after = await read_back(
                    before,
                    lambda: self._observable(at),
                    shows,
                    _wake(watch),
                    SETTLE_S,
                    effect_named=False,
                )
            except CallTimeout:
                self._stuck[request.root.pid] = at.bus
                blocked = {"events": list(watch.seen), "answering": False}
                unread = verdict(effect=False, unchanged=False, readable=False)
                modal = self._result(request, unread, mechanism, blocked, MODAL_REASON)
                return replace(modal, blocked="modal_dialog")
        evidence: dict[str, object] = {"events": list(watch.seen)}
        for key in ("states", "name", "windows", "target"):
            if before.get(key) != after.get(key):
                evidence[key] = {"before": before.get(key), "after": after.get(key)}
        reason = "" if outcome == "worked" else "the action ran but nothing observable changed"
        return self._result(request, outcome, mechanism, evidence, reason)

    async def _state_step(
        self,
        request: ActionRequest,
        at: Address,
        basics: Basics,
        wanted_actions: tuple[str, ...],
        done: Callable[[frozenset[str]], bool],
        watched: tuple[str, ...],
    ) -> ActionResult | Refused:
        """DoAction, then read the ``watched`` states back until ``done`` holds or time is up."""
        actions = await self._actions(at, basics)
        index = named_index(actions, wanted_actions)
        if index is None:
            index = press_index(actions)
        if index is None:
            return refuse_physical(
                request, f"the {basics.role} has no accessible action for {request.kind}"
            )
        mechanism = f"Action.DoAction({actions[index]})"
        before = frozenset(s for s in basics.states if s in watched)

        async def read() -> frozenset[str]:
            return frozenset(s for s in await read_states(self._bus, at) if s in watched)

        with self._watch(request, at.bus) as watch:
            if not await self._do_action(at, index):
                return self._result(request, "didnt", mechanism, {}, "the toolkit refused")
            outcome, after = await read_back(before, read, done, _wake(watch), SETTLE_S)
        evidence = {"before": sorted(before), "after": sorted(after), "events": watch.seen}
        reason = "" if outcome == "worked" else f"{'/'.join(watched)} unchanged"
        return self._result(request, outcome, mechanism, evidence, reason)

    async def _toggle(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        before = frozenset(s for s in basics.states if s in TOGGLE_STATES)
        return await self._state_step(
            request,
            at,
            basics,
            ("toggle", *PRESS_ORDER),
            lambda now: now != before,
            TOGGLE_STATES,
        )

    async def _expand(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        want = request.kind == "expand"
        if ("expanded" in basics.states) == want:
            return self._result(
                request, "worked", "none", {"already": "expanded" if want else "collapsed"}
            )
        return await self._state_step(
            request,
            at,
            basics,
            (*EXPAND_WORDS, *PRESS_ORDER),
            lambda now: ("expanded" in now) == want,
            ("expanded",),
        )

    async def _set_text(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        return await self._write_text(request, at, basics, request.text)

    async def _write_text(
        self, request: ActionRequest, at: Address, basics: Basics, text: str
    ) -> ActionResult | Refused:
        refused = _refusal_unless_editable(request, basics)
        if refused is not None:
            return refused
        mechanism = "EditableText.SetTextContents"
        before, _ = await self._text(at, basics)
        wanted = self._expected(basics, text)
        with self._watch(request, at.bus) as watch:
            body = await self._bus.call(at.bus, at.path, EDITABLE, "SetTextContents", "s", (text,))
            if basics.role in COMMITTED_ROLES and is_libreoffice(request.root.app_name):
                mechanism += await self._commit(at, basics)
            outcome, current = await read_back(
                before, self._text_of(at, basics), wanted.__eq__, _wake(watch), SETTLE_S
            )
        reason = explain(
            outcome,
            didnt="the text did not change" + ("" if body[0] else " (the toolkit refused)"),
            unknown="the text changed but differs from the request",
        )
        return self._result(
            request, outcome, mechanism, self._text_evidence(basics, current), reason
        )

    async def _commit(self, at: Address, basics: Basics) -> str:
        """Run the field's default action, which makes LibreOffice take its text (Calc's
        Zoom & View Layout kept 260 % after its spin field read ``200%`` and OK was
        pressed); the mechanism's suffix, '' when it has no action."""
        actions = await self._actions(at, basics)
        index = press_index(actions)
        if index is None:
            return ""
        await self._do_action(at, index)
        return f" + Action.DoAction({actions[index]})"

    async def _text(self, at: Address, basics: Basics) -> tuple[str, int]:
        """The live text; for a password field only its length, as bullets."""
        if basics.secure:
            count = await self._bus.get_int(at.bus, at.path, TEXT, "CharacterCount")
            return "\u25cf" * count, count
        return await read_text(self._bus, at, 0, 1 << 20)

    def _text_of(self, at: Address, basics: Basics) -> Callable[[], Awaitable[str]]:
        """A reader of the element's live text (bullets for a password field)."""

        async def read() -> str:
            return (await self._text(at, basics))[0]

        return read

    def _expected(self, basics: Basics, text: str) -> str:
        return "\u25cf" * len(text) if basics.secure else text

    def _text_evidence(self, basics: Basics, current: str) -> dict[str, object]:
        if basics.secure:
            return {"length": len(current)}
        return {"value": _cap(current), "length": len(current)}

    async def _type_text(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        if "EditableText" not in basics.interfaces and basics.role in DOCUMENT_ROLES:
            paragraph = await typing_paragraph(self._bus, at)
            if paragraph is not None:  # the page types into its paragraph at the caret
                at, basics = paragraph, await read_basics(self._bus, paragraph)
        refused = _refusal_unless_editable(request, basics)
        if refused is not None:
            return refused
        before, count = await self._text(at, basics)
        caret = await self._bus.get_int(at.bus, at.path, TEXT, "CaretOffset")
        if caret < 0 or caret > count:
            caret = count
        text = request.text
        mechanism = "EditableText.InsertText"
        expected = before[:caret] + self._expected(basics, text) + before[caret:]
        with self._watch(request, at.bus) as watch:
            await self._bus.call(
                at.bus,
                at.path,
                EDITABLE,
                "InsertText",
                "isi",
                (caret, text, insert_length(request.root.toolkit, text)),
            )
            outcome, current = await read_back(
                before, self._text_of(at, basics), expected.__eq__, _wake(watch), SETTLE_S
            )
        evidence = {"caret": caret, **self._text_evidence(basics, current)}
        if at.native_id != request.target:
            evidence["into"] = f"the {basics.role} holding the caret"
        reason = "" if outcome == "worked" else "inserted text not found"
        return self._result(request, outcome, mechanism, evidence, reason)

    async def _set_value(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        if "Value" not in basics.interfaces or request.value is None:
            text = request.text or (
                format_number(request.value) if request.value is not None else ""
            )
            return await self._write_text(request, at, basics, text)
        wanted = float(request.value)
        before = await read_value(self._bus, at)
        with self._watch(request, at.bus) as watch:
            await self._bus.set(
                at.bus, at.path, IFACE_PREFIX + "Value", "CurrentValue", Variant("d", wanted)
            )
            outcome, current = await read_back(
                before,
                lambda: read_value(self._bus, at),
                lambda now: abs(now - wanted) <= 1e-9 * max(1.0, abs(wanted)),
                _wake(watch),
                SETTLE_S,
            )
        evidence = {"before": before, "after": current}
        return self._result(request, outcome, "Value.CurrentValue", evidence)

    async def _parent(self, at: Address) -> tuple[Address, Basics | None]:
        parent = Address.of(await self._bus.get(at.bus, at.path, ACCESSIBLE, "Parent"))
        return parent, (await read_basics(self._bus, parent) if not parent.is_null else None)

    async def _index_in_parent(self, at: Address) -> int:
        return int((await self._bus.call(at.bus, at.path, ACCESSIBLE, "GetIndexInParent"))[0])

    async def _container(self, at: Address) -> tuple[Address, Basics, int] | None:
        """The nearest ancestor whose Selection holds the element, and the index there.

        The climb passes only through selectable items (a row's cell holding the
        name cell), never through a page or pane: selecting the tab that holds
        a pane is not selecting the pane.
        """
        child = at
        for _ in range(MAX_SELECTION_CLIMB):
            parent, parent_basics = await self._parent(child)
            if parent_basics is None:
                return None
            if "Selection" in parent_basics.interfaces:
                return parent, parent_basics, await self._index_in_parent(child)
            if "selectable" not in parent_basics.states:
                return None
            child = parent
        return None

    async def _selection_ways(
        self, at: Address, basics: Basics, *, click: bool
    ) -> list[tuple[str, Callable[[], Awaitable[bool]]]]:
        """Every way this element can be selected semantically, in the order to try them.

        None is an open, activate or press: in a file manager those launch files.
        A click moves focus to what it clicks, and a GTK 3 tree view selects the
        row it focuses (only that row), so a click tries GrabFocus first; a select
        changes the selection only, so it tries the container first.
        """
        ways: list[tuple[str, Callable[[], Awaitable[bool]]]] = []

        async def call(where: Address, interface: str, member: str, *args: int) -> bool:
            """Whether the method said it worked (one with no answer counts as yes)."""
            signature = "i" * len(args)
            body = await self._bus.call(where.bus, where.path, interface, member, signature, args)
            return bool(body[0]) if body else True

        container = await self._container(at)
        if container is not None:
            box, box_basics, index = container
            ways.append(
                ("Selection.SelectChild", lambda: call(box, SELECTION, "SelectChild", index))
            )
            if "Table" in box_basics.interfaces:
                # GTK 3 refuses SelectChild on a table of several columns; its rows
                # are selected through the Table interface.
                async def add_row() -> bool:
                    (row,) = await self._bus.call(
                        box.bus, box.path, TABLE, "GetRowAtIndex", "i", (index,)
                    )
                    row = int(row)
                    return row >= 0 and await call(box, TABLE, "AddRowSelection", row)

                ways.append(("Table.AddRowSelection", add_row))
        actions = await self._actions(at, basics)
        own = named_index(actions, SELECT_WORDS)
        if own is not None:
            ways.append((f"Action.DoAction({actions[own]})", lambda: self._do_action(at, own)))
        if {"selectable", "focusable"} <= basics.states and "Component" in basics.interfaces:
            # only an item can be selected by focusing it; a button never is
            focus = ("Component.GrabFocus", lambda: call(at, COMPONENT, "GrabFocus"))
            ways.insert(0 if click else len(ways), focus)
        return ways

    async def _select(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        parent, parent_basics = await self._parent(at)
        if parent_basics is not None and parent_basics.role == "menu":
            combo, combo_basics = await self._parent(parent)
            if combo_basics is not None and combo_basics.role == "combo box":
                return await self._select_in_combo(request, at, basics, combo, combo_basics)
        if "selected" in basics.states:
            return self._result(request, "worked", "none", {"already": "selected"})
        # LibreOffice acts on an item's selection only when the focus moves to it (the
        # Options dialog's page tree: SelectChild marked the page selected, the page stayed)
        focus_first = is_libreoffice(request.root.app_name)
        ways = await self._selection_ways(at, basics, click=focus_first)
        if not ways:
            return self._sent_nothing(
                request,
                basics,
                f"the {basics.role} cannot be selected: no container with a Selection holds "
                "it, it has no select action and cannot take focus; nothing was sent (an "
                "activate or open is never used for select)",
            )
        return await self._select_by(request, at, basics, ways)

    async def _click(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        """A left click on the element, semantically, proven on the element itself.

        An item of a list, table, icon view or tab list is selected (a click
        there selects; its ``activate`` would open it); anything else needs an
        action that is a click by name: a menu opens (a submenu too) and a menu
        item runs, though toolkits mark them selectable (selecting one only
        highlighted it: LibreOffice's submenus never opened). Otherwise the click
        must be a real one.
        """
        if "selectable" in basics.states and basics.role not in MENU_ROLES:
            if {"selected", "focused"} <= basics.states:
                return self._result(request, "worked", "none", {"already": "selected"})
            ways = await self._selection_ways(at, basics, click=True)
            if ways:
                return await self._select_by(request, at, basics, ways)
            return refuse_physical(request, f"the {basics.role} cannot be selected semantically")
        actions = await self._actions(at, basics)
        index = named_index(actions, CLICK_WORDS)
        if index is None:
            return refuse_physical(
                request, f"the {basics.role} has no accessible action that is a click"
            )
        return await self._do_press(request, at, basics, actions, index)

    async def _select_by(
        self,
        request: ActionRequest,
        at: Address,
        basics: Basics,
        ways: list[tuple[str, Callable[[], Awaitable[bool]]]],
    ) -> ActionResult:
        """Try ``ways`` in order until the element itself reads back as selected."""
        states = basics.states
        tried: list[str] = []
        for mechanism, send in ways:
            tried.append(mechanism)
            with self._watch(request, at.bus) as watch:
                if not await send():
                    continue  # the toolkit refused: nothing changed, try the next way
                outcome, states = await read_back(
                    states, lambda: read_states(self._bus, at), _selected, _wake(watch), SETTLE_S
                )
                if outcome == "worked":
                    evidence = {
                        "selected": True,
                        "focused": "focused" in states,
                        "tried": tried,
                        "events": watch.seen,
                    }
                    return self._result(request, "worked", mechanism, evidence)
        evidence = {"selected": False, "states": sorted(states - NOISE), "tried": tried}
        return self._result(
            request,
            judge(_selected(basics.states), _selected(states), bool),
            " / ".join(tried),
            evidence,
            f"the {basics.role} is still not selected",
        )

    async def _select_in_combo(
        self,
        request: ActionRequest,
        at: Address,
        basics: Basics,
        combo: Address,
        combo_basics: Basics,
    ) -> ActionResult | Refused:
        """A combo box item: the combo's own Selection picks it; its name shows the choice.

        Selecting inside the combo's menu only highlights the item (GTK 3).
        """
        before = combo_basics.name
        if before == basics.name:
            return self._result(request, "worked", "none", {"already": "chosen"})
        if "Selection" not in combo_basics.interfaces:
            return await self._press(request, at, basics)
        body = await self._bus.call(
            at.bus, at.path, IFACE_PREFIX + "Accessible", "GetIndexInParent"
        )

        async def chosen() -> str:
            return (await read_basics(self._bus, combo)).name

        with self._watch(request, combo.bus) as watch:
            await self._bus.call(
                combo.bus,
                combo.path,
                IFACE_PREFIX + "Selection",
                "SelectChild",
                "i",
                (int(body[0]),),
            )
            outcome, current = await read_back(
                before, chosen, basics.name.__eq__, _wake(watch), SETTLE_S
            )
        evidence = {"combo": {"before": _cap(before), "after": _cap(current)}}
        return self._result(request, outcome, "Selection.SelectChild (combo box)", evidence)

    async def _focus(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        if basics.role in DOCUMENT_ROLES and "EditableText" not in basics.interfaces:
            return await self._focus_page(request, at, basics)
        if "Component" not in basics.interfaces:
            return refuse_physical(request, f"the {basics.role} cannot take focus semantically")
        # a document's paragraph takes the caret, which brings the focus with it (Writer's
        # take GrabFocus and leave the caret, and the typing, where it was; and one it
        # left still reads focused)
        caret = basics.role in TEXT_BLOCK_ROLES and "Text" in basics.interfaces
        if "focused" in basics.states and not caret:
            return self._result(request, "worked", "none", {"already": "focused"})

        async def focused() -> bool:
            return "focused" in await read_states(self._bus, at)

        with self._watch(request, at.bus) as watch:
            if caret:
                await self._bus.call(at.bus, at.path, TEXT, "SetCaretOffset", "i", (0,))
            else:
                await self._bus.call(at.bus, at.path, COMPONENT, "GrabFocus")
            budget = focus_settle_s(request.root.toolkit, SETTLE_S)
            if not await self._window_active(request):
                # a toolkit shows the focus only once its window is active: a window just
                # mapped on a busy desktop may take longer than the settle window for that
                budget = max(budget, INACTIVE_WINDOW_FOCUS_S)
            outcome, now = await read_back(False, focused, bool, _wake(watch), budget)
        mechanism = "Text.SetCaretOffset(0)" if caret else "Component.GrabFocus"
        return self._result(request, outcome, mechanism, {"focused": now})

    async def _window_active(self, request: ActionRequest) -> bool:
        """Whether the step's window reads ``active``; one that cannot be read counts as
        active (the usual settle window then applies)."""
        try:
            states = await read_states(self._bus, Address.parse(request.root.native_id))
        except ActuiError:
            return True
        return "active" in states

    async def _focus_page(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        """A document's page is focused where typing into it goes: the paragraph holding
        the caret, else the last one on screen with the caret at its end (``pages``), so
        keys typed after it land in the page, never asking for a click."""
        paragraph = await typing_paragraph(self._bus, at)
        if paragraph is None:
            return refuse_physical(request, f"the {basics.role} holds no editable paragraph")
        focused = "focused" in await read_states(self._bus, paragraph)
        mechanism = "Text.SetCaretOffset (the page's paragraph with the caret)"
        return self._result(
            request, "worked" if focused else "unknown", mechanism, {"focused": focused}
        )

    async def _scroll(
        self, request: ActionRequest, at: Address, basics: Basics
    ) -> ActionResult | Refused:
        """Wheel amounts move the scroll bars; without them, scroll the element into view."""
        if request.scroll != (0, 0):
            return await self._wheel(request, at)
        if "Component" not in basics.interfaces:
            return refuse_physical(request, f"the {basics.role} cannot be scrolled semantically")
        before = await read_extents(self._bus, at, (0, 0))
        await self._bus.call(at.bus, at.path, COMPONENT, "ScrollTo", "u", (SCROLL_ANYWHERE,))
        after = await read_extents(self._bus, at, (0, 0))
        # "in view" has no reading of its own: a move is the effect, no move proves nothing
        outcome = judge(before, after, lambda now: now != before, effect_named=False)
        reason = "" if outcome == "worked" else "already in view or not scrollable"
        return self._result(
            request, outcome, "Component.ScrollTo", {"moved": before != after}, reason
        )

    async def _wheel(self, request: ActionRequest, at: Address) -> ActionResult | Refused:
        bars = await scroll_bars(self._bus, at)
        dx, dy = request.scroll
        moves = [(bar, wheel_target(bar, dy if bar.vertical else dx)) for bar in bars]
        moves = [(bar, target) for bar, target in moves if (dy if bar.vertical else dx)]
        if not moves:
            return refuse_physical(request, "no scroll bar to move for that direction")
        mechanism = "Value.CurrentValue (scroll bar)"
        evidence: dict[str, object] = {}
        before: list[float] = []
        after: list[float] = []
        for bar, target in moves:
            await self._bus.set(
                bar.at.bus,
                bar.at.path,
                IFACE_PREFIX + "Value",
                "CurrentValue",
                Variant("d", target),
            )
            before.append(bar.current)
            after.append(await read_value(self._bus, bar.at))
            evidence["vertical" if bar.vertical else "horizontal"] = {
                "before": bar.current,
                "after": after[-1],
            }
        outcome = judge(before, after, lambda now: now != before)
        reason = "" if outcome == "worked" else "already at the end"
        return self._result(request, outcome, mechanism, evidence, reason)


def _selected(states: frozenset[str]) -> bool:
    return "selected" in states


def _wake(watch: EventWatch) -> Callable[[float], Awaitable[bool]]:
    """Wait for the acted-on window's next event, or at most the polling interval."""
    return lambda left: watch.next(min(POLL_S, left))
