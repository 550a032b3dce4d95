"""Attaching to a Chromium someone else started: ``ACTUI_CDP_PORT`` makes its pages roots.

The test starts Chromium itself, with ``--remote-debugging-port=0`` and a
profile of its own, the way a person starts their browser for an agent; a
local HTTP collector is the oracle for the form actui fills. After actui
shuts down, the browser must still run with its profile intact.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
import pytest_asyncio
from computer_helpers import executed, matches_of, process_alive, roots_of, state_id_of, windows_of

from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

FORM = b"""<!doctype html><title>Sign up</title>
<form method="post" action="/submit">
<label>Name <input name="name"></label>
<label>City <input name="city"></label>
<button type="submit">Send</button></form>"""
DONE = b"<!doctype html><title>Thanks</title><p>Received</p>"


@dataclass
class Collector:
    port: int
    received: list[dict[str, list[str]]] = field(default_factory=list)


@pytest.fixture(scope="module")
def collector() -> Iterator[Collector]:
    found = Collector(0)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._reply(FORM)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            found.received.append(parse_qs(self.rfile.read(length).decode()))
            self._reply(DONE)

        def _reply(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    server.shutdown()


@dataclass
class UsersBrowser:
    process: asyncio.subprocess.Process
    profile: Path
    port: int


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def users_browser(
    tmp_path_factory: pytest.TempPathFactory, collector: Collector
) -> AsyncIterator[UsersBrowser]:
    profile = tmp_path_factory.mktemp("users-profile")
    chromium = shutil.which("chromium")
    assert chromium, "make test installs chromium"
    process = await asyncio.create_subprocess_exec(
        chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--remote-debugging-port=0", f"--user-data-dir={profile}",
        f"http://127.0.0.1:{collector.port}/",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    active = profile / "DevToolsActivePort"
    for _ in range(300):
        if active.exists() and active.read_text().strip():
            break
        await asyncio.sleep(0.1)
    port = int(active.read_text().split()[0])
    yield UsersBrowser(process, profile, port)
    if process.returncode is None:
        process.kill()
        await process.wait()


async def test_an_attached_browser_is_driven_and_left_running(
    users_browser: UsersBrowser, collector: Collector
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")}
    computer = ToolBox(env={**env, "ACTUI_CDP_PORT": str(users_browser.port)})
    try:
        for _ in range(150):  # the page may still be loading its title
            roots = await computer.call("find_roots", {"text": "Sign up"})
            if not roots.is_error and windows_of(roots):
                break
            await asyncio.sleep(0.2)
        assert windows_of(roots), roots.text
        page = windows_of(roots)[0]
        assert page.kind == "browser_page"
        state = await computer.call("observe_ui", {"root": page.ref})
        assert not state.is_error, state.text
        sid = state_id_of(state)

        async def ref(text: str, role: str) -> str:
            found = await computer.call("search_ui", {"stateId": sid, "text": text, "role": role})
            assert matches_of(found), found.text
            return str(matches_of(found)[0].ref)

        name, city = await ref("Name", "textbox"), await ref("City", "textbox")
        send = await ref("Send", "button")
        act = await computer.call(
            "act_ui",
            {
                "stateId": sid,
                "actions": [
                    {"action": "setText", "ref": name, "text": "Ada Lovelace"},
                    {"action": "setText", "ref": city, "text": "London"},
                    {"action": "press", "ref": send},
                ],
                "expect": {"text": "Received"},
            },
        )
        assert executed(act).outcome == "worked", act.text
        assert collector.received == [{"name": ["Ada Lovelace"], "city": ["London"]}]
    finally:
        await computer.close()
    # actui is gone; the person's browser and profile are as they were
    assert process_alive(users_browser.process.pid)
    assert (users_browser.profile / "DevToolsActivePort").exists()
    assert (users_browser.profile / "Default").is_dir()


async def test_a_browser_that_is_not_there_is_a_notice_not_a_failure() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")}
    computer = ToolBox(env={**env, "ACTUI_CDP_PORT": "9"})  # discard: nothing listens
    try:
        roots = await computer.call("find_roots", {})
    finally:
        await computer.close()
    assert not roots.is_error
    assert any("9" in n and "ACTUI_CDP_PORT" in n for n in roots_of(roots).notices), roots.text
