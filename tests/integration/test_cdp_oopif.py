"""Cross-site iframes (out-of-process frames) on real headless Chromium: seen and operated.

Two loopback-only HTTP servers serve the test pages; the outer page comes from
``localhost`` and its frame from ``127.0.0.1``, two sites, so Chromium's site
isolation puts the frame in another renderer and another CDP target.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import pytest_asyncio
from test_cdp_page import act, find, look, walk

from actui.backends.base import RawNode, RootInfo, Snapshot
from actui.backends.cdp import CdpBackend

pytestmark = [pytest.mark.asyncio(loop_scope="module")]

WEB = Path(__file__).resolve().parents[1] / "apps" / "web"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[int, int]]:
    started = []
    for _ in range(2):
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(WEB)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
    yield started[0].server_address[1], started[1].server_address[1]
    for server in started:
        server.shutdown()
        server.server_close()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: CdpBackend, servers: tuple[int, int]) -> RootInfo:
    outer, inner = servers
    frame = f"http://127.0.0.1:{inner}/frame.html"
    roots = await browser.list_roots()
    return await browser.navigate(roots[0], f"http://localhost:{outer}/oopif.html?frame={frame}")


async def frame_snapshot(browser: CdpBackend, root: RootInfo) -> tuple[Snapshot, RawNode]:
    """A snapshot once the cross-site frame's content is in it (it attaches asynchronously)."""
    for _ in range(50):
        snap = await look(browser, root)
        frame = find(snap, "Iframe", "Cross frame")
        if any(n.name == "Inner button" for n in walk(frame)):
            return snap, frame
        await asyncio.sleep(0.1)
    raise AssertionError("the cross-site frame's content never appeared")


async def test_a_cross_site_frame_is_grafted_under_its_iframe_with_page_rects(
    browser: CdpBackend, page: RootInfo
) -> None:
    session = await browser._session(page)
    _, frame = await frame_snapshot(browser, page)
    assert session.frames, "the frame was not out of process; the test proves nothing"
    button = find(Snapshot(page, frame, 0.0, 0), "button", "Inner button")
    target_id = next(iter(session.frames))
    assert button.native_id.startswith(f"cdp:{target_id}:")
    assert frame.rect is not None and button.rect is not None
    # The frame's border (5 px) and position (50, 80) put its content at (55, 85).
    assert frame.rect.x < button.rect.x < frame.rect.x + frame.rect.w
    assert frame.rect.y + 5 < button.rect.y < frame.rect.y + frame.rect.h
    assert "showing" in button.states


async def test_press_and_set_text_inside_a_cross_site_frame(
    browser: CdpBackend, page: RootInfo
) -> None:
    snap, _ = await frame_snapshot(browser, page)
    pressed = await act(browser, page, "press", find(snap, "button", "Inner button"))
    assert pressed.outcome == "worked" and pressed.evidence["via"] == "mouse"
    field = find(snap, "textbox", "Inner field")
    typed = await act(browser, page, "setText", field, text="across sites")
    assert typed.outcome == "worked"
    after = await look(browser, page)
    assert find(after, "button", "Inner pressed")
    assert find(after, "textbox", "Inner field").value == "across sites"
