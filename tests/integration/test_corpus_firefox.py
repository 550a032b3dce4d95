"""Firefox ESR (Gecko over AT-SPI) on a local form page, driven through ``ToolBox``.

The oracle is a local HTTP collector: it serves the form and records what the
browser POSTs. Firefox runs once per module with a throwaway profile, and its
pid must be alive after every tool call.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
import pytest_asyncio
from computer_helpers import executed, matches_of, paired_root, state_id_of, text_of, windows_of

from actui.backends.linux.sandbox import Sandbox
from actui.results.tool_result import ToolResult
from actui.results.typed import Execution
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")
PAGE = Path(__file__).parents[1] / "apps" / "web" / "collector_form.html"
THANKS = b"<!doctype html><title>Thanks</title><p>Submitted</p>"
# A throwaway profile: no first-run pages, telemetry, updates or session restore.
PREFS: Mapping[str, object] = {
    "browser.aboutwelcome.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.sessionstore.resume_from_crash": False,
    "browser.tabs.warnOnClose": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "app.update.enabled": False,
    "app.normandy.enabled": False,
    "extensions.update.enabled": False,
    "startup.homepage_welcome_url": "",
}


@dataclass
class Collector:
    """The form's server: ``posts`` holds each submission's fields."""

    posts: list[dict[str, list[str]]] = field(default_factory=list)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._answer(PAGE.read_bytes())

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                collector.posts.append(parse_qs(body.decode(), keep_blank_values=True))
                self._answer(THANKS)

            def _answer(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


@dataclass
class Browser:
    computer: ToolBox
    process: asyncio.subprocess.Process
    collector: Collector
    log: Path

    async def call(self, tool: str, args: Mapping[str, Any]) -> ToolResult:
        """One tool call; Firefox must have survived it."""
        result = await self.computer.call(tool, args)
        assert self.process.returncode is None, f"Firefox died on {tool}: {self._tail()}"
        os.kill(self.process.pid, 0)
        return result

    async def ok(self, tool: str, args: Mapping[str, Any]) -> ToolResult:
        """A call that must not fail."""
        result = await self.call(tool, args)
        assert not result.is_error, result.text
        return result

    async def act(self, args: Mapping[str, Any]) -> tuple[Execution, str]:
        """An act_ui call that must not fail: its typed execution, and the text the agent read."""
        result = await self.ok("act_ui", args)
        return executed(result), result.text

    def _tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]


@pytest.fixture(scope="module")
def collector() -> Iterator[tuple[Collector, str]]:
    found = Collector()
    server = ThreadingHTTPServer(("127.0.0.1", 0), found.handler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield found, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser(
    module_sandbox: Sandbox,
    collector: tuple[Collector, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[Browser]:
    found, url = collector
    profile = tmp_path_factory.mktemp("firefox-profile")
    prefs = "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in PREFS.items())
    (profile / "user.js").write_text(prefs)
    log = profile / "firefox.log"
    with log.open("wb") as out:
        process = await module_sandbox.launch(
            [
                "env",
                f"HOME={profile}",
                "MOZ_CRASHREPORTER_DISABLE=1",
                "firefox-esr",
                "--no-remote",
                "--new-instance",
                "--profile",
                str(profile),
                url,
            ],
            stdout=out.fileno(),
            stderr=out.fileno(),
        )
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        # a cold Firefox on two busy cores takes several seconds to show its page
        await paired_root(computer, pid=process.pid, title="Contact form", timeout_s=90.0)
        yield Browser(computer, process, found, log)
    finally:
        await computer.close()


async def _observe(browser: Browser, mode: str = "semantic") -> ToolResult:
    root = windows_of(await browser.ok("find_roots", {"pid": browser.process.pid}))[0].ref
    observed = await browser.call("observe_ui", {"root": root, "mode": mode})
    assert not observed.is_error, observed.text
    return observed


async def _only(browser: Browser, state: str, text: str, role: str) -> str:
    found = await browser.ok("search_ui", {"stateId": state, "text": text, "role": role})
    refs = [m.ref for m in matches_of(found) if m.label == text]
    assert len(refs) == 1, found.text
    return str(refs[0])


async def test_page_text_is_in_the_outline_and_found_by_search(browser: Browser) -> None:
    # the title comes before the page's text is in its tree on a loaded machine: wait for it
    # as a person would, then look
    first = await _observe(browser)
    shown = await browser.call(
        "wait_for",
        {"stateId": state_id_of(first), "text": "Not sent yet", "timeoutMs": 30000},
    )
    assert not shown.is_error, shown.text
    observed = await _observe(browser, "fused")  # Firefox once aborted during a fused observe
    outline = observed.text
    assert 'paragraph "Not sent yet"' in outline, outline
    # Firefox's closed popups (23 empty menus on this page) are not listed
    assert not [line for line in outline.splitlines() if line.strip().endswith(" menu")], outline
    state = state_id_of(observed)
    found = await browser.ok("search_ui", {"stateId": state, "text": "sent yet"})
    assert [m.role for m in matches_of(found)][:1] == ["paragraph"], found.text


async def test_fields_filled_and_sent_reach_the_collector_and_the_page_says_so(
    browser: Browser,
) -> None:
    state = state_id_of(await _observe(browser))
    name = await _only(browser, state, "Name", "textbox")
    city = await _only(browser, state, "City", "textbox")
    message = await _only(browser, state, "Message", "textbox")
    send = await _only(browser, state, "Send", "button")
    done, acted = await browser.act(
        {
            "stateId": state,
            "actions": [
                {"action": "setText", "ref": name, "text": "Ada Lovelace"},
                {"action": "typeText", "ref": city, "text": "Zürich"},
                {"action": "setText", "ref": message, "text": "Hello ✓ from actui"},
            ],
            "expect": {"ref": message, "value": "Hello ✓ from actui"},
        },
    )
    assert done.verification and done.verification.status == "verified", acted
    assert done.observation is not None, acted
    state = done.observation.state_id
    # each step ends once its own field shows the text, so no keys land in the next field
    assert [s.outcome for s in done.steps] == ["worked"] * 3, acted
    for ref, text in ((name, "Ada Lovelace"), (city, "Zürich")):
        typed = await browser.ok("read_text", {"stateId": state, "ref": ref})
        assert text_of(typed) == text

    submitted, sent = await browser.act(
        {
            "stateId": state,
            "actions": [{"action": "press", "ref": send}],
            "expect": {"text": "Submitted", "role": "paragraph", "timeoutMs": 15000},
        },
    )
    assert submitted.verification and submitted.verification.status == "verified", sent
    assert submitted.outcome == "worked", sent
    assert browser.collector.posts == [
        {"name": ["Ada Lovelace"], "city": ["Zürich"], "message": ["Hello ✓ from actui"]}
    ]
    assert submitted.observation is not None, sent
    found = await browser.ok(
        "search_ui", {"stateId": submitted.observation.state_id, "text": "Submitted"}
    )
    assert [m.role for m in matches_of(found)][:1] == ["paragraph"], found.text
