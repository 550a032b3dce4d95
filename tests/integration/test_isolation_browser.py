"""A dead browser is its own failure: its pages go with a notice, the desktop is still listed.

One sandbox holds a zenity dialog (GTK 3, AT-SPI) and a headless Chromium the
tools launched (CDP). Chromium's main process is SIGKILLed; the listing that
follows still shows zenity and says, once, that the browser is gone.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from computer_helpers import assert_alive, error_of, paired_root, roots_of, state_id_of, windows_of

from actui.backends.linux.sandbox import Sandbox
from actui.results.tool_result import ToolResult
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[ToolBox]:
    computer = ToolBox(env=module_sandbox.env)
    yield computer
    await computer.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def app(module_sandbox: Sandbox, computer: ToolBox) -> asyncio.subprocess.Process:
    app = await module_sandbox.launch(["zenity", "--entry", "--title=Beside", "--text=Name"])
    await module_sandbox.wait_for_app(app.pid)
    await paired_root(computer, pid=app.pid, title="Beside")
    return app


async def test_a_killed_browser_drops_its_pages_and_the_desktop_is_still_listed(
    app: asyncio.subprocess.Process, computer: ToolBox
) -> None:
    launched = await computer.call("launch_browser", {"url": "data:text/html,<p>hello</p>"})
    assert not launched.is_error, launched.text
    before = await computer.call("find_roots", {})
    page = next(w for w in windows_of(before) if w.kind == "browser_page")
    process = computer.backends.browser.browser_process
    assert process is not None
    os.kill(process.process.pid, signal.SIGKILL)
    assert await asyncio.wait_for(process.process.wait(), 10) == -signal.SIGKILL

    after = await computer.call("find_roots", {})
    assert not after.is_error, after.text
    kinds = {w.title: w.kind for w in windows_of(after)}
    assert kinds.get("Beside") == "dialog", after.text
    assert "browser_page" not in kinds.values(), after.text
    (notice,) = [n for n in roots_of(after).notices if "browser" in n]
    assert "SIGKILL" in notice and "launch_browser" in notice, notice
    assert sum("SIGKILL" in line for line in after.text.splitlines()) == 1, after.text

    seen = await computer.call("observe_ui", {"root": page.ref})
    assert seen.is_error and error_of(seen).code == "target_gone", seen.text
    assert "SIGKILL" in seen.text and "internal" not in seen.text, seen.text
    state = state_id_of(launched)
    acted = await computer.call(
        "act_ui", {"stateId": state, "actions": [{"action": "keypress", "keys": ["Tab"]}]}
    )
    assert acted.is_error and "SIGKILL" in acted.text, acted.text
    assert "internal" not in acted.text, acted.text

    again = await computer.call("launch_browser", {"url": "data:text/html,<p>again</p>"})
    assert not again.is_error, again.text
    listed = await computer.call("find_roots", {})
    kinds = {w.title: w.kind for w in windows_of(listed)}
    assert "browser_page" in kinds.values() and kinds.get("Beside") == "dialog", listed.text
    assert not [n for n in roots_of(listed).notices if "SIGKILL" in n], listed.text
    assert_alive(app.pid)
    seen = await computer.call("observe_ui", {"root": paired_root_ref(listed, "Beside")})
    assert not seen.is_error, seen.text


async def test_a_stopped_browser_leaves_its_pages_out_with_a_notice(
    app: asyncio.subprocess.Process, computer: ToolBox
) -> None:
    """SIGSTOP: the listing does not fail for the desktop; SIGCONT: the pages are back."""
    launched = await computer.call("launch_browser", {"url": "data:text/html,<p>paused</p>"})
    assert not launched.is_error, launched.text
    process = computer.backends.browser.browser_process
    assert process is not None
    os.kill(process.process.pid, signal.SIGSTOP)
    try:
        listed = await computer.call("find_roots", {})
        assert not listed.is_error, listed.text
        kinds = {w.title: w.kind for w in windows_of(listed)}
        assert kinds == {"Beside": "dialog"}, listed.text
        (notice,) = [n for n in roots_of(listed).notices if "not listed" in n]
        assert "browser" in notice and "note: " in listed.text, listed.text
    finally:
        os.kill(process.process.pid, signal.SIGCONT)
    again = await computer.call("find_roots", {})
    kinds = {w.title: w.kind for w in windows_of(again)}
    assert "browser_page" in kinds.values() and kinds.get("Beside") == "dialog", again.text
    assert not roots_of(again).notices, again.text
    assert process.alive
    assert_alive(app.pid)


def paired_root_ref(listed: ToolResult, title: str) -> str:
    return next(w.ref for w in windows_of(listed) if w.title == title)
