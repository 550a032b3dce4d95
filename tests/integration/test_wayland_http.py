"""``actui mcp --http --desktop-per-session --wayland`` through the official MCP client.

The server is started as a user would start it; its session's desktop is a
headless sway whose zenity is a native Wayland client, paired with sway's
window (a window id and a frame). The task types Unicode as keystrokes through
the Wayland virtual keyboard (arrival read back) and presses OK; zenity's exit
and the empty run-dir folder after the session ends are the evidence.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from computer_helpers import process_alive
from mcp_client import call
from test_mcp_http import Server, _eventually, _no_desktops, _session, serving

pytestmark = pytest.mark.asyncio(loop_scope="module")

APP = "zenity --entry --title=Probe --text=Type:"
PHRASE = "Ωmega – 42 ✓ é ß 中"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def wayland_server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Server]:
    tmp = tmp_path_factory.mktemp("wayland-http-tmp")
    async with serving(tmp, "--wayland", "--max-desktops", "1", "--app", APP) as started:
        yield started


async def test_a_session_on_a_wayland_desktop_types_unicode_by_keys_and_presses_ok(
    wayland_server: Server,
) -> None:
    async with _session(wayland_server) as session:
        async with asyncio.timeout(60):
            while True:  # listed once sway shows its window (paired: an id and a frame)
                roots = await call(session, "find_roots", {"text": "Probe"})
                windows = [w for w in roots["windows"] if w.get("windowId")]
                if windows:
                    break
                await asyncio.sleep(0.1)
        window = windows[0]
        assert window["frame"]["w"] > 0, window
        state = await call(session, "observe_ui", {"root": window["windowRef"]})
        found = await call(session, "search_ui", {"stateId": state["stateId"], "text": "OK"})
        ok = found["matches"][0]["ref"]
        fields = await call(session, "search_ui", {"stateId": state["stateId"], "role": "textbox"})
        entry = fields["matches"][0]["ref"]
        act = await call(
            session,
            "act_ui",
            {
                "stateId": state["stateId"],
                "actions": [
                    {"action": "focus", "ref": entry},
                    {"action": "typeText", "text": PHRASE},
                    {"action": "press", "ref": ok},
                ],
            },
        )
        typed = act["execution"]["steps"][1]
        assert typed["delivery"] == "hid" and typed["outcome"] == "worked", typed
        assert typed["mechanism"] == "wayland-virtual-input", typed
        await _eventually(
            lambda: not process_alive(int(window["pid"])), "zenity exits when OK is pressed"
        )
    await _eventually(lambda: _no_desktops(wayland_server), "the session's desktop is gone")
    assert wayland_server.leftovers() == []
