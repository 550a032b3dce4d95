"""Input on a headless gnome-shell: mutter's RemoteDesktop, its clipboard and screen cast.

The gnome-shell counterpart of :mod:`~actui.backends.wayland.input`, under the
same policy rules (``default`` sends only to the focused window, which gnome-shell
alone can change, so ``foreground`` works only on a window already focused).
One RemoteDesktop session per desktop, on the shell bus's one connection (a
session ends with the connection that made it). mutter adds a session's
keyboard and pointer at their first event, which is lost, so a Shift press, a
motion by nothing and a 100 ms pause open it. Keys go as keysyms
that mutter looks up in its keymap (US): a keysym it has no key for is dropped
without a word, so text with any character outside printable ASCII, newline
and tab is pasted whole instead: the session offers it as the clipboard
(``SetSelection``), writes it when the app asks (``SelectionTransfer``,
``SelectionWrite``) and presses Ctrl+V. A password is never put on the
clipboard, where any app could read it: it is typed as keys when every
character has one, else refused (:func:`secret_refusal`). mutter moves the
pointer to absolute points only relative to a screen cast, so the session is
tied to one of the monitor, streamed through PipeWire; without PipeWire, or for
a window whose place was never found (:mod:`~actui.backends.wayland.gnome`),
a pointer step is refused before anything is sent. Every outcome is
``unknown``; arrival is the caller's ``consumed`` read-back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

from dbus_fast import Message, Variant

from actui.backends.base import ActionRequest, ActionResult, Rect
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
from actui.backends.wayland.gnome import GnomeSession
from actui.backends.x11.keys import XK_SHIFT_L, keysym_for_char, keysym_for_name
from actui.errors import (
    BackendUnavailable,
    CallTimeout,
    CoordinateBlocked,
    ForegroundRequired,
    UnsupportedAction,
    refusal_error,
)
from actui.refusals import Refused

MECHANISM = "gnome-remote-desktop"
WARM_UP_S = 0.1
"""mutter drops the first key of a new session; a Shift press this long before opens it."""
PASTE_WAIT_S = 5.0
"""How long the app may take to ask for the pasted text once Ctrl+V is sent."""
MUTTER = "org.gnome.Mutter.RemoteDesktop"
SCREEN_CAST = "org.gnome.Mutter.ScreenCast"
STREAM_WAIT_S = 3.0
"""How long mutter may take to announce its screen cast's PipeWire stream."""
_CAST_PATH = "/org/gnome/Mutter/ScreenCast"
_DBUS = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
_BUTTONS = {"left": 0x110, "right": 0x111, "middle": 0x112}
"""evdev's BTN_LEFT, BTN_RIGHT, BTN_MIDDLE."""
_SESSION = "org.gnome.Mutter.RemoteDesktop.Session"
_CONTROL_L = 0xFFE3
_MIME = ["text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "STRING", "TEXT"]
_POINTER = ("click", "press", "moveMouse", "scroll", "drag")


def keyable(text: str) -> bool:
    """Whether every character of ``text`` has a key in mutter's US keymap."""
    return all(" " <= c <= "~" or c in "\n\t" for c in text)


def secret_refusal(request: ActionRequest) -> Refused | None:
    """Why ``request``'s text cannot go into a password field (or a field that cannot be
    read, which may be one) here: the clipboard it would need is readable by every app."""
    if keyable(request.text):
        return None
    return Refused(
        "text with characters outside the US keymap into a password field, or a field "
        "that cannot be read: gnome-shell would need the clipboard, which every app of the "
        "desktop can read (focus a readable field first, or type only keyboard characters)",
        "physical",
        request.policy,
    )


class GnomeInput:
    """RemoteDesktop keyboard delivery to the windows of one :class:`GnomeSession`."""

    def __init__(self, session: GnomeSession, runtime_dir: str) -> None:
        self.session = session
        self.shell = session.shell
        self._lock = asyncio.Lock()
        self._path = ""
        self._clipboard = False
        self._offered = ""
        self._transfers: set[asyncio.Task[None]] = set()
        self._asked: asyncio.Event = asyncio.Event()
        self._streaming = asyncio.Event()
        self._stream = ""
        self._no_stream = "its screen cast has not started"
        self._pipewire = Path(runtime_dir) / "pipewire-0"
        self.shell.on_message(self._on_signal)

    async def refusal(self, request: ActionRequest, window_id: int) -> Refused | None:
        """Why ``request``'s policy forbids sending it to ``window_id`` now, if it does."""
        active = self.session.active_window
        return await policy_refusal(
            request, "GNOME remote desktop", active, window_id, str(window_id)
        )

    async def deliver(
        self, request: ActionRequest, window_id: int, consumed: Consumed | None = None
    ) -> ActionResult:
        """Send ``request`` as RemoteDesktop keys (or a paste) to ``window_id``."""
        async with self._lock:
            refused = await self.refusal(request, window_id)
            if refused is not None:
                raise refusal_error(refused)
            deadline = time.monotonic() + request.timeout_s
            await self._guard(window_id, 0, deadline)
            evidence = await self._operate(request, window_id, deadline, consumed)
        return physical_result(request, MECHANISM, evidence)

    async def _operate(
        self, request: ActionRequest, window_id: int, deadline: float, consumed: Consumed | None
    ) -> dict[str, object]:
        base: dict[str, object] = {"mechanism": MECHANISM, "windowId": window_id}
        if request.kind in _POINTER:
            return {**base, **await self._pointer(request, window_id)}
        if request.kind == "keypress":
            keysyms = [keysym_for_name(k) for k in request.keys]
            events = await self._chord(keysyms)
            keys = [k if len(k) > 1 else "<char>" for k in request.keys]
            return {**base, "events": events, "keys": keys}
        if request.kind not in ("typeText", "setText"):
            raise UnsupportedAction(request.kind, "has no keyboard form", instead="ref")
        events = 0
        if request.kind == "setText":
            events += await self._chord([_CONTROL_L, keysym_for_name("a")])
            await self._guard(window_id, events, deadline)
        if keyable(request.text):
            route = "keys"
            for char in request.text:
                events += await self._chord([keysym_for_char(char)])
        else:
            route = "clipboard"
            events += await self._paste(request.text, deadline)
        if consumed is not None:
            await consumed(len(request.text))
        return {**base, "events": events, "chars": len(request.text), "route": route}

    async def _pointer(self, request: ActionRequest, window_id: int) -> dict[str, object]:
        """A click, move, wheel or drag at screen points inside the window's found place."""
        path = await self._remote()
        if not self._stream:
            raise UnsupportedAction(request.kind, f"has no pointer here: {self._no_stream}")
        frame = await self._frame(window_id)
        if request.kind == "scroll":
            point = request.point or frame.center
            clicks = wheel_clicks(request.scroll)
            await self._move(path, frame, point)
            (dx, dy), (across, down) = request.scroll, clicks
            for axis, delta, count in ((0, dy, down), (1, dx, across)):  # 0: vertical
                if count:
                    steps = count if delta > 0 else -count
                    await self._rd(path, "NotifyPointerAxisDiscrete", "ui", [axis, steps])
            return {"point": list(point), "wheelClicks": list(clicks), "events": 1 + sum(clicks)}
        if request.kind == "drag":
            await self._move(path, frame, request.path[0])
            await self._button(path, "left", True)
            try:
                for point in drag_steps(request.path):
                    await asyncio.sleep(DRAG_STEP_S)
                    await self._move(path, frame, point)
            finally:
                await asyncio.sleep(DRAG_STEP_S)
                await self._button(path, "left", False)
            return {"path": [list(p) for p in request.path], "events": 3 + len(request.path)}
        point = required_point(request)
        await self._move(path, frame, point)
        if request.kind == "moveMouse":
            return {"point": list(point), "events": 1}
        count = min(3, max(1, request.click_count))
        for _ in range(count):
            await self._button(path, request.button, True)
            await self._button(path, request.button, False)
        return {
            "point": list(point),
            "button": request.button,
            "clickCount": count,
            "events": 1 + 2 * count,
        }

    async def _frame(self, window_id: int) -> Rect:
        """The focused target's found place on the screen, or why a point cannot be aimed."""
        windows = await self.session.windows()
        target = next((w for w in windows if w.window_id == window_id), None)
        if target is None or target.frame.empty:
            raise CoordinateBlocked(
                f"the place of window {window_id} is not known: gnome-shell tells no window's "
                "position, and actui finds it only from a screenshot while the window has the "
                "focus, which did not find it",
                instead="ref",
            )
        return target.frame

    async def _move(self, path: str, frame: Rect, point: tuple[int, int]) -> None:
        x, y = point
        if not inside(frame, x, y):
            raise CoordinateBlocked(
                f"point ({x}, {y}) is outside window {frame.x},{frame.y} {frame.w}×{frame.h}."
            )
        body = [self._stream, float(x), float(y)]
        await self._rd(path, "NotifyPointerMotionAbsolute", "sdd", body)

    async def _button(self, path: str, button: str, down: bool) -> None:
        await self._rd(path, "NotifyPointerButton", "ib", [_BUTTONS[button], down])

    async def _rd(self, path: str, member: str, signature: str, body: list[object]) -> None:
        await self.shell.call(MUTTER, path, _SESSION, member, signature, body)

    async def _guard(self, window_id: int, events: int, deadline: float) -> None:
        """Refuse the next burst unless the target still has the focus, in time."""
        if time.monotonic() > deadline:
            raise CallTimeout(f"physical delivery ran out of time after {events} events.")
        active = await self.session.active_window()
        if active != window_id:
            raise ForegroundRequired(
                f"window {window_id} is not (or no longer) the focused window (now "
                f"{active or 'none'}) after {events} events; gnome-shell lets no client focus "
                "a window, so nothing more was sent"
            )

    async def _chord(self, keysyms: Sequence[int]) -> int:
        """Press the keysyms in order and release them in reverse: the events sent."""
        path = await self._remote()
        for keysym in keysyms:
            await self._key(path, keysym, True)
        for keysym in reversed(keysyms):
            await self._key(path, keysym, False)
        return 2 * len(keysyms)

    async def _key(self, path: str, keysym: int, down: bool) -> None:
        await self._rd(path, "NotifyKeyboardKeysym", "ub", [keysym, down])

    async def _remote(self) -> str:
        """The RemoteDesktop session, made, started and warmed up on first use."""
        if self._path:
            return self._path
        reply = await self.shell.call(
            MUTTER, "/org/gnome/Mutter/RemoteDesktop", MUTTER, "CreateSession"
        )
        path = str(reply.body[0])
        for interface in (_SESSION, f"{SCREEN_CAST}.Stream"):
            rule = f"type='signal',interface='{interface}'"
            await self.shell.call(*_DBUS, "AddMatch", "s", [rule])
        stream = await self._screen_cast(path)
        await self.shell.call(MUTTER, path, _SESSION, "Start")
        await self._key(path, XK_SHIFT_L, True)
        await self._key(path, XK_SHIFT_L, False)
        await self._rd(path, "NotifyPointerMotionRelative", "dd", [0.0, 0.0])
        await asyncio.sleep(WARM_UP_S)
        if stream:
            try:
                await asyncio.wait_for(self._streaming.wait(), STREAM_WAIT_S)
                self._stream = stream
            except TimeoutError:
                self._no_stream = (
                    f"mutter's screen cast stream did not start within {STREAM_WAIT_S:g} s"
                )
        self._path = path
        return path

    async def _screen_cast(self, path: str) -> str:
        """A screen cast of the monitor tied to the remote-desktop session at ``path``: mutter
        takes absolute pointer motion only relative to one. Its stream, or "" (and why)."""
        if not self._pipewire.exists():
            self._no_stream = (
                "mutter takes pointer motion only through a screen cast, which needs PipeWire, "
                "and none runs on this desktop"
            )
            return ""
        props = await self.shell.call(
            MUTTER, path, "org.freedesktop.DBus.Properties", "Get", "ss", [_SESSION, "SessionId"]
        )
        tie = {"remote-desktop-session-id": Variant("s", props.body[0].value)}
        cast = await self.shell.call(
            SCREEN_CAST, _CAST_PATH, SCREEN_CAST, "CreateSession", "a{sv}", [tie]
        )
        record = await self.shell.call(
            SCREEN_CAST, cast.body[0], f"{SCREEN_CAST}.Session", "RecordMonitor", "sa{sv}", ["", {}]
        )
        self._streaming.clear()
        return str(record.body[0])

    async def _paste(self, text: str, deadline: float) -> int:
        """Offer ``text`` as the clipboard, press Ctrl+V, and wait until the app took it."""
        path = await self._remote()
        if not self._clipboard:
            await self.shell.call(MUTTER, path, _SESSION, "EnableClipboard", "a{sv}", [{}])
            self._clipboard = True
        self._offered = text
        self._asked.clear()
        offer = {"mime-types": Variant("as", _MIME)}
        await self.shell.call(MUTTER, path, _SESSION, "SetSelection", "a{sv}", [offer])
        events = await self._chord([_CONTROL_L, keysym_for_name("v")])
        left = min(PASTE_WAIT_S, deadline - time.monotonic())
        try:
            await asyncio.wait_for(self._asked.wait(), max(0.0, left))
        except TimeoutError:
            raise BackendUnavailable(
                f"the app did not ask for the pasted text within {left:.1f} s of Ctrl+V "
                "(is a text field focused?)"
            ) from None
        return events

    def _on_signal(self, message: Message) -> None:
        if message.member == "Closed" and message.path == self._path:  # made again on use
            self._path, self._clipboard, self._stream = "", False, ""
        if message.member == "PipeWireStreamAdded":
            self._streaming.set()
        if message.member == "SelectionTransfer" and message.path == self._path:
            _mime, serial = message.body
            task = asyncio.ensure_future(self._transfer(int(serial)))
            self._transfers.add(task)
            task.add_done_callback(self._transfers.discard)

    async def _transfer(self, serial: int) -> None:
        """Write the offered text into the fd mutter hands over for ``serial``."""
        ok = False
        try:
            reply = await self.shell.call(
                MUTTER, self._path, _SESSION, "SelectionWrite", "u", [serial]
            )
            fd = reply.unix_fds[reply.body[0]] if reply.unix_fds else -1
            if fd >= 0:
                with os.fdopen(fd, "wb") as sink:
                    await asyncio.to_thread(sink.write, self._offered.encode())
                ok = True
        finally:
            with contextlib.suppress(Exception):
                await self.shell.call(
                    MUTTER, self._path, _SESSION, "SelectionWriteDone", "ub", [serial, ok]
                )
            self._asked.set()

    async def close(self) -> None:
        for task in self._transfers:
            task.cancel()
        if self._path and self.shell.gone() is None:
            with contextlib.suppress(Exception):
                await self.shell.call(MUTTER, self._path, _SESSION, "Stop")
        self._path = ""
