"""AT-SPI backend against GTK 4: gnome-calculator driven by presses, widget-factory timing."""

from __future__ import annotations

import time
from functools import partial

from atspi_helpers import fields, find, launch_app, nodes, root_of, snap

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionRequest, RawNode
from actui.sandbox import Sandbox


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
        assert snapshot.node_count > 500 and not snapshot.truncated
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
