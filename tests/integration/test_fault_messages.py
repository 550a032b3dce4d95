"""What an agent reads when something dies under it: each message whole, said once.

A killed browser (idle, and in the middle of an evaluation), a killed accessibility bus,
an app killed in the middle of act_ui and reaped by its parent afterwards, a stopped app,
an app closed through the window manager and one ended by SIGTERM, and a launched page
on a desktop whose headless browser must not add windows of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from computer_helpers import (
    entry_dialog,
    error_of,
    matches_of,
    observation_of,
    paired_root,
    roots_of,
    state_id_of,
    windows_of,
)
from procs import argv

from actui.backends.linux.sandbox import Sandbox, tagged_pids
from actui.results.tool_result import ToolResult
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGE = "data:text/html,<title>Hello</title><button>Press me</button>"
AGAIN = "Run find_roots, then observe_ui."
NO_SUCCESSOR = (
    "No successor state exists: do not repeat the actions; run find_roots, then observe_ui."
)
# A parent that reaps its child (zenity) only when told to (SIGUSR1), as a shell might later.
REAPER_LATER = (
    "import os, signal, subprocess, sys, time\n"
    "child = subprocess.Popen(['zenity', '--entry', '--title=' + sys.argv[1], '--text=Name'])\n"
    "print(child.pid, flush=True)\n"
    "signal.signal(signal.SIGUSR1, lambda *_: child.wait())\n"
    "time.sleep(300)\n"
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[ToolBox]:
    computer = ToolBox(env=module_sandbox.env)
    yield computer
    await computer.close()


async def _observed(computer: ToolBox, pid: int, title: str) -> tuple[str, str]:
    root = await paired_root(computer, pid=pid, title=title)
    seen = await computer.call("observe_ui", {"root": root.ref})
    assert not seen.is_error, seen.text
    return root.ref, state_id_of(seen)


async def _textbox(computer: ToolBox, state: str) -> str:
    found = await computer.call("search_ui", {"stateId": state, "role": "textbox"})
    return matches_of(found)[0].ref


def _first_line(result: ToolResult) -> str:
    return result.text.splitlines()[0]


async def test_an_app_killed_in_the_middle_of_act_ui_is_named_the_same_way_afterwards(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    parent = await module_sandbox.launch(
        [sys.executable, "-c", REAPER_LATER, "Mid"], stdout=asyncio.subprocess.PIPE
    )
    assert parent.stdout is not None
    pid = int((await asyncio.wait_for(parent.stdout.readline(), 10)).decode())
    await module_sandbox.wait_for_app(pid)
    root, state = await _observed(computer, pid, "Mid")
    entry = await _textbox(computer, state)
    steps = [
        {"action": "setText", "ref": entry, "text": "a"},
        {"action": "wait", "ms": 1500},
        {"action": "setText", "ref": entry, "text": "b"},
    ]
    acting = asyncio.ensure_future(computer.call("act_ui", {"stateId": state, "actions": steps}))
    await asyncio.sleep(0.7)
    os.kill(pid, signal.SIGKILL)
    acted = await asyncio.wait_for(acting, 30)
    assert _first_line(acted) == (
        f'act_ui: step 3 of 3 failed, after 2 delivered, and {root} "Mid" is gone: its '
        f"application was killed by signal SIGKILL; outcome didnt. {NO_SUCCESSOR}"
    ), acted.text
    parent.send_signal(signal.SIGUSR1)  # the parent reaps it: /proc no longer knows how it ended
    for _ in range(50):
        if not _exists(pid):
            break
        await asyncio.sleep(0.1)
    seen = await computer.call("observe_ui", {"root": root})
    assert error_of(seen).code == "app_exited"
    assert seen.text == (
        f"observe_ui failed: the application (pid {pid}) was killed by signal SIGKILL. "
        f"The window 'Mid' (pid {pid}) is gone. {AGAIN}"
    )
    assert parent.returncode is None  # the parent lives on
    parent.kill()
    await parent.wait()


async def test_a_window_closed_by_the_window_manager_and_an_app_ended_by_sigterm_read_alike(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    codes = []
    for title, end in (("Closed", _close_by_ewmh), ("Ended", _sigterm)):
        app = await entry_dialog(module_sandbox, title)
        root, _ = await _observed(computer, app.pid, title)
        await end(module_sandbox, computer, root, app)
        how = await asyncio.wait_for(app.wait(), 10)
        seen = await computer.call("observe_ui", {"root": root})
        ended = "exited with code 1" if how == 1 else "ended on signal SIGTERM (a request to end)"
        assert how in (1, -signal.SIGTERM)
        assert seen.text == (
            f"observe_ui failed: the application (pid {app.pid}) {ended}; its output is in "
            f"{module_sandbox.log_of(app)}. The window '{title}' (pid {app.pid}) is gone. {AGAIN}"
        )
        codes.append(error_of(seen).code)
    assert codes == ["target_gone", "target_gone"]


async def _close_by_ewmh(
    sandbox: Sandbox, computer: ToolBox, root: str, app: asyncio.subprocess.Process
) -> None:
    window = (await paired_root(computer, pid=app.pid)).root.window_id
    assert window
    for _ in range(10):  # a close that arrives before the dialog is ready may be dropped
        await asyncio.to_thread(_send_close, sandbox.display, window)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(app.wait()), 1.0)
            return


def _send_close(display: str, window: int) -> None:
    from Xlib import X, protocol
    from Xlib.display import Display

    conn = Display(display)
    try:
        close = protocol.event.ClientMessage(
            window=conn.create_resource_object("window", window),
            client_type=conn.intern_atom("_NET_CLOSE_WINDOW"),
            data=(32, [X.CurrentTime, 2, 0, 0, 0]),
        )
        mask = X.SubstructureRedirectMask | X.SubstructureNotifyMask
        conn.screen().root.send_event(close, event_mask=mask)
        conn.flush()
    finally:
        conn.close()


async def _sigterm(
    sandbox: Sandbox, computer: ToolBox, root: str, app: asyncio.subprocess.Process
) -> None:
    app.send_signal(signal.SIGTERM)


async def test_a_stopped_app_is_shown_as_not_answering_not_as_a_diff_of_removals(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    app = await entry_dialog(module_sandbox, "Stop")
    root, state = await _observed(computer, app.pid, "Stop")
    app.send_signal(signal.SIGSTOP)
    try:
        waited = await computer.call(
            "wait_for", {"stateId": state, "text": "never there", "timeoutMs": 300}
        )
    finally:
        app.send_signal(signal.SIGCONT)
    lines = waited.text.splitlines()
    assert lines[1:] == [
        "Its application is not answering (busy, stopped or stuck in a dialog), so its tree "
        "cannot be read now. Observe it with mode 'visual' to see it, or try again later.",
        f"stateId {state_id_of(waited)}: 1 nodes, 1 shown",
        '@e1 dialog "Stop"',
    ], waited.text
    assert not (await computer.call("observe_ui", {"root": root})).is_error  # it answers again


async def test_a_launched_page_is_listed_once_on_a_desktop(computer: ToolBox) -> None:
    launched = await computer.call("launch_browser", {"url": PAGE})
    assert not launched.is_error, launched.text
    roots = await computer.call("find_roots", {})
    browser = computer._session.backends.started_browser
    pid = browser.browser_process.process.pid  # type: ignore[union-attr]
    (page,) = [w for w in windows_of(roots) if w.root.kind == "browser_page"]
    assert f'{page.ref} browser_page "Hello" "{PAGE}"' in roots.text.splitlines()
    assert [w for w in windows_of(roots) if w.root.pid == pid] == [], roots.text
    assert "Chromium" not in roots.text and roots_of(roots).notices == ()


async def test_a_browser_killed_mid_evaluation_and_idle_is_reported_once(
    computer: ToolBox,
) -> None:
    launched = await computer.call("launch_browser", {"url": PAGE})
    state = state_id_of(launched)
    browser = computer._session.backends.started_browser
    process = browser.browser_process.process  # type: ignore[union-attr]
    slow = "new Promise(done => setTimeout(done, 5000))"
    evaluating = asyncio.ensure_future(
        computer.call("evaluate_browser", {"stateId": state, "expression": slow})
    )
    await asyncio.sleep(0.5)
    process.kill()
    evaluated = await asyncio.wait_for(evaluating, 20)
    killed = (
        "The browser actui launched was killed by signal SIGKILL: its pages are gone; "
        "launch_browser starts a new one."
    )
    # the pipe may close before the process is reaped: either fact, said once
    ended = "(was killed by signal SIGKILL|closed its debugging pipe)"
    assert re.fullmatch(
        r"evaluate_browser failed: page [0-9A-F]{32} is gone \(connection closed: the browser "
        rf"closed its pipe during Runtime\.evaluate\)\. The browser actui launched {ended}: "
        r"its pages are gone; launch_browser starts a new one\.",
        evaluated.text,
    ), evaluated.text
    await process.wait()
    again = await computer.call("observe_ui", {"root": observation_of(launched).target.ref})
    assert again.text == f"observe_ui failed: the page 'Hello' is gone. {AGAIN} {killed}"


async def test_a_killed_accessibility_bus_is_said_once(module_sandbox: Sandbox) -> None:
    """Last in the module: the desktop's bus stays dead. A session of its own, whose
    browser (the one the other tests killed) adds no notice of its own."""
    computer = ToolBox(env=module_sandbox.env)
    try:
        await _bus_killed_under(computer, module_sandbox)
    finally:
        await computer.close()


async def _bus_killed_under(computer: ToolBox, module_sandbox: Sandbox) -> None:
    app = await entry_dialog(module_sandbox, "Bus")
    root, _ = await _observed(computer, app.pid, "Bus")
    token = module_sandbox.env["ACTUI_SANDBOX_ID"]
    (bus,) = [pid for pid in tagged_pids(token) if "accessibility.conf" in " ".join(argv(pid))]
    os.kill(bus, signal.SIGKILL)
    seen = await computer.call("observe_ui", {"root": root})
    assert re.fullmatch(
        r"observe_ui failed: the accessibility bus went away at \d\d:\d\d:\d\d: applications "
        r"connected to it before then cannot be read until they are restarted; call "
        r"find_roots again\.",
        seen.text,
    ), seen.text
    assert app.returncode is None  # the app lives on


def _exists(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}")
