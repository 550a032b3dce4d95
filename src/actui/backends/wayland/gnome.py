"""The async face of one headless gnome-shell desktop: windows, capture, liveness.

gnome-shell answers ``org.gnome.Shell.Introspect.GetWindows`` and
``org.gnome.Shell.Screenshot`` only to the owner of a name on its allow-list
(the GNOME or GTK portal backend's, :data:`ALLOWED_NAMES`); on actui's private
session bus no portal holds them, so this module takes one
on its one connection (:class:`ShellBus`, shared with the remote-desktop
keyboard of :mod:`~actui.backends.wayland.gnome_input`, whose session dies
with the connection that made it). On a user's own GNOME session the real
portals own them, and this module is never used there.

GNOME 43 gives each window's title, class, focus and size but no position and
no process id: windows are paired with AT-SPI roots by title and size. A
window's place is found once, while it has the focus, by finding its own
picture in the screen's (:mod:`~actui.backends.wayland.locate`), and kept
while its size stays; a window never placed has no frame, and nothing here
guesses one. gnome-shell focuses a window only on a click or a new map, so
``activate`` succeeds only for the window already focused. A capture of the
focused window is that window alone (``ScreenshotWindow``); any other
window's capture is the whole screen, said in its warnings. It must not send
input.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from dbus_fast import Message
from dbus_fast.aio import MessageBus
from PIL import Image as PilImage

from actui.backends import dbus_calls
from actui.backends.base import Rect
from actui.backends.wayland.locate import find_within
from actui.backends.wayland.screen import encode_capture
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.session import Capture
from actui.errors import BackendUnavailable, CallTimeout, CaptureFailed, DisplayGone, TargetGone

CALL_TIMEOUT_S = 5.0
PLACE_RETRY_S = 0.5
"""How soon a window not found in the screen's picture is looked for again."""
SHELL = "org.gnome.Shell"
ALLOWED_NAMES = (
    "org.freedesktop.impl.portal.desktop.gnome",
    "org.freedesktop.impl.portal.desktop.gtk",
)
"""The names gnome-shell's sender check lets call Introspect and Screenshot (``misc/util.js``):
one each for two clients of a desktop at once (a third gets neither)."""
_DBUS = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
_INTROSPECT = (SHELL, "/org/gnome/Shell/Introspect", "org.gnome.Shell.Introspect")
_SCREENSHOT = (SHELL, "/org/gnome/Shell/Screenshot", "org.gnome.Shell.Screenshot")
_OWNED = (1, 4)
"""RequestName's answers that leave us the owner: primary owner, already the owner."""


class ShellBus:
    """One connection to the desktop's session bus that owns one of :data:`ALLOWED_NAMES`, and the
    news of gnome-shell's end (its name losing its owner, or the bus closing)."""

    def __init__(self, address: str, display: str) -> None:
        self.address = address
        self.display = display
        self._bus: MessageBus | None = None
        self._starting = asyncio.Lock()
        self._gone: DisplayGone | None = None
        self._callbacks: list[Callable[[DisplayGone], None]] = []
        self._handlers: list[Callable[[Message], None]] = []

    async def connection(self) -> MessageBus:
        """The connection, made and given the name on first use."""
        async with self._starting:
            if self._gone is not None:
                raise self._gone
            if self._bus is None:
                self._bus = await self._connect()
            return self._bus

    async def _connect(self) -> MessageBus:
        try:
            bus = await asyncio.wait_for(
                MessageBus(bus_address=self.address, negotiate_unix_fd=True).connect(),
                CALL_TIMEOUT_S,
            )
        except (OSError, TimeoutError) as exc:
            raise BackendUnavailable(
                f"gnome-shell's session bus cannot be reached: {exc}"
            ) from None
        bus.add_message_handler(self._on_message)
        ended = asyncio.ensure_future(bus.wait_for_disconnect())  # type: ignore[no-untyped-call]
        ended.add_done_callback(self._ended)
        rule = (
            f"type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='{SHELL}'"
        )
        await self._send(bus, Message(*_DBUS, "AddMatch", signature="s", body=[rule]))
        for name in ALLOWED_NAMES:
            if await self._bus_call(bus, "RequestName", "su", [name, 4]) in _OWNED:
                break
        else:
            bus.disconnect()
            raise BackendUnavailable(
                f"both names gnome-shell lets list windows and take screenshots "
                f"({', '.join(ALLOWED_NAMES)}) are held by other clients (two actui sessions "
                "on this desktop already), so gnome-shell would refuse them to this one"
            )
        shell_up = await self._bus_call(bus, "NameHasOwner", "s", [SHELL])
        if not shell_up:
            self._end()
            raise DisplayGone(self.display, wayland=True)
        return bus

    def _on_message(self, message: Message) -> None:
        if (
            message.member == "NameOwnerChanged"
            and message.body[:1] == [SHELL]
            and not message.body[2]
        ):
            self._end()
        for handler in list(self._handlers):
            handler(message)

    def _ended(self, ended: asyncio.Future[None]) -> None:
        if not ended.cancelled():
            ended.exception()  # taken note of: the end itself is the news
        self._end()

    def _end(self) -> None:
        if self._gone is None:
            self._gone = DisplayGone(self.display, wayland=True)
            for callback in self._callbacks:
                callback(self._gone)

    def on_message(self, handler: Callable[[Message], None]) -> None:
        """Call ``handler`` with every message the connection receives (signals included)."""
        self._handlers.append(handler)

    def when_gone(self, callback: Callable[[DisplayGone], None]) -> None:
        self._callbacks.append(callback)

    def gone(self) -> DisplayGone | None:
        return self._gone

    async def call(
        self,
        destination: str,
        path: str,
        interface: str,
        member: str,
        signature: str = "",
        body: Sequence[Any] = (),
    ) -> Message:
        """One method call with a deadline; the reply (its ``unix_fds`` included)."""
        bus = await self.connection()
        message = Message(
            destination, path, interface, member, signature=signature, body=list(body)
        )
        return await self._send(bus, message)

    async def _bus_call(self, bus: MessageBus, member: str, signature: str, body: Any) -> Any:
        """The bus daemon's answer to ``member`` (its one value)."""
        ask = Message(*_DBUS, member, signature=signature, body=body)
        return (await self._send(bus, ask)).body[0]

    async def _send(self, bus: MessageBus, message: Message) -> Message:
        def refused(detail: str) -> Exception:
            if self._gone is not None:  # the shell's end, not the call, is the news
                return self._gone
            return BackendUnavailable(f"gnome-shell's {message.member} failed: {detail}")

        return await dbus_calls.call(
            bus, message, CALL_TIMEOUT_S, silent=CallTimeout, refused=refused
        )

    def close(self) -> None:
        if self._bus is not None:
            self._bus.disconnect()
            self._bus = None


class GnomeSession:
    """One headless gnome-shell desktop's windows, focus, places and pixels."""

    def __init__(self, shell: ShellBus, env: dict[str, str]) -> None:
        self.shell = shell
        self.lifeline = shell
        self._shots = Path(env.get("TMPDIR") or tempfile.gettempdir())
        self._places: dict[int, tuple[tuple[int, int], Rect]] = {}
        """Each placed window's surface on the screen, with the size it was listed at."""
        self._placing = asyncio.Lock()
        self._tried: dict[tuple[int, int, int], float] = {}

    async def start(self) -> None:
        await self.shell.connection()

    async def windows(self) -> list[XWindow]:
        """gnome-shell's windows (``GetWindows``), the focused one first (``z_order`` 0),
        pid 0 (never told). A window's frame is its surface on the screen once it was
        placed (:meth:`_place`, while it had the focus), else empty: unknown."""
        listed = await self._listed()
        focused = next((w for w in listed if w.is_active), None)
        if focused is not None and self._placed(focused) is None and self._due(focused):
            await self._place(focused)
        alive = {w.window_id for w in listed}
        for gone in [i for i in self._places if i not in alive]:
            del self._places[gone]
        return [replace(w, frame=self._placed(w) or Rect(0, 0, 0, 0)) for w in listed]

    async def _listed(self) -> list[XWindow]:
        reply = await self.shell.call(*_INTROSPECT, "GetWindows")
        (found,) = reply.body
        return windows_of(found)

    def _placed(self, window: XWindow) -> Rect | None:
        """Where the window was found, if it still has the size it had then (a window
        moves only when resized or dragged: a Wayland client cannot move itself)."""
        known = self._places.get(window.window_id)
        return known[1] if known and known[0] == (window.frame.w, window.frame.h) else None

    def _due(self, window: XWindow) -> bool:
        """Whether to look for the window now: a look that found nothing is tried again
        only after :data:`PLACE_RETRY_S` (two screenshots each time)."""
        key = (window.window_id, window.frame.w, window.frame.h)
        now = time.monotonic()
        if now - self._tried.get(key, -PLACE_RETRY_S) < PLACE_RETRY_S:
            return False
        self._tried = {key: now}  # the latest look only: a window placed later is re-tried
        return True

    async def _place(self, window: XWindow) -> None:
        """Find the focused ``window`` by its own picture in the screen's
        (:func:`~actui.backends.wayland.locate.find_within`); kept only when it was still
        the focused window, at the same size, after both pictures."""
        async with self._placing:
            try:
                alone = await self._shot("ScreenshotWindow", "bbb", [False, False, False])
                screen = await self._shot("Screenshot", "bb", [False, False])
            except (CaptureFailed, BackendUnavailable):  # the focus moved meanwhile: no
                if self.shell.gone() is not None:  # window to draw; placed at a later listing
                    raise
                return
            now = next((w for w in await self._listed() if w.is_active), None)
            if now is None or (now.window_id, now.frame) != (window.window_id, window.frame):
                return
            spot = await asyncio.to_thread(find_within, screen, alone)
            if spot is not None:
                frame = Rect(spot[0], spot[1], alone.width, alone.height)
                self._places[window.window_id] = ((window.frame.w, window.frame.h), frame)

    async def listing(self, timeout_s: float) -> list[XWindow]:
        """The placed windows, for placing surface-local AT-SPI extents (``WindowOrigins``)."""
        return [w for w in await self.windows() if not w.frame.empty]

    async def active_window(self) -> int | None:
        return next((w.window_id for w in await self._listed() if w.is_active), None)

    async def activate(self, window_id: int, *, timeout_s: float = 0.2) -> bool:
        """True only when the window already has the focus: gnome-shell offers no client a
        way to focus another window (its ``Eval`` is refused outside unsafe mode)."""
        return await self.active_window() == window_id

    async def capture(self, window_id: int, *, max_dimension: int) -> Capture:
        """The focused window alone; for any other window, the whole screen (warned)."""
        windows = await self.windows()
        window = next((w for w in windows if w.window_id == window_id), None)
        if window is None:
            raise TargetGone(f"window {window_id}", "is gone", then="find_roots")
        if window.is_minimized:
            raise CaptureFailed(f"window {window_id} is not shown, so it has no pixels to read")
        warnings: tuple[str, ...] = ()
        if window.is_active:
            member = "ScreenshotWindow"
            image = await self._shot(member, "bbb", [False, False, False])
        else:
            member = "Screenshot"
            image = await self._shot(member, "bb", [False, False])
            warnings = (
                f"window {window_id} is not focused, and gnome-shell draws only the focused "
                "window alone, so this is the whole screen",
            )
        frame = window.frame if window.is_active and not window.frame.empty else None
        frame = frame or Rect(0, 0, image.width, image.height)
        source = f"gnome-shell-{member}"
        return await asyncio.to_thread(
            encode_capture, image, frame, max(1, max_dimension), source, warnings
        )

    async def _shot(self, member: str, flags: str, args: list[object]) -> PilImage.Image:
        """One of gnome-shell's Screenshot calls, written to a file of ours and read back."""
        fd, name = tempfile.mkstemp(suffix=".png", dir=self._shots)
        os.close(fd)
        path = Path(name)
        try:
            reply = await self.shell.call(*_SCREENSHOT, member, f"{flags}s", [*args, name])
            if not reply.body or not reply.body[0]:
                raise CaptureFailed(f"gnome-shell's {member} did not write the image")
            return await asyncio.to_thread(_decoded, path)
        finally:
            await asyncio.to_thread(path.unlink, missing_ok=True)

    async def close(self) -> None:
        self.shell.close()


def windows_of(found: dict[int, dict[str, Any]]) -> list[XWindow]:
    """``GetWindows``' answer as windows (pure): shown before hidden, the focused first."""
    order = sorted(
        found.items(),
        key=lambda item: (
            _value(item[1], "is-hidden", False),
            not _value(item[1], "has-focus", False),
        ),
    )
    windows = []
    for z, (window_id, props) in enumerate(order):
        wm_class = str(_value(props, "wm-class", ""))
        windows.append(
            XWindow(
                window_id=int(window_id),
                pid=0,
                title=str(_value(props, "title", "")),
                wm_class=(wm_class, wm_class),
                frame=Rect(0, 0, int(_value(props, "width", 0)), int(_value(props, "height", 0))),
                frame_extents=(0, 0, 0, 0),
                z_order=z,
                is_active=bool(_value(props, "has-focus", False)),
                is_minimized=bool(_value(props, "is-hidden", False)),
                is_modal=False,
                transient_for=None,
            )
        )
    return windows


def _value(props: dict[str, Any], key: str, default: object) -> Any:
    got = props.get(key)
    return getattr(got, "value", default) if got is not None else default


def _decoded(path: Path) -> PilImage.Image:
    image = PilImage.open(path)
    image.load()
    return image.convert("RGB")
