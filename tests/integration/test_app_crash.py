"""An app that dies while being driven is reported as exited, with its signal, not as closed.

Two ways the status is known: the sandbox started the app (its exit record), or the app's
parent has not reaped it yet (its wait status in /proc). The zenity dialogs are GTK 3 apps
with full accessibility; each test kills one between an observation and the next call.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import (
    ended_of,
    entry_dialog,
    error_of,
    matches_of,
    observed_of,
    paired_root,
    state_id_of,
    windows_of,
)

from actui.backends.linux.sandbox import Sandbox
from actui.results.tool_result import ToolResult
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[ToolBox]:
    computer = ToolBox(env=module_sandbox.env)
    yield computer
    await computer.close()


async def _visual(computer: ToolBox, root: str) -> ToolResult:
    return await computer.call("observe_ui", {"root": root, "mode": "visual"})


def _is_file(path: str) -> bool:
    return Path(path).is_file()


async def _observed(computer: ToolBox, pid: int, title: str) -> tuple[str, str, str]:
    """The dialog's root ref, a state of it, and its OK button's ref."""
    root = await paired_root(computer, pid=pid, title=title)
    seen = await computer.call("observe_ui", {"root": root.ref, "mode": "semantic"})
    assert not seen.is_error, seen.text
    found = await computer.call(
        "search_ui", {"stateId": state_id_of(seen), "text": "OK", "role": "button"}
    )
    return root.ref, state_id_of(seen), matches_of(found)[0].ref


async def test_segfault_between_observe_and_act_is_reported_as_sigsegv(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    app = await entry_dialog(module_sandbox, "Crash one")
    _, state, ok = await _observed(computer, app.pid, "Crash one")
    os.kill(app.pid, signal.SIGSEGV)
    assert await asyncio.wait_for(app.wait(), 10) == -signal.SIGSEGV
    acted = await computer.call(
        "act_ui", {"stateId": state, "actions": [{"action": "press", "ref": ok}]}
    )
    assert "SIGSEGV" in acted.text, acted.text
    assert "closed" not in acted.text.split("\n")[0]
    ended = error_of(acted).exit
    assert ended is not None and ended.signal == "SIGSEGV", acted.text
    assert ended.log and _is_file(ended.log)  # the app's output was kept, and said where
    after = await computer.call("find_roots", {})
    assert not after.is_error and all(w.pid != app.pid for w in windows_of(after))


async def test_a_crash_during_a_transaction_ends_it_as_app_exited(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    """The app dies while a step runs: the result is the crash, not a closed window."""
    app = await entry_dialog(module_sandbox, "Crash mid")
    _, state, _ = await _observed(computer, app.pid, "Crash mid")
    acting = asyncio.ensure_future(
        computer.call("act_ui", {"stateId": state, "actions": [{"action": "wait", "ms": 1500}]})
    )
    await asyncio.sleep(0.5)
    os.kill(app.pid, signal.SIGSEGV)
    acted = await asyncio.wait_for(acting, 30)
    ended = ended_of(acted)
    assert ended.status == "app_exited", acted.text
    assert ended.exit is not None and ended.exit.signal == "SIGSEGV"
    first = acted.text.splitlines()[0]
    assert "killed by signal SIGSEGV" in first and " closed" not in first, first


async def test_sigkill_of_an_app_its_parent_has_not_reaped_is_read_from_proc(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    """The sandbox starts a shell; the shell starts zenity and never waits for it."""
    shell = await module_sandbox.launch(
        ["sh", "-c", "zenity --entry --title='Crash two' --text=Name & echo $!; exec sleep 300"],
        stdout=asyncio.subprocess.PIPE,
    )
    assert shell.stdout is not None
    pid = int((await asyncio.wait_for(shell.stdout.readline(), 10)).decode())
    await module_sandbox.wait_for_app(pid)
    root, _, _ = await _observed(computer, pid, "Crash two")
    os.kill(pid, signal.SIGKILL)
    seen = await computer.call("observe_ui", {"root": root})
    assert seen.is_error
    assert error_of(seen).code == "app_exited", seen.text
    ended = error_of(seen).exit
    assert ended is not None and ended.signal == "SIGKILL" and "SIGKILL" in seen.text
    assert shell.returncode is None  # the parent lives on; only its child died


async def test_a_stopped_app_is_listed_as_not_answering_and_still_seen(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    """SIGSTOP: the window stays, marked; visual mode shows it; SIGCONT: it answers again."""
    app = await module_sandbox.launch(
        ["zenity", "--info", "--title=Frozen", "--text=<span size='xx-large'>Still here</span>"]
    )
    await module_sandbox.wait_for_app(app.pid)
    root = await paired_root(computer, pid=app.pid, title="Frozen")
    for _ in range(50):  # drawn before it stops: OCR reads its text off the live window
        ocr = observed_of(await _visual(computer, root.ref)).ocr
        assert ocr is not None
        if ocr.lines:
            break
        await asyncio.sleep(0.2)
    app.send_signal(signal.SIGSTOP)
    try:
        listed = await computer.call("find_roots", {"pid": app.pid})
        (window,) = windows_of(listed)
        assert window.root.accessibility == "not_answering", listed.text
        assert window.ref == root.ref and "not answering" in listed.text
        fresh = ToolBox(env=module_sandbox.env)  # a session that never read the app
        try:
            first = await fresh.call("find_roots", {"pid": app.pid})
            assert [w.root.accessibility for w in windows_of(first)] == ["not_answering"]
        finally:
            await fresh.close()
        seen = await _visual(computer, root.ref)
        assert not seen.is_error, seen.text
        assert seen.images and "Still here" in seen.text, seen.text
        assert "not answering" in seen.text
    finally:
        app.send_signal(signal.SIGCONT)
    again = await computer.call("find_roots", {"pid": app.pid})
    assert [w.root.accessibility for w in windows_of(again)] == ["full"], again.text
    assert app.returncode is None
