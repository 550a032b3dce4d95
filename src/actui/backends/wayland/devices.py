"""A virtual pointer and a virtual keyboard on a wlroots compositor's seat.

Owns the two objects of ``zwlr_virtual_pointer_v1`` and ``zwp_virtual_keyboard_v1``
for the life of one connection (created once, so the seat's capabilities never
flap between steps: a keyboard that appears just before its keys loses the
first ones), and what is sent through them: absolute motion, buttons, wheel
clicks, and key strokes under a keymap uploaded by memfd with a round trip
before the keys. It must not decide what to type or where to click.
"""

from __future__ import annotations

import os
import time

from actui.backends.wayland import keymap as km
from actui.backends.wayland.wire import Connection, fixed, memfd_with, message, uint

BUTTON_CODES = {"left": 0x110, "right": 0x111, "middle": 0x112}
"""Linux input event codes BTN_LEFT, BTN_RIGHT, BTN_MIDDLE."""
WHEEL_STEP = 15.0
"""The scroll distance of one wheel click, as libinput reports it."""
_POINTER_MANAGER = "zwlr_virtual_pointer_manager_v1"
_KEYBOARD_MANAGER = "zwp_virtual_keyboard_manager_v1"
_MOTION_ABSOLUTE, _BUTTON, _FRAME, _AXIS_SOURCE, _AXIS_DISCRETE = 1, 2, 4, 5, 7
_KEYMAP, _KEY, _MODIFIERS = 0, 1, 2
_XKB_V1 = 1
_PRESSED, _RELEASED = 1, 0


class VirtualDevices:
    """One pointer and one keyboard, on one connection to the compositor."""

    def __init__(self, socket_path: str, *, timeout_s: float = 2.0) -> None:
        self._conn = Connection(socket_path, timeout_s=timeout_s)
        seat = self._conn.bind("wl_seat", 1)
        pointers = self._conn.bind(_POINTER_MANAGER, 1)
        self._pointer = self._conn.new_id()  # the compositor takes new ids in order only
        self._conn.send(message(pointers, 0, uint(seat) + uint(self._pointer)))
        keyboards = self._conn.bind(_KEYBOARD_MANAGER, 1)
        self._keyboard = self._conn.new_id()
        self._conn.send(message(keyboards, 0, uint(seat) + uint(self._keyboard)))
        self._layout: tuple[tuple[int, int], ...] | None = None
        self._use(km.BASE_LAYOUT)

    def _ms(self) -> int:
        return int(time.monotonic() * 1000) & 0xFFFFFFFF

    def move(self, x: int, y: int, width: int, height: int) -> None:
        body = uint(self._ms()) + uint(x) + uint(y) + uint(width) + uint(height)
        self._conn.send(message(self._pointer, _MOTION_ABSOLUTE, body) + self._frame())

    def button(self, button: str, pressed: bool) -> None:
        state = _PRESSED if pressed else _RELEASED
        body = uint(self._ms()) + uint(BUTTON_CODES[button]) + uint(state)
        self._conn.send(message(self._pointer, _BUTTON, body) + self._frame())

    def wheel(self, axis: int, clicks: int) -> None:
        """``clicks`` wheel clicks on ``axis`` (0 vertical, 1 horizontal; positive: down/right)."""
        body = uint(self._ms()) + uint(axis) + fixed(WHEEL_STEP * clicks) + uint(clicks)
        self._conn.send(
            message(self._pointer, _AXIS_SOURCE, uint(0))
            + message(self._pointer, _AXIS_DISCRETE, body)
            + self._frame()
        )

    def _frame(self) -> bytes:
        return message(self._pointer, _FRAME, b"")

    def strokes(self, batch: km.Batch, *, chord: bool = False) -> None:
        """Press the batch's keys under its keymap: one by one, or held together (a chord)."""
        self._use(batch.layout)
        layout = dict(batch.layout)
        data = b""
        if chord:
            held: list[int] = []
            for key in batch.keys:
                data += self._key(key, True)
                held.append(layout[key])
                data += self._modifiers(km.modifier_mask(held))
            for key in reversed(batch.keys):
                data += self._key(key, False)
                held.remove(layout[key])
                data += self._modifiers(km.modifier_mask(held))
        else:
            for key in batch.keys:
                data += self._key(key, True) + self._key(key, False)
        self._conn.send(data)

    def _key(self, key: int, pressed: bool) -> bytes:
        state = _PRESSED if pressed else _RELEASED
        return message(self._keyboard, _KEY, uint(self._ms()) + uint(key) + uint(state))

    def _modifiers(self, depressed: int) -> bytes:
        return message(self._keyboard, _MODIFIERS, uint(depressed) + uint(0) * 3)

    def _use(self, layout: tuple[tuple[int, int], ...]) -> None:
        """Upload the keymap of ``layout`` unless it is the current one; wait until it is had."""
        if layout == self._layout:
            return
        text = km.keymap_text(dict(layout)).encode() + b"\0"
        fd = memfd_with(text, "actui-keymap")
        try:
            self._conn.send(
                message(self._keyboard, _KEYMAP, uint(_XKB_V1) + uint(len(text))), (fd,)
            )
        finally:
            os.close(fd)
        self._conn.roundtrip()
        self._layout = layout

    def sync(self) -> None:
        """Return once the compositor has handled everything sent."""
        self._conn.roundtrip()

    def close(self) -> None:
        self._conn.close()
