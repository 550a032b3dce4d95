"""The live mirror against gtk3-widget-factory: warm snapshots equal fresh walks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from atspi_helpers import fields, find, launch_app, nodes, rects, root_of, settle, snap

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionKind, ActionRequest, RawNode, Rect, RootInfo, Snapshot
from actui.backends.linux.sandbox import Sandbox
from actui.errors import TargetGone

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Factory:
    watcher: AtspiBackend
    actor: AtspiBackend
    root: RootInfo
    env: dict[str, str]

    async def act(self, kind: ActionKind, node: RawNode, **extra: Any) -> None:
        request = ActionRequest(
            kind=kind, root=self.root, policy="background", target=node.native_id, **extra
        )
        result = await self.actor.act(request)
        assert result.outcome == "worked", (kind, node.name, result)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def factory(module_sandbox: Sandbox) -> AsyncIterator[Factory]:
    process = await launch_app(module_sandbox, ["gtk3-widget-factory"])
    watcher, actor = AtspiBackend(module_sandbox.env), AtspiBackend(module_sandbox.env)
    try:
        root = await root_of(watcher, process.pid)
        yield Factory(watcher, actor, root, module_sandbox.env)
    finally:
        await watcher.close()
        await actor.close()


def _showing(node: RawNode, role: str) -> bool:
    return node.raw_role == role and {"showing", "enabled"} <= node.states


async def test_warm_snapshot_equals_a_fresh_walk_after_a_burst_of_changes(
    factory: Factory,
) -> None:
    started = time.perf_counter()
    cold = await snap(factory.watcher, factory.root)
    cold_ms = 1000 * (time.perf_counter() - started)
    started = time.perf_counter()
    idle = await snap(factory.watcher, factory.root)
    warm_ms = 1000 * (time.perf_counter() - started)
    print(
        f"gtk3-widget-factory {cold.node_count} nodes: cold {cold_ms:.0f} ms, warm {warm_ms:.0f} ms"
    )
    assert idle.source.startswith("mirror") and fields(idle) == fields(cold)

    entries = [n for n in nodes(cold.tree) if "setText" in n.caps and "showing" in n.states]
    for i, entry in enumerate(entries[:2]):
        await factory.act("setText", entry, text=f"mirror {i}")
    toggles = [
        n for n in nodes(cold.tree) if _showing(n, "toggle button") and n.name == "togglebutton"
    ]
    for toggle in toggles[:2]:
        await factory.act("toggle", toggle)
    spin = find(cold, lambda n: _showing(n, "spin button") and n.value == "50")
    await factory.act("setValue", spin, value=42.0)
    tab = [n for n in nodes(cold.tree) if n.raw_role == "page tab" and "selected" not in n.states]
    await factory.act("select", tab[0])
    await factory.act("press", find(cold, lambda n: n.raw_role == "combo box" and n.name == "Left"))
    await factory.act(
        "toggle", find(cold, lambda n: n.raw_role == "toggle button" and n.name == "Menu")
    )
    await factory.act("press", find(cold, lambda n: n.name == "About Widget Factory"))
    # a structural change: the stack's second page is built and swapped in
    await factory.act(
        "press", find(cold, lambda n: n.raw_role == "radio button" and n.name == "Page 2")
    )
    await settle(factory.watcher, factory.root)
    roots = await factory.watcher.list_roots(factory.root.pid)
    assert any(r.kind == "dialog" for r in roots), "the About dialog opened"

    warm = await snap(factory.watcher, factory.root)
    fresh_backend = AtspiBackend(factory.env)
    try:
        fresh = await snap(fresh_backend, factory.root)
    finally:
        await fresh_backend.close()
    assert warm.source.startswith("mirror") and not fresh.source.startswith("mirror")
    mirrored, walked = fields(warm), fields(fresh)
    assert mirrored.keys() == walked.keys()
    assert {k: (v, walked[k]) for k, v in mirrored.items() if walked[k] != v} == {}
    assert warm.node_count > cold.node_count, "the burst changed the tree's structure"


async def _xdotool(factory: Factory, *args: str) -> None:
    process = await asyncio.create_subprocess_exec(
        "xdotool", *args, env=factory.env, stdout=asyncio.subprocess.DEVNULL
    )
    async with asyncio.timeout(10):
        assert await process.wait() == 0, args


async def _equal_to_a_fresh_walk(factory: Factory) -> tuple[Snapshot, float]:
    """The watcher's warm snapshot (and its ms), checked field by field and rect by rect."""
    await settle(factory.watcher, factory.root)
    started = time.perf_counter()
    warm = await snap(factory.watcher, factory.root)
    warm_ms = 1000 * (time.perf_counter() - started)
    fresh_backend = AtspiBackend(factory.env)
    try:
        fresh = await snap(fresh_backend, factory.root)
    finally:
        await fresh_backend.close()
    assert warm.source.startswith("mirror") and not fresh.source.startswith("mirror")
    assert fields(warm) == fields(fresh)
    mirrored, walked = rects(warm), rects(fresh)
    assert {k: (v, walked[k]) for k, v in mirrored.items() if walked[k] != v} == {}
    return warm, warm_ms


async def test_mirrored_rects_follow_a_window_move_and_a_resize(factory: Factory) -> None:
    before, _ = await _equal_to_a_fresh_walk(factory)
    frame = before.tree.rect
    assert frame is not None and factory.root.window_id
    window = str(factory.root.window_id)
    await _xdotool(factory, "windowmove", "--sync", window, str(frame.x + 37), str(frame.y + 23))
    moved, moved_ms = await _equal_to_a_fresh_walk(factory)
    assert moved.tree.rect is not None and moved.tree.rect.x != frame.x
    dx, dy = moved.tree.rect.x - frame.x, moved.tree.rect.y - frame.y
    listed = [
        r for r in await factory.watcher.list_roots() if r.native_id == factory.root.native_id
    ]
    assert [r.frame for r in listed] == [moved.tree.rect], "a kept root listing follows the move"
    old, new = rects(before), rects(moved)
    shifted = [k for k, r in old.items() if r and new.get(k) == Rect(r.x + dx, r.y + dy, r.w, r.h)]
    assert len(shifted) > 100, "every element moved with the window"
    # a layout change: every widget is re-allocated to the new size
    await _xdotool(factory, "windowsize", "--sync", window, str(frame.w + 80), str(frame.h + 60))
    resized, resized_ms = await _equal_to_a_fresh_walk(factory)
    assert resized.tree.rect is not None and resized.tree.rect.w == frame.w + 80
    print(f"warm snapshot after a move {moved_ms:.0f} ms, after a resize {resized_ms:.0f} ms")


async def test_a_closed_window_is_reported_gone_even_while_being_read(factory: Factory) -> None:
    dialogs = [r for r in await factory.watcher.list_roots(factory.root.pid) if r.kind == "dialog"]
    assert dialogs, "the previous test opened the About dialog"
    about = dialogs[0]
    tree = await snap(factory.watcher, about)
    close = find(tree, lambda n: n.raw_role == "push button" and n.name == "Close")
    reading = asyncio.create_task(snap(factory.watcher, about))
    request = ActionRequest(kind="press", root=about, policy="background", target=close.native_id)
    await factory.actor.act(request)
    try:
        during = await reading
        assert during.node_count == tree.node_count, "complete, never half read"
    except TargetGone as gone:
        assert "closed" in str(gone) or "gone" in str(gone)
    with pytest.raises(TargetGone, match="was closed"):
        await snap(factory.watcher, about)
