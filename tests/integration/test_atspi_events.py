"""Event-driven waits against ``zenity --entry``: woken by real changes, never by silence."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from atspi_helpers import find, launch_app, root_of, snap

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionRequest, RootInfo
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Entry:
    watcher: AtspiBackend
    actor: AtspiBackend
    root: RootInfo
    entry_id: str


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def dialog(module_sandbox: Sandbox) -> AsyncIterator[Entry]:
    process = await launch_app(module_sandbox, ["zenity", "--entry", "--text=Name"])
    watcher, actor = AtspiBackend(module_sandbox.env), AtspiBackend(module_sandbox.env)
    try:
        root = await root_of(watcher, process.pid)
        entry = find(await snap(watcher, root), lambda n: "setText" in n.caps)
        yield Entry(watcher, actor, root, entry.native_id)
    finally:
        await watcher.close()
        await actor.close()


async def _set_text_later(dialog: Entry, text: str, delay_s: float) -> float:
    await asyncio.sleep(delay_s)
    sent = time.perf_counter()
    step = ActionRequest(
        kind="setText", root=dialog.root, policy="background", target=dialog.entry_id, text=text
    )
    await dialog.actor.act(step)
    return sent


async def test_wait_wakes_within_milliseconds_of_a_change_made_by_another_client(
    dialog: Entry,
) -> None:
    await snap(dialog.watcher, dialog.root)
    mark = dialog.watcher.change_mark(dialog.root)
    change = asyncio.create_task(_set_text_later(dialog, "Grace Hopper", 0.2))
    new_mark = await dialog.watcher.wait_for_change(dialog.root, mark, 5.0)
    woke = time.perf_counter()
    sent = await change
    print(f"woke {1000 * (woke - sent):.1f} ms after the change was sent")
    assert new_mark > mark
    assert woke - sent < 0.25, "woken by the event, not by the timeout"
    live = await dialog.watcher.read_text(dialog.root, dialog.entry_id, 0, 50)
    assert live.text == "Grace Hopper"
    assert dialog.watcher.waits_are_event_driven(dialog.root)


async def test_wait_without_a_change_returns_the_same_mark_at_the_timeout(
    dialog: Entry,
) -> None:
    await asyncio.sleep(0.1)  # let the previous test's events drain
    await snap(dialog.watcher, dialog.root)
    mark = dialog.watcher.change_mark(dialog.root)
    started = time.perf_counter()
    assert await dialog.watcher.wait_for_change(dialog.root, mark, 0.4) == mark
    assert 0.39 <= time.perf_counter() - started < 1.0


async def test_an_event_before_the_wait_is_not_lost(dialog: Entry) -> None:
    mark = dialog.watcher.change_mark(dialog.root)
    await _set_text_later(dialog, "Ada", 0)
    await asyncio.sleep(0.1)
    started = time.perf_counter()
    assert await dialog.watcher.wait_for_change(dialog.root, mark, 5.0) > mark
    assert time.perf_counter() - started < 0.05


async def test_an_application_exiting_wakes_the_wait(module_sandbox: Sandbox) -> None:
    process = await launch_app(module_sandbox, ["zenity", "--info", "--text=bye"])
    backend = AtspiBackend(module_sandbox.env)
    try:
        root = await root_of(backend, process.pid)
        await snap(backend, root)
        mark = backend.change_mark(root)
        process.kill()
        started = time.perf_counter()
        assert await backend.wait_for_change(root, mark, 5.0) > mark
        assert time.perf_counter() - started < 1.0
    finally:
        await backend.close()
