"""Partial, never nothing: a walk that runs out of time returns what it read by then,
marked truncated where it stopped, and says so; the application is unharmed and the next
walk (with time) reads it all."""

from __future__ import annotations

from atspi_helpers import launch_app, nodes, root_of, snap
from computer_helpers import assert_alive

from actui.backends.atspi import AtspiBackend
from actui.backends.linux.sandbox import Sandbox


async def test_a_walk_out_of_time_returns_what_it_read_marked_truncated(sandbox: Sandbox) -> None:
    process = await launch_app(sandbox, ["gtk3-widget-factory"])
    rushed = AtspiBackend(sandbox.env)
    try:
        root = await root_of(rushed, process.pid)
        cut = await rushed.snapshot(root, max_nodes=4096, max_depth=64, budget_s=0.0)
    finally:
        await rushed.close()
    assert cut.partial and cut.truncated, cut.partial
    assert cut.tree.raw_role == "frame" and cut.tree.truncated, "the window is read, marked cut"
    assert any(node.truncated for node in nodes(cut.tree))
    assert_alive(process.pid)
    backend = AtspiBackend(sandbox.env)
    try:
        whole = await snap(backend, await root_of(backend, process.pid))
    finally:
        await backend.close()
    assert not whole.partial and whole.node_count > cut.node_count, (whole.node_count, cut)
