"""``actui mcp --http --desktop-per-session --wayland[=gnome]`` through the official MCP client.

The server is started as a user would start it; its session's desktop is a
headless sway (or gnome-shell) whose zenity is a native Wayland client, paired
with the compositor's window (a window id; on sway a frame at once, on
gnome-shell once actui found the window on the screen). The task types
Unicode (sway: as keystrokes through the virtual keyboard; gnome-shell: pasted
through mutter's RemoteDesktop clipboard), arrival read back, and presses OK;
zenity's exit and the empty run-dir folder after the session ends are the evidence.
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


MECHANISM = {"--wayland": "wayland-virtual-input", "--wayland=gnome": "gnome-remote-desktop"}


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=sorted(MECHANISM))
async def wayland_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[str, Server]]:
    tmp = tmp_path_factory.mktemp("wayland-http-tmp")
    flag = str(request.param)
    async with serving(tmp, flag, "--max-desktops", "1", "--app", APP) as started:
        yield flag, started


async def test_a_session_on_a_wayland_desktop_types_unicode_and_presses_ok(
    wayland_server: tuple[str, Server],
) -> None:
    flag, server = wayland_server
    async with _session(server) as session:
        async with asyncio.timeout(60):
            while True:  # listed once the compositor shows its window (paired: an id)
                roots = await call(session, "find_roots", {"text": "Probe"})
                windows = [w for w in roots["windows"] if w.get("windowId")]
                if windows:
                    break
                await asyncio.sleep(0.1)
        window = windows[0]
        if flag == "--wayland":  # gnome-shell: a frame only once actui found the window
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
        assert typed["mechanism"] == MECHANISM[flag], typed
        await _eventually(
            lambda: not process_alive(int(window["pid"])), "zenity exits when OK is pressed"
        )
    await _eventually(lambda: _no_desktops(server), "the session's desktop is gone")
    assert server.leftovers() == []
