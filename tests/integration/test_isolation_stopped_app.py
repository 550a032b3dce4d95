"""A stopped app does not slow down acting on the others.

Two zenity entry dialogs (GTK 3) in one sandbox. With A stopped (SIGSTOP), a
write to B's field must take about what it takes with A running: the
listings around the transaction serve A from its kept listing, marked not
answering, once A has been seen not to answer, instead of waiting out A's
D-Bus call timeout on every listing.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from computer_helpers import (
    assert_alive,
    executed,
    matches_of,
    paired_root,
    state_id_of,
    windows_of,
)

from actui.backends.linux.sandbox import Sandbox
from actui.results.tool_result import ToolResult
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

SLACK_S = 1.0
"""What the stopped case may take beyond the baseline: well under one 3 s call timeout."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[ToolBox]:
    computer = ToolBox(env=module_sandbox.env)
    yield computer
    await computer.close()


async def _entry(sandbox: Sandbox, title: str) -> asyncio.subprocess.Process:
    app = await sandbox.launch(
        ["zenity", "--entry", f"--title={title}", "--text=Name"], stdout=asyncio.subprocess.PIPE
    )
    await sandbox.wait_for_app(app.pid)
    return app


async def _timed_write(computer: ToolBox, root: str, text: str) -> float:
    """Seconds one act_ui takes to set B's field to ``text`` and verify it."""
    seen = await computer.call("observe_ui", {"root": root})
    assert not seen.is_error, seen.text
    found = await computer.call("search_ui", {"stateId": state_id_of(seen), "role": "text"})
    field = matches_of(found)[0].ref
    started = time.monotonic()
    acted = await computer.call(
        "act_ui",
        {
            "stateId": state_id_of(seen),
            "actions": [{"action": "setText", "ref": field, "text": text}],
            "expect": {"ref": field, "value": text},
        },
    )
    took = time.monotonic() - started
    assert not acted.is_error and executed(acted).outcome == "worked", acted.text
    return took


def _accessibility(listed: ToolResult, pid: int) -> list[str]:
    return [w.root.accessibility for w in windows_of(listed) if w.pid == pid]


async def test_acting_on_one_app_while_another_is_stopped_takes_the_usual_time(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    a = await _entry(module_sandbox, "Stopped A")
    b = await _entry(module_sandbox, "Working B")
    await paired_root(computer, pid=a.pid, title="Stopped A")
    root_b = (await paired_root(computer, pid=b.pid, title="Working B")).ref
    await _timed_write(computer, root_b, "warm")  # first contact costs are not the baseline
    baseline = await _timed_write(computer, root_b, "before")
    a.send_signal(signal.SIGSTOP)
    try:
        listed = await computer.call("find_roots", {})
        assert _accessibility(listed, a.pid) == ["not_answering"], listed.text
        stopped = await _timed_write(computer, root_b, "during")
        listed = await computer.call("find_roots", {})
        assert _accessibility(listed, a.pid) == ["not_answering"], listed.text
        assert _accessibility(listed, b.pid) == ["full"], listed.text
    finally:
        a.send_signal(signal.SIGCONT)
    print(f"act_ui on B: {baseline:.2f} s with A running, {stopped:.2f} s with A stopped")
    assert stopped < baseline + SLACK_S, (baseline, stopped)
    async with asyncio.timeout(20):
        while True:  # the first listing after SIGCONT may still be the probe's
            listed = await computer.call("find_roots", {})
            if _accessibility(listed, a.pid) == ["full"]:
                break
            await asyncio.sleep(0.2)
    assert_alive(a.pid)
    assert_alive(b.pid)
    assert not (await computer.call("observe_ui", {"root": root_b})).is_error
