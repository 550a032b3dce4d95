"""X11Session on a private desktop: EWMH listing, activation, pairing and capture."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable

import pytest
import pytest_asyncio
from PySide6.QtGui import QImage
from Xlib import X, Xatom, display

from actui.backends.atspi.backend import AtspiBackend
from actui.backends.linux.sandbox import Sandbox
from actui.backends.x11 import window_watch
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.pairing import pair_windows
from actui.backends.x11.session import Capture, X11Session
from actui.backends.x11.window_watch import WatchedWindows
from actui.errors import CaptureFailed

pytestmark = pytest.mark.asyncio(loop_scope="module")

RED, BLUE, GREEN, YELLOW = 0xD01010, 0x1030E0, 0x10B040, 0xE0E020

# A window the X server paints by itself: left half one colour, right half another
# (a child window), at a user-specified position so openbox keeps it there.
COLOUR_WINDOW = """
import os, sys
from Xlib import X, Xatom, Xutil, display
x, y, w, h = (int(v) for v in sys.argv[1:5])
title, left, right = sys.argv[5], int(sys.argv[6], 16), int(sys.argv[7], 16)
d = display.Display()
screen = d.screen()
win = screen.root.create_window(x, y, w, h, 0, screen.root_depth, background_pixel=left)
half = win.create_window(w // 2, 0, w - w // 2, h, 0, screen.root_depth, background_pixel=right)
win.set_wm_name(title)
win.change_property(d.intern_atom("_NET_WM_NAME"), d.intern_atom("UTF8_STRING"), 8, title.encode())
win.change_property(d.intern_atom("_NET_WM_PID"), Xatom.CARDINAL, 32, [os.getpid()])
win.set_wm_normal_hints(flags=Xutil.USPosition | Xutil.USSize, x=x, y=y, width=w, height=h)
half.map()
win.map()
d.flush()
while True:
    d.next_event()
"""


async def open_colour_window(
    sandbox: Sandbox, title: str, rect: tuple[int, int, int, int], left: int, right: int
) -> asyncio.subprocess.Process:
    args = [str(v) for v in rect] + [title, f"{left:06x}", f"{right:06x}"]
    return await sandbox.launch([sys.executable, "-c", COLOUR_WINDOW, *args])


async def wait_for_window(screen: X11Session, title: str, within: float = 10.0) -> XWindow:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for window in await screen.windows():
            if window.title == title:
                return window
        await asyncio.sleep(0.05)
    raise AssertionError(f"no window titled {title!r} within {within} s")


def colour_at(capture: Capture, x: int, y: int) -> int:
    image = QImage.fromData(capture.png)
    assert not image.isNull()
    return int(image.pixel(x, y)) & 0xFFFFFF


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def zenity(module_sandbox: Sandbox, screen: X11Session) -> XWindow:
    process = await module_sandbox.launch(
        ["zenity", "--entry", "--title", "Zenity Entry", "--text", "Name"]
    )
    await module_sandbox.wait_for_app(process.pid)
    return await wait_for_window(screen, "Zenity Entry")


async def test_windows_lists_an_app_with_pid_title_geometry_and_activation(
    screen: X11Session, zenity: XWindow
) -> None:
    windows = {w.window_id: w for w in await screen.windows()}
    listed = windows[zenity.window_id]
    assert listed.pid > 0 and listed.wm_class[0] == "zenity"
    assert listed.frame.w > 50 and listed.frame.h > 50
    assert sorted(w.z_order for w in windows.values()) == list(range(len(windows)))
    assert [w.window_id for w in windows.values() if w.is_active] == [await screen.active_window()]


async def test_activate_makes_a_window_the_active_one(
    module_sandbox: Sandbox, screen: X11Session, zenity: XWindow
) -> None:
    await open_colour_window(module_sandbox, "Activation", (600, 400, 200, 150), RED, RED)
    other = await wait_for_window(screen, "Activation")
    assert await screen.activate(other.window_id)
    assert await screen.active_window() == other.window_id
    assert await screen.activate(zenity.window_id)
    listed = {w.window_id: w for w in await screen.windows()}
    assert listed[zenity.window_id].is_active and listed[zenity.window_id].z_order == 0


async def test_live_atspi_roots_pair_with_their_x_windows(
    module_sandbox: Sandbox, screen: X11Session, zenity: XWindow
) -> None:
    atspi = AtspiBackend(module_sandbox.env)
    try:
        roots = await atspi.list_roots(zenity.pid)
    finally:
        await atspi.close()
    (paired,) = [
        r for r in pair_windows(roots, await screen.windows()) if r.title == "Zenity Entry"
    ]
    assert paired.window_id == zenity.window_id
    assert paired.frame == zenity.frame


async def test_a_covered_window_is_captured_with_its_own_pixels(
    module_sandbox: Sandbox, screen: X11Session
) -> None:
    await open_colour_window(module_sandbox, "Below", (100, 100, 400, 300), RED, BLUE)
    below = await wait_for_window(screen, "Below")
    await open_colour_window(module_sandbox, "Above", (250, 200, 400, 300), GREEN, YELLOW)
    # The test means something only if "Above" really covers part of "Below"; the window
    # manager restacks a new window shortly after mapping it.
    for _ in range(100):
        above = await wait_for_window(screen, "Above")
        below = await wait_for_window(screen, "Below")
        if above.z_order < below.z_order:
            break
        await asyncio.sleep(0.05)
    assert above.z_order < below.z_order
    assert above.frame.x < below.frame.x + 300 < above.frame.x + above.frame.w
    capture = await screen.capture(below.window_id, max_dimension=1600)
    assert (capture.width, capture.height, capture.source) == (400, 300, "xcomposite")
    covered_y = above.frame.y - below.frame.y + 50
    assert colour_at(capture, 190, covered_y) == RED  # left half, under "Above"
    assert colour_at(capture, 300, covered_y) == BLUE  # right half, under "Above"
    assert colour_at(capture, 20, 20) == RED and colour_at(capture, 380, 20) == BLUE


async def test_a_capture_is_shrunk_to_the_maximum_dimension(screen: X11Session) -> None:
    below = await wait_for_window(screen, "Below")
    capture = await screen.capture(below.window_id, max_dimension=100)
    assert (capture.width, capture.height, capture.scale) == (100, 75, 0.25)
    assert colour_at(capture, 10, 40) == RED and colour_at(capture, 90, 40) == BLUE


async def test_a_real_app_capture_decodes_to_its_client_size(
    screen: X11Session, zenity: XWindow
) -> None:
    capture = await screen.capture(zenity.window_id, max_dimension=1600)
    image = QImage.fromData(capture.png)
    assert (image.width(), image.height()) == (zenity.frame.w, zenity.frame.h)
    colours = {
        int(image.pixel(x, y)) & 0xFFFFFF
        for x in range(0, image.width(), 7)
        for y in range(0, image.height(), 7)
    }
    assert len(colours) > 3  # drawn widgets, not a blank or black surface


async def test_capturing_a_minimized_window_fails_clearly(
    module_sandbox: Sandbox, screen: X11Session
) -> None:
    await open_colour_window(module_sandbox, "Minimized", (700, 100, 200, 100), RED, RED)
    window = await wait_for_window(screen, "Minimized")
    await screen.connection.call(_iconify, screen, window.window_id)
    deadline = time.monotonic() + 5
    while not (await wait_for_window(screen, "Minimized")).is_minimized:
        assert time.monotonic() < deadline, "openbox did not minimize the window"
        await asyncio.sleep(0.05)
    with pytest.raises(CaptureFailed, match="not viewable"):
        await screen.capture(window.window_id, max_dimension=900)


def _iconify(screen: X11Session, window_id: int) -> None:
    from Xlib import X
    from Xlib.protocol import event

    display = screen.connection.display
    message = event.ClientMessage(
        window=display.create_resource_object("window", window_id),
        client_type=screen.connection.atom("WM_CHANGE_STATE"),
        data=(32, [3, 0, 0, 0, 0]),
    )
    mask = X.SubstructureRedirectMask | X.SubstructureNotifyMask
    display.screen().root.send_event(message, event_mask=mask)
    display.flush()


async def _settled_fresh(display: str, ready: Callable[[list[XWindow]], bool]) -> list[XWindow]:
    """A fresh session's full read once it shows ``ready`` and two reads in a row agree."""
    previous: list[XWindow] | None = None
    for _ in range(100):
        fresh = X11Session(display)
        try:
            now = await fresh.windows()
        finally:
            await fresh.close()
        if ready(now) and now == previous:
            return now
        previous = now
        await asyncio.sleep(0.05)
    raise AssertionError(f"the window listing did not settle: {previous}")


def _control(display_name: str, title: str, change: str) -> None:
    """What another client does to a window: retitle or move it."""
    d = display.Display(display_name)
    try:
        root = d.screen().root
        stacking = root.get_full_property(d.intern_atom("_NET_CLIENT_LIST"), Xatom.WINDOW)
        for window_id in stacking.value:
            window = d.create_resource_object("window", window_id)
            name = window.get_full_property(d.intern_atom("_NET_WM_NAME"), X.AnyPropertyType)
            if name is not None and bytes(name.value).decode() == title:
                if change == "retitle":
                    utf8 = d.intern_atom("UTF8_STRING")
                    retitled = f"{title} (renamed)".encode()
                    window.change_property(d.intern_atom("_NET_WM_NAME"), utf8, 8, retitled)
                else:
                    window.configure(x=250, y=180)
        d.sync()
    finally:
        d.close()


async def test_the_watched_listing_equals_a_fresh_read_after_every_change(
    module_sandbox: Sandbox, screen: X11Session
) -> None:
    display_name = module_sandbox.display

    async def same_as_fresh(ready: Callable[[list[XWindow]], bool]) -> list[XWindow]:
        fresh = await _settled_fresh(display_name, ready)
        assert await screen.windows() == fresh
        return fresh

    def titled(title: str) -> Callable[[list[XWindow]], bool]:
        return lambda ws: any(w.title == title for w in ws)

    await same_as_fresh(lambda ws: True)
    await open_colour_window(module_sandbox, "Watched A", (100, 100, 200, 150), GREEN, GREEN)
    first = await same_as_fresh(titled("Watched A"))
    (a,) = [w for w in first if w.title == "Watched A"]

    await asyncio.to_thread(_control, display_name, "Watched A", "retitle")
    await same_as_fresh(titled("Watched A (renamed)"))
    await asyncio.to_thread(_control, display_name, "Watched A (renamed)", "move")
    await same_as_fresh(
        lambda ws: any(w.window_id == a.window_id and w.frame != a.frame for w in ws)
    )

    b = await open_colour_window(module_sandbox, "Watched B", (300, 300, 200, 150), BLUE, BLUE)
    on_top = await same_as_fresh(titled("Watched B"))
    assert on_top[0].title == "Watched B"
    assert await screen.activate(a.window_id)
    activated = await same_as_fresh(lambda ws: ws[0].window_id == a.window_id)
    assert activated[0].is_active
    b.kill()
    await same_as_fresh(lambda ws: not titled("Watched B")(ws))


async def test_a_watched_listing_left_alone_keeps_reading_its_events(
    module_sandbox: Sandbox, screen: X11Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Events wait in the X server until read: a watch in use reads them every KEEP_UP_S
    even when nobody lists, so a busy title never piles them up."""
    monkeypatch.setattr(window_watch, "KEEP_UP_S", 0.05)
    watched = WatchedWindows(module_sandbox.display)
    try:
        await open_colour_window(module_sandbox, "Busy title", (50, 50, 120, 90), RED, BLUE)
        await wait_for_window(screen, "Busy title")
        assert any(w.title == "Busy title" for w in await watched.listing())
        name = "Busy title"
        for _ in range(20):
            await asyncio.to_thread(_control, module_sandbox.display, name, "retitle")
            name += " (renamed)"
        await asyncio.sleep(0.5)
        conn = watched._connection
        assert await conn.call(lambda: conn.display.pending_events()) == 0, "all read already"
        assert any(w.title == name for w in await watched.listing())
    finally:
        await watched.close()
