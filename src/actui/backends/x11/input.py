"""Physical delivery with XTEST: the policy gate, the preflight and the events.

Owns the rules that decide whether synthetic pointer and keyboard events may be
sent to a window (delivery policy, activation, "is it still the active window",
"is the pointer really over it") and the sending itself, including typing any
Unicode text through temporary keycode bindings, kept until the application
has consumed the keys typed with them. It must not decide what to click (the
runtime maps image points to screen points) nor claim an effect: physical
input proves nothing by itself, so every outcome is ``unknown``; whether typed
text arrived is for the caller's ``consumed`` read-back to say.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Iterator, Sequence

from Xlib import X
from Xlib.ext import xtest

from actui.backends.base import ActionRequest, ActionResult
from actui.backends.gestures import (
    DRAG_STEP_S,
    Consumed,
    drag_steps,
    inside,
    physical_result,
    policy_refusal,
    required_point,
    wheel_clicks,
)
from actui.backends.x11 import ewmh
from actui.backends.x11.connection import XConnection
from actui.backends.x11.keys import (
    XK_SHIFT_L,
    Keymap,
    Segment,
    Stroke,
    chord_keysyms,
    keysym_for_char,
    plan_typing,
)
from actui.backends.x11.session import X11Session
from actui.deadlines import Deadline
from actui.errors import (
    BackendUnavailable,
    CallTimeout,
    CoordinateBlocked,
    ForegroundRequired,
    UnsupportedAction,
    refusal_error,
)
from actui.refusals import Refused

BUTTONS = {"left": 1, "middle": 2, "right": 3}
WHEEL_UP, WHEEL_DOWN, WHEEL_LEFT, WHEEL_RIGHT = 4, 5, 6, 7
CATCH_UP_S = 0.1
"""How long temporary keycode bindings stay after their last stroke: applications
look a keycode up when they handle the press, not when it is sent (measured:
50–100 ms was always enough for GTK3)."""
XTEST_VERSION = (2, 2)


class X11Input:
    """XTEST delivery to the windows of one :class:`X11Session` (one step at a time)."""

    def __init__(self, session: X11Session) -> None:
        self._session = session
        self._conn = session.connection
        self._lock = asyncio.Lock()

    async def deliver(
        self, request: ActionRequest, window_id: int, consumed: Consumed | None = None
    ) -> ActionResult:
        """Send ``request`` as synthetic input to ``window_id`` under its delivery policy.

        ``request.point`` and ``request.path`` are screen pixels. Typed text
        waits for ``consumed`` after each batch of keystrokes, so the next step
        never overtakes keys the application has not handled yet. Raises the error
        of :meth:`refusal` when the policy forbids the step (ask it first to get the
        refusal as data), :class:`CoordinateBlocked` (occluded or outside point,
        hidden window), :class:`ForegroundRequired` (``foreground`` when activation
        fails; focus lost midway).
        """
        async with self._lock:
            await self._gate(request, window_id)
            deadline = Deadline(request.timeout_s)
            evidence: dict[str, object] = {}
            if request.kind != "typeText":  # setText first selects what the text replaces
                run = functools.partial(_deliver, self._conn, request, window_id, deadline)
                evidence = await self._conn.call_within(request.timeout_s + 1.0, run)
            if request.kind in ("typeText", "setText"):
                typist = await self._type(request, window_id, deadline, consumed)
                selecting = evidence.get("events", 0)
                sent = selecting if isinstance(selecting, int) else 0
                evidence = {**evidence, **typist.evidence(sent)}
        return physical_result(request, "xtest", evidence)

    async def _type(
        self,
        request: ActionRequest,
        window_id: int,
        deadline: Deadline,
        consumed: Consumed | None,
    ) -> _Typist:
        """Type segment by segment; each segment's bindings stay until its keys were consumed."""
        budget = request.timeout_s + 1.0
        start = functools.partial(_Typist, self._conn, window_id, deadline, request.text)
        typist = await self._conn.call_within(budget, start)
        for index in range(len(typist.segments)):
            caught_up = False
            try:
                sent = await self._conn.call_within(budget, functools.partial(typist.send, index))
                caught_up = consumed is not None and await consumed(sent)
            finally:
                release = functools.partial(typist.release, index, caught_up)
                await self._conn.call_within(budget, release)
        return typist

    async def refusal(self, request: ActionRequest, window_id: int) -> Refused | None:
        """Why ``request``'s policy forbids sending it to ``window_id`` now, if it does.

        ``ax_only`` and ``background`` send no physical input; ``default`` sends it
        only to the active window, which it never activates.
        """
        active = self._session.active_window
        return await policy_refusal(request, "XTEST input", active, window_id, f"{window_id:#x}")

    async def close(self) -> None:
        """Nothing to release: the events went over the session's connection."""

    async def _gate(self, request: ActionRequest, window_id: int) -> None:
        refused = await self.refusal(request, window_id)
        if refused is not None:
            raise refusal_error(refused)
        if request.policy == "default":
            return
        if not await self._session.activate(window_id):
            active = await self._session.active_window()
            raise ForegroundRequired(
                f"window {window_id:#x} could not be activated (the active window is still "
                f"{_hex(active)}); a modal dialog or the window manager may be refusing it."
            )


def _deliver(
    conn: XConnection, request: ActionRequest, window_id: int, deadline: Deadline
) -> dict[str, object]:
    """Runs on the connection's worker thread; returns the evidence."""
    sender = _Sender(conn, window_id, deadline)
    try:
        evidence = _operate(sender, request)
    finally:
        sender.drain_events()
    return {"mechanism": "xtest", "windowId": window_id, "events": sender.events, **evidence}


def _operate(sender: _Sender, request: ActionRequest) -> dict[str, object]:
    kind = request.kind
    if kind in ("click", "press"):
        point = required_point(request)
        button = BUTTONS[request.button]
        count = min(3, max(1, request.click_count))
        sender.click(point, button, count)
        return {"point": list(point), "button": request.button, "clickCount": count}
    if kind == "moveMouse":
        point = required_point(request)
        sender.move(point)
        return {"point": list(point)}
    if kind == "scroll":
        point = request.point or sender.frame.center
        clicks = sender.scroll(point, request.scroll)
        return {"point": list(point), "wheelClicks": list(clicks)}
    if kind == "drag":
        sender.drag(request.path)
        return {"path": [list(p) for p in request.path]}
    if kind == "keypress":
        sender.chord(chord_keysyms(request.keys))
        return {"keys": [k if len(k) > 1 else "<char>" for k in request.keys]}
    if kind == "setText":
        # without a point the field was focused semantically beforehand (linux.py)
        placed: dict[str, object] = {}
        if request.point is not None:
            sender.click(request.point, BUTTONS["left"], 1)
            placed = {"point": list(request.point)}
        sender.chord(chord_keysyms(["ctrl", "a"]))  # the text is typed next, as typeText is
        return placed
    raise UnsupportedAction(kind, "has no physical (XTEST) form", instead="ref")


class _Sender:
    """Synthetic events to one window, each preceded by the checks that make it safe."""

    def __init__(self, conn: XConnection, window_id: int, deadline: Deadline) -> None:
        self.conn = conn
        self.display = conn.display
        self.window_id = window_id
        self.deadline = deadline
        self.events = 0
        root_id = self.display.screen().root.id
        if window_id in (0, root_id):
            raise CoordinateBlocked("physical input needs a client window, not the root window.")
        self.chain = frozenset(ewmh.ancestry(conn, window_id))
        if not ewmh.is_viewable(conn, window_id):
            raise CoordinateBlocked(
                f"window {window_id:#x} is not viewable (minimized or unmapped)."
            )
        self.frame = ewmh.client_frame(conn, window_id)
        version = self.display.xtest_get_version(*XTEST_VERSION)
        if (version.major_version, version.minor_version) < XTEST_VERSION:
            raise BackendUnavailable("the X server's XTEST extension is older than 2.2.")

    def guard(self, point: tuple[int, int] | None) -> None:
        """Refuse the next event unless the target is active (and under ``point``)."""
        if self.deadline.expired:
            self.deadline.seen = f"{self.events} events sent"
            raise CallTimeout(self.deadline.timed_out("physical delivery did not finish") + ".")
        active = ewmh.active_window(self.conn)
        if active != self.window_id:
            raise ForegroundRequired(
                f"window {self.window_id:#x} stopped being the active window (now "
                f"{_hex(active)}) after {self.events} events; nothing more was sent."
            )
        if point is not None:
            self._preflight(point)

    def _preflight(self, point: tuple[int, int]) -> None:
        x, y = point
        root = self.display.screen().root
        child = root.translate_coords(root, x, y).child
        child_id = child.id if child else 0
        if self._own_popup(child_id):
            return
        if not inside(self.frame, x, y):
            raise CoordinateBlocked(
                f"point ({x}, {y}) is outside window {self.window_id:#x} at "
                f"{self.frame.x},{self.frame.y} {self.frame.w}×{self.frame.h}."
            )
        if child_id in self.chain:
            return
        if child_id and self.window_id in ewmh.ancestry(self.conn, child_id):
            return
        raise CoordinateBlocked(
            f"point ({x}, {y}) is occluded: the window there is {_hex(child_id)}, not "
            f"{self.window_id:#x} or one of its ancestors."
        )

    def _own_popup(self, child_id: int) -> bool:
        """Whether ``child_id`` is a popup (an open menu) of the target window's own client.

        Popups are override-redirect top-level windows, outside the window's
        tree and often outside its frame; the X server gives all windows of one
        client the same resource-id base.
        """
        if not child_id:
            return False
        mask = self.display.display.info.resource_id_mask
        if child_id & ~mask != self.window_id & ~mask:
            return False
        popup = self.display.create_resource_object("window", child_id)
        return bool(popup.get_attributes().override_redirect)

    def _fake(self, event_type: int, detail: int = 0, point: tuple[int, int] | None = None) -> None:
        if point is None:
            xtest.fake_input(self.display, event_type, detail)
        else:
            xtest.fake_input(self.display, event_type, detail, x=point[0], y=point[1])
        self.display.flush()
        self.events += 1

    def move(self, point: tuple[int, int]) -> None:
        self.guard(point)
        self._fake(X.MotionNotify, 0, point)

    def button(self, point: tuple[int, int], button: int) -> None:
        for event_type in (X.ButtonPress, X.ButtonRelease):
            self.guard(point)
            self._fake(event_type, button)

    def click(self, point: tuple[int, int], button: int, count: int) -> None:
        """``count`` presses and releases at ``point``, all checked before the first: a
        check is X round trips (the active window, the window under the point), and between
        the presses of one multi-click they let a loaded machine stretch it past the
        double-click time (a Tk entry's triple-click arrived as a double in 2 of 6 runs)."""
        self.move(point)
        self.guard(point)
        for _ in range(count):
            self._fake(X.ButtonPress, button)
            self._fake(X.ButtonRelease, button)

    def scroll(self, point: tuple[int, int], amount: tuple[int, int]) -> tuple[int, int]:
        """Wheel clicks: positive y scrolls down, positive x right; at most 100 per axis."""
        dx, dy = amount
        clicks_x, clicks_y = wheel_clicks(amount)
        self.move(point)
        for _ in range(clicks_y):
            self.button(point, WHEEL_DOWN if dy > 0 else WHEEL_UP)
        for _ in range(clicks_x):
            self.button(point, WHEEL_RIGHT if dx > 0 else WHEEL_LEFT)
        return (clicks_x, clicks_y)

    def drag(self, path: Sequence[tuple[int, int]]) -> None:
        for point in path:
            self.guard(point)
        self.move(path[0])
        self.guard(path[0])
        self._fake(X.ButtonPress, BUTTONS["left"])
        try:
            for point in drag_steps(path):
                time.sleep(DRAG_STEP_S)
                self.move(point)
        finally:
            time.sleep(DRAG_STEP_S)
            self._fake(X.ButtonRelease, BUTTONS["left"])

    def chord(self, keysyms: Sequence[int]) -> None:
        """Press every key in order, release in reverse (Shift added where a character needs it)."""
        segments = plan_typing(keysyms, self._keymap())
        if len(segments) != 1:
            raise UnsupportedAction("the chord", "needs more unmapped keys than spare keycodes")
        with self._bound(segments[0]):
            shift = self._shift_keycode()
            pressed: list[int] = []
            for stroke in segments[0].strokes:
                for keycode in ([shift] if stroke.shift else []) + [stroke.keycode]:
                    if keycode not in pressed:
                        self._key(keycode, X.KeyPress)
                        pressed.append(keycode)
            for keycode in reversed(pressed):
                self._key(keycode, X.KeyRelease)

    def _stroke(self, stroke: Stroke, shift: int) -> None:
        if stroke.shift:
            self._key(shift, X.KeyPress)
        self._key(stroke.keycode, X.KeyPress)
        self._key(stroke.keycode, X.KeyRelease)
        if stroke.shift:
            self._key(shift, X.KeyRelease)

    def _key(self, keycode: int, event_type: int) -> None:
        self.guard(None)
        self._fake(event_type, keycode)

    def _keymap(self) -> Keymap:
        first = self.display.display.info.min_keycode
        last = self.display.display.info.max_keycode
        rows = self.display.get_keyboard_mapping(first, last - first + 1)
        return Keymap(first, tuple(tuple(int(k) for k in row) for row in rows))

    def _shift_keycode(self) -> int:
        found = self._keymap().find(XK_SHIFT_L)
        if found is None:
            raise UnsupportedAction("the keyboard map", "has no Shift key")
        return found[0]

    @contextlib.contextmanager
    def _bound(self, segment: Segment) -> Iterator[None]:
        """Bind the segment's spare keycodes, then restore them once the app caught up."""
        self.bind(segment)
        try:
            yield
        finally:
            self.unbind(segment, caught_up=False)

    def bind(self, segment: Segment) -> None:
        if not segment.bindings:
            return
        width = len(self._keymap().rows[0])
        for keycode, keysym in segment.bindings:
            self.display.change_keyboard_mapping(keycode, [(keysym,) * width])
        self.display.sync()

    def unbind(self, segment: Segment, *, caught_up: bool) -> None:
        """Restore the segment's keycodes; unless the app is known to have caught up,
        first give it :data:`CATCH_UP_S` to look them up."""
        if not segment.bindings:
            return
        self.display.sync()
        if not caught_up:
            time.sleep(CATCH_UP_S)
        width = len(self._keymap().rows[0])
        for keycode, _ in segment.bindings:
            self.display.change_keyboard_mapping(keycode, [(0,) * width])
        self.display.sync()

    def drain_events(self) -> None:
        """Drop the MappingNotify events our own rebinding caused, so none pile up."""
        while self.display.pending_events():
            self.display.next_event()


class _Typist(_Sender):
    """Text typed one segment at a time, so the caller can wait between segments."""

    def __init__(self, conn: XConnection, window_id: int, deadline: Deadline, text: str) -> None:
        super().__init__(conn, window_id, deadline)
        self.segments = plan_typing([keysym_for_char(c) for c in text], self._keymap())
        self.bound = sum(len(segment.bindings) for segment in self.segments)
        self._shift = self._shift_keycode()
        self._sent = 0

    def send(self, index: int) -> int:
        """Bind and type segment ``index``; returns the characters sent so far.

        Ends with XSync: the server has then turned every stroke into an event
        for the focused client, so what remains is the client's own backlog.
        """
        segment = self.segments[index]
        self.bind(segment)
        for stroke in segment.strokes:
            self._stroke(stroke, self._shift)
            self._sent += 1
        self.display.sync()
        return self._sent

    def release(self, index: int, caught_up: bool) -> None:
        self.unbind(self.segments[index], caught_up=caught_up)
        self.drain_events()

    def evidence(self, also_sent: int) -> dict[str, object]:
        """What was typed, counting ``also_sent`` events sent before it (selecting the text)."""
        return {
            "mechanism": "xtest",
            "windowId": self.window_id,
            "events": self.events + also_sent,
            "chars": self._sent,
            "temporaryBindings": self.bound,
        }


def _hex(window_id: int | None) -> str:
    return "none" if not window_id else f"{window_id:#x}"
