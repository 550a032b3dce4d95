"""Physical delivery with XTEST: the policy gate, the preflight and the events.

Owns the rules that decide whether synthetic pointer and keyboard events may be
sent to a window (delivery policy, activation, "is it still the active window",
"is the pointer really over it") and the sending itself, including typing any
Unicode text through temporary keycode bindings. It must not decide what to
click (the runtime maps image points to screen points) nor claim an effect:
physical input proves nothing by itself, so every outcome is ``unknown``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import math
import time
from collections.abc import Iterator, Sequence

from Xlib import X
from Xlib import display as xdisplay
from Xlib.ext import xtest

from actui.backends.base import ActionRequest, ActionResult, Rect
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
from actui.errors import (
    BackendUnavailable,
    CallTimeout,
    CoordinateBlocked,
    ForegroundRequired,
    InvalidParams,
    UnsupportedAction,
)

BUTTONS = {"left": 1, "middle": 2, "right": 3}
WHEEL_UP, WHEEL_DOWN, WHEEL_LEFT, WHEEL_RIGHT = 4, 5, 6, 7
MAX_WHEEL_CLICKS = 100
CATCH_UP_S = 0.1
"""How long temporary keycode bindings stay after their last stroke when more text
follows: applications look a keycode up when they handle the press, not when it
is sent (measured: 50–100 ms was always enough for GTK3). The bindings of a
text's last segment stay until the next typing or :meth:`X11Input.close`:
Firefox on a loaded machine handled a key after 100 ms and typed nothing for
it (its "✓" lost)."""
DRAG_STEP_PX = 12
DRAG_STEP_S = 0.008
"""Drags move in small steps with a pause so toolkits see a real motion, not a jump."""
XTEST_VERSION = (2, 2)


class X11Input:
    """XTEST delivery to the windows of one :class:`X11Session` (one step at a time)."""

    def __init__(self, session: X11Session) -> None:
        self._session = session
        self._conn = session.connection
        self._lock = asyncio.Lock()
        self._held: list[int] = []
        """Spare keycodes still bound by the last typing (see :data:`CATCH_UP_S`)."""

    async def close(self) -> None:
        """Unbind the keycodes the last typing left bound, if the server is still there."""
        async with self._lock:
            if self._held:
                with contextlib.suppress(BackendUnavailable, CallTimeout):
                    display = self._conn.display
                    held = self._held
                    await self._conn.call_within(2.0, lambda: release_held(display, held))

    async def deliver(self, request: ActionRequest, window_id: int) -> ActionResult:
        """Send ``request`` as synthetic input to ``window_id`` under its delivery policy.

        ``request.point`` and ``request.path`` are screen pixels. Raises
        :class:`CoordinateBlocked` (``ax_only``, occluded or outside point, hidden
        window), :class:`ForegroundRequired` (``background``; ``default`` with an
        inactive window; ``foreground`` when activation fails; focus lost midway).
        """
        async with self._lock:
            await self._gate(request, window_id)
            deadline = time.monotonic() + request.timeout_s
            run = functools.partial(_deliver, self._conn, request, window_id, deadline, self._held)
            evidence = await self._conn.call_within(request.timeout_s + 1.0, run)
        return ActionResult(
            outcome="unknown",
            delivery="hid",
            policy=request.policy,
            mechanism="xtest",
            evidence=evidence,
            reason="physical input was sent; only a read-back can show its effect",
        )

    async def _gate(self, request: ActionRequest, window_id: int) -> None:
        policy = request.policy
        if policy == "ax_only":
            raise CoordinateBlocked(
                "physical input is blocked: the delivery policy is ax_only (headless or "
                "semantic-only), so no pointer or keyboard event may be sent."
            )
        if policy == "background":
            raise ForegroundRequired(
                f"{request.kind} needs physical input, which the background policy forbids; "
                "retry in the foreground."
            )
        if policy == "default":
            if await self._session.active_window() != window_id:
                raise ForegroundRequired(
                    f"window {window_id:#x} is not the active window and the default policy "
                    "never activates; retry in the foreground."
                )
            return
        if not await self._session.activate(window_id):
            active = await self._session.active_window()
            raise ForegroundRequired(
                f"window {window_id:#x} could not be activated (the active window is still "
                f"{_hex(active)}); a modal dialog or the window manager may be refusing it."
            )


def _deliver(
    conn: XConnection, request: ActionRequest, window_id: int, deadline: float, held: list[int]
) -> dict[str, object]:
    """Runs on the connection's worker thread; returns the evidence."""
    sender = _Sender(conn, window_id, deadline, held)
    try:
        evidence = _operate(sender, request)
    finally:
        sender.drain_events()
    return {"mechanism": "xtest", "windowId": window_id, "events": sender.events, **evidence}


def _operate(sender: _Sender, request: ActionRequest) -> dict[str, object]:
    kind = request.kind
    if kind in ("click", "press"):
        point = _required_point(request)
        button = BUTTONS[request.button]
        count = min(3, max(1, request.click_count))
        sender.click(point, button, count)
        return {"point": list(point), "button": request.button, "clickCount": count}
    if kind == "moveMouse":
        point = _required_point(request)
        sender.move(point)
        return {"point": list(point)}
    if kind == "scroll":
        point = request.point or sender.frame.center
        clicks = sender.scroll(point, request.scroll)
        return {"point": list(point), "wheelClicks": list(clicks)}
    if kind == "drag":
        if len(request.path) < 2:
            raise InvalidParams("path", "a drag needs at least 2 points.")
        sender.drag(request.path)
        return {"path": [list(p) for p in request.path]}
    if kind == "keypress":
        sender.chord(chord_keysyms(request.keys))
        return {"keys": [k if len(k) > 1 else "<char>" for k in request.keys]}
    if kind == "typeText":
        bound = sender.type_text(request.text)
        return {"chars": len(request.text), "temporaryBindings": bound}
    if kind == "setText":
        # without a point the field was focused semantically beforehand (linux.py)
        placed: dict[str, object] = {}
        if request.point is not None:
            sender.click(request.point, BUTTONS["left"], 1)
            placed = {"point": list(request.point)}
        sender.chord(chord_keysyms(["ctrl", "a"]))
        bound = sender.type_text(request.text)
        return {**placed, "chars": len(request.text), "temporaryBindings": bound}
    raise UnsupportedAction(f"{kind} has no physical (XTEST) form; use a semantic ref instead.")


def _required_point(request: ActionRequest) -> tuple[int, int]:
    if request.point is None:
        raise InvalidParams("point", f"{request.kind} needs screen coordinates (x, y).")
    return request.point


class _Sender:
    """Synthetic events to one window, each preceded by the checks that make it safe."""

    def __init__(self, conn: XConnection, window_id: int, deadline: float, held: list[int]) -> None:
        self.conn = conn
        self.held = held
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
        if time.monotonic() > self.deadline:
            raise CallTimeout(f"physical delivery ran out of time after {self.events} events.")
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
        if not _inside(self.frame, x, y):
            raise CoordinateBlocked(
                f"point ({x}, {y}) is outside window {self.window_id:#x} at "
                f"{self.frame.x},{self.frame.y} {self.frame.w}×{self.frame.h}."
            )
        root = self.display.screen().root
        child = root.translate_coords(root, x, y).child
        child_id = child.id if child else 0
        if child_id in self.chain:
            return
        if child_id and self.window_id in ewmh.ancestry(self.conn, child_id):
            return
        raise CoordinateBlocked(
            f"point ({x}, {y}) is occluded: the window there is {_hex(child_id)}, not "
            f"{self.window_id:#x} or one of its ancestors."
        )

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
        self.move(point)
        for _ in range(count):
            self.button(point, button)

    def scroll(self, point: tuple[int, int], amount: tuple[int, int]) -> tuple[int, int]:
        """Wheel clicks: positive y scrolls down, positive x right; at most 100 per axis."""
        dx, dy = amount
        clicks_x = min(MAX_WHEEL_CLICKS, math.ceil(abs(dx)))
        clicks_y = min(MAX_WHEEL_CLICKS, math.ceil(abs(dy)))
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
            for point in _steps(path):
                time.sleep(DRAG_STEP_S)
                self.move(point)
        finally:
            time.sleep(DRAG_STEP_S)
            self._fake(X.ButtonRelease, BUTTONS["left"])

    def chord(self, keysyms: Sequence[int]) -> None:
        """Press every key in order, release in reverse (Shift added where a character needs it)."""
        release_held(self.display, self.held)
        segments = plan_typing(keysyms, self._keymap())
        if len(segments) != 1:
            raise UnsupportedAction("the chord needs more unmapped keys than spare keycodes.")
        with self._bound(segments[0], hold=True):
            shift = self._shift_keycode()
            pressed: list[int] = []
            for stroke in segments[0].strokes:
                for keycode in ([shift] if stroke.shift else []) + [stroke.keycode]:
                    if keycode not in pressed:
                        self._key(keycode, X.KeyPress)
                        pressed.append(keycode)
            for keycode in reversed(pressed):
                self._key(keycode, X.KeyRelease)

    def type_text(self, text: str) -> int:
        """Type ``text`` exactly; returns how many temporary bindings it needed."""
        release_held(self.display, self.held)  # an earlier step's keys are handled by now
        segments = plan_typing([keysym_for_char(c) for c in text], self._keymap())
        shift = self._shift_keycode()
        for i, segment in enumerate(segments):
            with self._bound(segment, hold=i == len(segments) - 1):
                for stroke in segment.strokes:
                    self._stroke(stroke, shift)
        return sum(len(segment.bindings) for segment in segments)

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
            raise UnsupportedAction("the keyboard map has no Shift key.")
        return found[0]

    @contextlib.contextmanager
    def _bound(self, segment: Segment, *, hold: bool) -> Iterator[None]:
        """Bind the segment's spare keycodes, then restore them once the app caught up,
        or (``hold``) leave them bound until the next typing."""
        if not segment.bindings:
            yield
            return
        width = len(self._keymap().rows[0])
        for keycode, keysym in segment.bindings:
            self.display.change_keyboard_mapping(keycode, [(keysym,) * width])
        self.display.sync()
        keycodes = [keycode for keycode, _ in segment.bindings]
        try:
            yield
        finally:
            self.display.sync()
            if hold:
                self.held.extend(keycodes)
            else:
                time.sleep(CATCH_UP_S)
                release_held(self.display, keycodes)

    def drain_events(self) -> None:
        """Drop the MappingNotify events our own rebinding caused, so none pile up."""
        while self.display.pending_events():
            self.display.next_event()


def release_held(display: xdisplay.Display, keycodes: list[int]) -> None:
    """Unbind temporary keycodes (and empty the list)."""
    if not keycodes:
        return
    width = len(display.get_keyboard_mapping(keycodes[0], 1)[0])
    for keycode in keycodes:
        display.change_keyboard_mapping(keycode, [(0,) * width])
    display.sync()
    keycodes.clear()


def _steps(path: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The path's points with intermediate points at most :data:`DRAG_STEP_PX` apart."""
    for (x0, y0), (x1, y1) in itertools.pairwise(path):
        count = max(1, math.ceil(max(abs(x1 - x0), abs(y1 - y0)) / DRAG_STEP_PX))
        for i in range(1, count + 1):
            yield (x0 + round((x1 - x0) * i / count), y0 + round((y1 - y0) * i / count))


def _inside(frame: Rect, x: int, y: int) -> bool:
    return frame.x <= x < frame.x + frame.w and frame.y <= y < frame.y + frame.h


def _hex(window_id: int | None) -> str:
    return "none" if not window_id else f"{window_id:#x}"
