"""AT-SPI backend against GTK 4: gnome-calculator driven by presses, widget-factory timing."""

from __future__ import annotations

import asyncio
import time
from functools import partial
from typing import Any

from atspi_helpers import (
    assert_answers,
    fields,
    find,
    launch_app,
    nodes,
    rects,
    root_of,
    settle,
    snap,
)

from actui.backends.atspi import AtspiBackend
from actui.backends.atspi.mirror import EVENT_LAG_S
from actui.backends.base import ActionKind, ActionRequest, RawNode, RootInfo, Snapshot
from actui.backends.linux.sandbox import Sandbox


def _key(node: RawNode, label: str) -> bool:
    """GTK 4 names calculator keys oddly (``7 7``); the label child carries the glyph."""
    if node.raw_role != "push button":
        return False
    return node.name.split()[:1] == [label] or any(c.name == label for c in node.children)


async def test_calculator_presses_compute_42_read_back_from_the_display(
    sandbox: Sandbox,
) -> None:
    process = await launch_app(sandbox, ["gnome-calculator"])
    backend = AtspiBackend(sandbox.env)
    try:
        root = await root_of(backend, process.pid)
        assert root.toolkit.startswith("GTK 4") and root.frame is not None
        assert (root.frame.x, root.frame.y) != (0, 0), "window-relative extents were offset"
        snapshot = await snap(backend, root)
        assert snapshot.source == "walk"
        for label in ("1", "2", "+", "3", "0", "="):
            key = find(snapshot, partial(_key, label=label))
            result = await backend.act(
                ActionRequest(kind="press", root=root, policy="background", target=key.native_id)
            )
            assert result.outcome == "worked", (label, result)
        after = await snap(backend, root)
        displays = [n for n in nodes(after.tree) if n.raw_role == "text" and n.value]
        assert any(n.value and n.value.strip() == "42" for n in displays), [
            (n.name, n.value) for n in displays
        ]
        await assert_answers(backend, process.pid)
    finally:
        await backend.close()


async def test_gtk4_widget_factory_walks_are_complete_and_a_rewalk_matches_a_fresh_one(
    sandbox: Sandbox,
) -> None:
    process = await launch_app(sandbox, ["gtk4-widget-factory"])
    backend, fresh_backend = AtspiBackend(sandbox.env), AtspiBackend(sandbox.env)
    try:
        root = await root_of(backend, process.pid)
        started = time.perf_counter()
        snapshot = await snap(backend, root)
        cold_ms = (time.perf_counter() - started) * 1000
        assert snapshot.node_count > 200 and not snapshot.truncated
        assert sum(n.unread for n in nodes(snapshot.tree)) > 0, "hidden pages are left unread"
        assert root.frame is not None
        inside = [n.rect for n in nodes(snapshot.tree) if n.rect is not None]
        assert all(r.x >= root.frame.x and r.y >= root.frame.y for r in inside[:50])

        entry = find(snapshot, lambda n: "setText" in n.caps and n.rect is not None)
        step = ActionRequest(
            kind="setText", root=root, policy="background", target=entry.native_id, text="rewalk"
        )
        assert (await backend.act(step)).outcome == "worked"
        started = time.perf_counter()
        rewalk = await snap(backend, root)
        warm_ms = (time.perf_counter() - started) * 1000
        fresh = await snap(fresh_backend, root)
        await assert_answers(backend, process.pid)
    finally:
        await backend.close()
        await fresh_backend.close()
    print(
        f"gtk4-widget-factory {snapshot.node_count} nodes: cold walk {cold_ms:.0f} ms, "
        f"re-walk with known roles {warm_ms:.0f} ms"
    )
    assert rewalk.source == "walk+known-roles" and fresh.source == "walk"
    assert fields(rewalk) == fields(fresh)
    assert find(rewalk, lambda n: n.native_id == entry.native_id).value == "rewalk"


async def _resize(env: dict[str, str], window: int, w: int, h: int) -> None:
    process = await asyncio.create_subprocess_exec(
        "xdotool", "windowsize", "--sync", str(window), str(w), str(h), env=env
    )
    async with asyncio.timeout(10):
        assert await process.wait() == 0


async def _equal_to_a_fresh_walk(
    backend: AtspiBackend, root: RootInfo, env: dict[str, str]
) -> Snapshot:
    """Once GTK 4's lagging events are in, the mirror's snapshot equals a fresh walk."""
    await asyncio.sleep(EVENT_LAG_S)
    await settle(backend, root)
    backends = [AtspiBackend(env) for _ in range(5)]
    try:
        before = await snap(backends[0], root)
        warm = await snap(backend, root)
        fresh = await snap(backends[1], root)
        # Fresh walks apart by uneven pauses, one of them before the mirror's:
        # an animated widget is unlikely to be caught at the same place in all.
        others = [before]
        for pause, each in zip((0.15, 0.23, 0.31), backends[2:], strict=True):
            await asyncio.sleep(pause)
            others.append(await snap(each, root))
    finally:
        for each in backends:
            await each.close()
    assert warm.source.startswith("mirror") and fresh.source == "walk"
    mirrored, walked = fields(warm), fields(fresh)
    assert mirrored.keys() == walked.keys()
    assert {k: (v, walked[k]) for k, v in mirrored.items() if walked[k] != v} == {}
    # Animated widgets move with no event at all (two unnamed fillers of the
    # widget factory, also a second after a page switch): only what every fresh
    # walk, before and after the mirror's, agrees on can be compared.
    moved, read, rereads = rects(warm), rects(fresh), [rects(each) for each in others]
    stable = {k for k, v in read.items() if all(again.get(k) == v for again in rereads)}
    assert len(stable) > len(read) - 8
    assert {k: (v, read[k]) for k, v in moved.items() if k in stable and read[k] != v} == {}
    return warm


async def test_gtk4_mirror_equals_a_fresh_walk_and_rereads_while_events_lag(
    sandbox: Sandbox,
) -> None:
    process = await launch_app(sandbox, ["gtk4-widget-factory"])
    backend = AtspiBackend(sandbox.env)
    try:
        root = await root_of(backend, process.pid)
        cold = await snap(backend, root)
        idle = await _equal_to_a_fresh_walk(backend, root, sandbox.env)
        entry = find(cold, lambda n: "setText" in n.caps and n.rect is not None)
        check = find(cold, lambda n: n.raw_role == "check box" and bool(n.actions))

        async def act(kind: ActionKind, node: RawNode, **extra: Any) -> None:
            step = ActionRequest(
                kind=kind, root=root, policy="background", target=node.native_id, **extra
            )
            assert (await backend.act(step)).outcome == "worked", (kind, node.name)

        await act("setText", entry, text="mirrored")
        await act("toggle", check)
        guarded = await snap(backend, root)
        assert guarded.source == "walk+known-roles", "events still due: everything re-read"
        assert find(guarded, lambda n: n.native_id == entry.native_id).value == "mirrored"
        flipped = find(guarded, lambda n: n.native_id == check.native_id)
        assert ("checked" in flipped.states) != ("checked" in check.states)
        await _equal_to_a_fresh_walk(backend, root, sandbox.env)
        assert root.window_id and cold.tree.rect is not None
        await _resize(sandbox.env, root.window_id, cold.tree.rect.w + 90, cold.tree.rect.h + 70)
        resized = await _equal_to_a_fresh_walk(backend, root, sandbox.env)
        assert resized.tree.rect is not None and resized.tree.rect.w > cold.tree.rect.w
        print(f"gtk4-widget-factory warm snapshot {idle.timings_ms['total_ms']:.0f} ms")
        await assert_answers(backend, process.pid)
    finally:
        await backend.close()


async def test_gtk4_leaves_hidden_pages_unread_reads_them_on_demand_and_in_full_once_shown(
    sandbox: Sandbox,
) -> None:
    process = await launch_app(sandbox, ["gtk4-widget-factory"])
    backend = AtspiBackend(sandbox.env)
    try:
        root = await root_of(backend, process.pid)
        cold = await snap(backend, root)
        hidden = [n for n in nodes(cold.tree) if n.unread]
        assert hidden and all(not n.children and n.rect is None for n in hidden)
        assert all("showing" not in n.states for n in hidden)
        assert not [n for n in nodes(cold.tree) if n.name == "Save"], "page 2 was read"
        below = [await backend.read_below(root, n.native_id, 8.0) for n in hidden]
        assert [len(b.children) for b in below] == [n.unread for n in hidden], "as counted"
        read = {n.native_id: n for b in below for n in nodes(b)}
        save = next(n for n in read.values() if (n.raw_role, n.name) == ("push button", "Save"))
        assert save.states == {"offscreen"} and save.rect is None and not save.actions
        again = await snap(backend, root)
        before, after = fields(cold), fields(again)
        assert after.keys() == before.keys(), "reading on demand left the mirror as it was"
        moved = {k for k, v in after.items() if before[k] != v}
        if moved:
            # The factory's progress bar pulses on its own (``busy`` comes and
            # goes): a node may differ only as a fresh walk also reads it now.
            walker = AtspiBackend(sandbox.env)
            try:
                walked = fields(await snap(walker, root))
            finally:
                await walker.close()
            assert {k: (after[k], walked[k]) for k in moved if walked[k] != after[k]} == {}
        tab = find(cold, lambda n: n.name == "Page _2")
        pressed = await backend.act(
            ActionRequest(kind="press", root=root, policy="background", target=tab.native_id)
        )
        assert pressed.outcome == "worked"
        shown = await _equal_to_a_fresh_walk(backend, root, sandbox.env)
        await assert_answers(backend, process.pid)
    finally:
        await backend.close()
    now = find(shown, lambda n: n.native_id == save.native_id)
    assert "offscreen" not in now.states and {"sensitive", "showing"} <= now.states
    assert "press" in now.caps and now.rect is not None, "read in full once it can be seen"
    shown_now = [n for n in nodes(shown.tree) if n.native_id in read and n.rect is not None]
    assert len(shown_now) > 100, "page 2's content"
