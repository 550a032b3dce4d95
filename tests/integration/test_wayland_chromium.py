"""Chromium on a private headless sway desktop, launched by ``launch_browser``.

One sandbox and one headed Chromium serve the module. The browser draws as a
native Wayland client (``--ozone-platform=wayland``; the sandbox's sway has no
XWayland), answers over CDP and is read over AT-SPI. It draws its own frame
with a shadow sway never reports, so a coordinate click lands only if actui
measured that inset: the page's button is 24×14 CSS pixels, smaller than the
(16, 10) px inset. Each effect is read back from the page itself over CDP
(where a click landed, what a field holds), and each test ends with the
browser alive and answering.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import wayland_helpers
from computer_helpers import assert_alive

from actui.api import Computer, Observation, Root, click_at
from actui.backends.base import RootCapabilities
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

TAPS_URL = (Path(__file__).resolve().parents[1] / "apps" / "web" / "taps.html").as_uri()
TITLE = "actui taps"
BMP = "Ωmega – 42 ✓ é ß 中"
"""Chromium reads a keysym outside the BMP truncated (😀 arrives as U+F600): such a
character is refused before any key is sent, and Unicode typing is checked on the BMP."""


desktop, computer = wayland_helpers.module_desktop(True, ACTUI_BROWSER_HEADED="1")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def page(computer: Computer) -> Observation:
    return await computer.launch_browser(TAPS_URL)


async def browser_window(computer: Computer) -> Root:
    """Chromium's window as the desktop lists it, once sway shows it (paired with sway's
    window) and its tree has the page's field."""
    async with asyncio.timeout(30):
        while True:
            for root in await computer.find_roots(text=TITLE, kind="window"):
                if root.root.window_id and root.root.app_name.lower() == "chromium":
                    look = await computer.observe(root, mode="semantic")
                    if look.search("Note", role="textbox"):
                        return root
            await asyncio.sleep(0.1)


def sway_views(desktop: Sandbox) -> list[dict[str, Any]]:
    """sway's own windows (its IPC through swaymsg), independent of actui."""
    out = subprocess.run(
        ["swaymsg", "-s", desktop.env["SWAYSOCK"], "-r", "-t", "get_tree"],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout
    found: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        if node.get("pid"):
            found.append(node)
        for child in node.get("nodes", []) + node.get("floating_nodes", []):
            walk(child)

    walk(json.loads(out))
    return found


def command_line(pid: int) -> str:
    """The process's command line (Chromium rewrites its own into one string)."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")


async def page_value(computer: Computer, page: Observation, expression: str) -> Any:
    """A JavaScript value of the page, read over CDP from a fresh look at it."""
    fresh = await computer.observe(page.root, mode="semantic")
    evaluated = await fresh.evaluate(expression)
    assert evaluated.exception is None, evaluated.exception
    return evaluated.value


async def survived(computer: Computer, page: Observation, pid: int) -> None:
    """The browser still runs, its page answers over CDP and its window over AT-SPI."""
    assert_alive(pid)
    assert await page_value(computer, page, "document.title") == TITLE
    await browser_window(computer)
    assert_alive(pid)


async def test_launch_browser_on_sway_is_a_native_wayland_window_read_over_cdp_and_atspi(
    computer: Computer, desktop: Sandbox, page: Observation
) -> None:
    assert page.root.kind == "browser_page" and page.root.title == TITLE
    window = await browser_window(computer)
    (view,) = [v for v in sway_views(desktop) if v.get("pid") == window.pid]
    assert view["app_id"] == "chromium", view  # a Wayland client: sway runs no XWayland
    assert "--ozone-platform=wayland" in command_line(window.pid)
    # the shadow inset was measured from the tree, so its coordinates are exact
    assert window.capabilities == RootCapabilities("full", "full", "exact")
    frame = window.root.frame
    assert frame is not None
    rect = view["rect"]
    assert (frame.x, frame.y, frame.w, frame.h) == (
        rect["x"],
        rect["y"],
        rect["width"],
        rect["height"],
    )
    await survived(computer, page, window.pid)


async def test_a_coordinate_click_lands_on_a_small_button_inside_the_page(
    computer: Computer, page: Observation
) -> None:
    window = await browser_window(computer)
    state = await computer.observe(window, mode="fused")
    assert state.images, "a look at Chromium's window comes with a screenshot"
    assert state.root.capabilities.geometry == "exact", state.text
    tap = state.search("Tap", role="button").first
    assert tap.node.rect is not None
    x, y = tap.node.rect.center
    done = await state.act(click_at(x, y))
    assert done.steps[0].delivery == "hid", done.text
    taps = await page_value(computer, page, "window.taps")
    assert len(taps) == 1, f"the click at ({x}, {y}) in the image missed the button: {taps}"
    ((offset_x, offset_y),) = taps
    assert abs(offset_x - 12) <= 3 and abs(offset_y - 7) <= 3, taps  # its centre, 24×14
    await survived(computer, page, window.pid)


async def test_unicode_typed_into_a_web_field_arrives_exactly_and_an_emoji_is_refused(
    computer: Computer, page: Observation
) -> None:
    window = await browser_window(computer)
    state = await computer.observe(window, mode="semantic")
    note = state.search("Note", role="textbox").first
    refused = await state.act(note.type_text("ab😀"))
    error = refused.steps[0].error
    assert error is not None and error.code == "unsupported_action", refused.text
    assert "U+F600" in error.message and "browser_page" in error.message, error.message
    assert await page_value(computer, page, "document.getElementById('note').value") == ""
    assert refused.state is not None
    done = await refused.state.act(note.type_text(BMP))
    (step,) = done.steps
    assert step.outcome == "worked" and step.delivery == "hid", done.text
    typed = await page_value(computer, page, "document.getElementById('note').value")
    assert typed == BMP
    # the page's own root inserts the emoji whole (CDP), as the refusal said
    web = await computer.observe(page.root, mode="semantic")
    field = web.search("Note", role="textbox").first
    inserted = await web.act(field.type_text(" 😀"))
    assert inserted.steps[0].outcome == "worked", inserted.text
    assert await page_value(computer, page, "document.getElementById('note').value") == BMP + " 😀"
    await survived(computer, page, window.pid)
