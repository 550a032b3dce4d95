"""XTEST delivery on a private desktop, proven by what real apps show afterwards."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
from Xlib import display

from actui.backends.atspi.backend import AtspiBackend
from actui.backends.base import ActionRequest, RawNode, RootInfo
from actui.backends.linux.sandbox import Sandbox
from actui.backends.x11 import ewmh
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.input import X11Input
from actui.backends.x11.session import X11Session
from actui.errors import CoordinateBlocked, ForegroundRequired
from actui.refusals import DeliveryPolicy

pytestmark = pytest.mark.asyncio(loop_scope="module")

UNICODE_TEXT = "Ωmega – 42 ✓ é ß 中"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def atspi(module_sandbox: Sandbox) -> AsyncIterator[AtspiBackend]:
    backend = AtspiBackend(module_sandbox.env)
    yield backend
    await backend.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def factory(
    module_sandbox: Sandbox, screen: X11Session, atspi: AtspiBackend
) -> tuple[RootInfo, XWindow]:
    process = await module_sandbox.launch(["gtk3-widget-factory"])
    await module_sandbox.wait_for_app(process.pid)
    window = await window_of(screen, process.pid)
    (root,) = await atspi.list_roots(process.pid)
    return root, window


async def window_of(screen: X11Session, pid: int, within: float = 10.0) -> XWindow:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for window in await screen.windows():
            if window.pid == pid and await screen.connection.call(
                ewmh.is_viewable, screen.connection, window.window_id
            ):
                return window
        await asyncio.sleep(0.05)
    raise AssertionError(f"no window of pid {pid} within {within} s")


def request(
    root: RootInfo, kind: str, policy: DeliveryPolicy = "foreground", **kw: object
) -> ActionRequest:
    return ActionRequest(kind=kind, root=root, policy=policy, **kw)  # type: ignore[arg-type]


def nodes(tree: RawNode) -> list[RawNode]:
    found = [tree]
    for child in tree.children:
        found.extend(nodes(child))
    return found


async def find(atspi: AtspiBackend, root: RootInfo, match: Callable[[RawNode], bool]) -> RawNode:
    snapshot = await atspi.snapshot(root, max_nodes=2000, max_depth=40)
    hits = [n for n in nodes(snapshot.tree) if match(n)]
    assert hits, "no matching node in the app"
    return hits[0]


async def eventually(
    atspi: AtspiBackend, root: RootInfo, node_id: str, holds: Callable[[RawNode], bool]
) -> RawNode:
    deadline = time.monotonic() + 5.0
    while True:
        node = await find(atspi, root, lambda n: n.native_id == node_id)
        if holds(node) or time.monotonic() > deadline:
            return node
        await asyncio.sleep(0.05)


async def zenity_entry(
    sandbox: Sandbox, screen: X11Session, title: str
) -> tuple[asyncio.subprocess.Process, RootInfo, XWindow]:
    process = await sandbox.launch(
        ["zenity", "--entry", "--title", title, "--text", "Type"], stdout=asyncio.subprocess.PIPE
    )
    window = await window_of(screen, process.pid)
    root = RootInfo(
        native_id=title,
        pid=process.pid,
        app_name="zenity",
        title=title,
        kind="dialog",
        raw_role="dialog",
    )
    return process, root, window


async def entered(process: asyncio.subprocess.Process) -> str:
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 10.0)
    await asyncio.wait_for(process.wait(), 10.0)
    return line.decode()


async def test_any_unicode_text_typed_into_zenity_comes_back_exactly(
    module_sandbox: Sandbox, screen: X11Session
) -> None:
    process, root, window = await zenity_entry(module_sandbox, screen, "Unicode")
    typed = await X11Input(screen).deliver(
        request(root, "typeText", text=UNICODE_TEXT), window.window_id
    )
    await X11Input(screen).deliver(
        request(root, "keypress", "default", keys=("enter",)), window.window_id
    )
    assert await entered(process) == UNICODE_TEXT + "\n"
    assert (typed.outcome, typed.delivery, typed.mechanism) == ("unknown", "hid", "xtest")
    assert UNICODE_TEXT not in repr(typed.evidence)  # never echo what may be a password
    assert typed.evidence["temporaryBindings"] == 6


async def test_a_select_all_chord_makes_typing_replace_the_text(
    module_sandbox: Sandbox, screen: X11Session
) -> None:
    process, root, window = await zenity_entry(module_sandbox, screen, "Chord")
    x11 = X11Input(screen)
    await x11.deliver(request(root, "typeText", text="old text"), window.window_id)
    await x11.deliver(request(root, "keypress", keys=("ctrl", "a")), window.window_id)
    await x11.deliver(request(root, "typeText", text="New!"), window.window_id)
    await x11.deliver(request(root, "keypress", keys=("Return",)), window.window_id)
    assert await entered(process) == "New!\n"


async def test_clicking_a_check_button_checks_it(
    screen: X11Session, atspi: AtspiBackend, factory: tuple[RootInfo, XWindow]
) -> None:
    root, window = factory
    box = await find(
        atspi,
        root,
        lambda n: (
            n.raw_role == "check box"
            and "enabled" in n.states
            and "checked" not in n.states
            and n.rect is not None
        ),
    )
    assert box.rect is not None
    result = await X11Input(screen).deliver(
        request(root, "click", point=box.rect.center), window.window_id
    )
    assert result.outcome == "unknown"
    after = await eventually(atspi, root, box.native_id, lambda n: "checked" in n.states)
    assert "checked" in after.states


async def test_dragging_a_slider_knob_changes_its_value(
    screen: X11Session, atspi: AtspiBackend, factory: tuple[RootInfo, XWindow]
) -> None:
    root, window = factory
    slider = await find(
        atspi,
        root,
        lambda n: (
            n.raw_role == "slider"
            and "horizontal" in n.states
            and "enabled" in n.states
            and n.value == "50"
            and n.rect is not None
        ),
    )
    rect = slider.rect
    assert rect is not None
    knob = (rect.x + rect.w // 2, rect.y + rect.h // 2)
    path = (knob, (knob[0] + 40, knob[1]), (rect.x + rect.w * 9 // 10, knob[1]))
    await X11Input(screen).deliver(request(root, "drag", path=path), window.window_id)
    after = await eventually(atspi, root, slider.native_id, lambda n: n.value != "50")
    assert after.value is not None and float(after.value) > 70


async def test_scrolling_the_text_view_moves_its_scroll_bar(
    screen: X11Session, atspi: AtspiBackend, factory: tuple[RootInfo, XWindow]
) -> None:
    root, window = factory
    bars = [
        n
        for n in nodes((await atspi.snapshot(root, max_nodes=2000, max_depth=40)).tree)
        if n.raw_role == "scroll bar" and "vertical" in n.states and n.rect is not None
    ]
    bar = max(bars, key=lambda n: n.rect.y if n.rect else 0)  # the text view's, lower right
    assert bar.rect is not None and bar.value == "0"
    point = (min(bar.rect.x - 80, 1270), bar.rect.y + bar.rect.h // 2)
    result = await X11Input(screen).deliver(
        request(root, "scroll", point=point, scroll=(0, 5)), window.window_id
    )
    assert result.evidence["wheelClicks"] == [0, 5]
    after = await eventually(atspi, root, bar.native_id, lambda n: n.value not in ("0", None))
    assert after.value is not None and float(after.value) > 0


@pytest.mark.parametrize(
    ("policy", "error"),
    [("ax_only", CoordinateBlocked), ("background", ForegroundRequired)],
)
async def test_policies_that_forbid_physical_input_refuse_it(
    screen: X11Session,
    factory: tuple[RootInfo, XWindow],
    policy: DeliveryPolicy,
    error: type[Exception],
) -> None:
    root, window = factory
    with pytest.raises(error):
        await X11Input(screen).deliver(
            request(root, "click", policy, point=window.frame.center), window.window_id
        )


async def test_the_default_policy_refuses_an_inactive_window_without_activating_it(
    module_sandbox: Sandbox, screen: X11Session, factory: tuple[RootInfo, XWindow]
) -> None:
    root, window = factory
    _, _, other = await zenity_entry(module_sandbox, screen, "Sentinel")
    assert await screen.activate(other.window_id)
    with pytest.raises(ForegroundRequired, match="not the active window"):
        await X11Input(screen).deliver(
            request(root, "click", "default", point=window.frame.center), window.window_id
        )
    assert await screen.active_window() == other.window_id


async def test_a_point_covered_by_another_window_is_blocked(
    module_sandbox: Sandbox, screen: X11Session, factory: tuple[RootInfo, XWindow]
) -> None:
    root, window = factory
    x, y = window.frame.center
    cover = await asyncio.to_thread(
        _override_redirect_window, module_sandbox.display, x - 50, y - 50
    )
    try:
        with pytest.raises(CoordinateBlocked, match="occluded"):
            await X11Input(screen).deliver(request(root, "click", point=(x, y)), window.window_id)
    finally:
        await asyncio.to_thread(cover.close)


async def test_a_point_outside_the_window_is_blocked(
    screen: X11Session, factory: tuple[RootInfo, XWindow]
) -> None:
    root, window = factory
    frame = window.frame
    with pytest.raises(CoordinateBlocked, match="outside"):
        await X11Input(screen).deliver(
            request(root, "click", point=(frame.x + 5, frame.y + frame.h + 5)), window.window_id
        )


def _override_redirect_window(display_name: str, x: int, y: int) -> display.Display:
    """A 100×100 unmanaged window (like another app's popup) kept until its connection closes."""
    connection = display.Display(display_name)
    screen = connection.screen()
    cover = screen.root.create_window(
        x, y, 100, 100, 0, screen.root_depth, background_pixel=0, override_redirect=True
    )
    cover.map()
    connection.sync()
    return connection
