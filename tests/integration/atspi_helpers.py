"""Helpers shared by the AT-SPI integration tests: launching an app, finding nodes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence

from computer_helpers import process_alive

from actui.backends.atspi import AtspiBackend
from actui.backends.base import RawNode, Rect, RootInfo, Snapshot
from actui.backends.linux.sandbox import Sandbox


async def launch_app(
    desktop: Sandbox, argv: Sequence[str], *, stdout: int | None = asyncio.subprocess.DEVNULL
) -> asyncio.subprocess.Process:
    process = await desktop.launch(argv, stdout=stdout)
    await desktop.wait_for_app(process.pid)
    return process


async def root_of(backend: AtspiBackend, pid: int, timeout_s: float = 10.0) -> RootInfo:
    """The pid's first root (waits for it to show up)."""
    async with asyncio.timeout(timeout_s):
        while True:
            roots = await backend.list_roots(pid)
            if roots:
                return roots[0]
            await asyncio.sleep(0.05)


async def assert_answers(backend: AtspiBackend, pid: int) -> None:
    """The app ``pid`` survived: its process runs and it still answers, listing a window."""
    assert process_alive(pid), f"pid {pid} is gone"
    assert await backend.list_roots(pid), f"pid {pid} no longer answers"


def nodes(tree: RawNode) -> Iterator[RawNode]:
    yield tree
    for child in tree.children:
        yield from nodes(child)


def find(within: Snapshot | RawNode, where: Callable[[RawNode], bool]) -> RawNode:
    tree = within.tree if isinstance(within, Snapshot) else within
    found = [n for n in nodes(tree) if where(n)]
    assert found, "no node matched"
    return found[0]


async def snap(backend: AtspiBackend, root: RootInfo) -> Snapshot:
    return await backend.snapshot(root, max_nodes=4096, max_depth=64)


def fields(snapshot: Snapshot) -> dict[str, tuple[object, ...]]:
    """What a mirror must agree on with a fresh walk, per node id."""
    return {
        n.native_id: (
            n.raw_role,
            n.name,
            n.description,
            sorted(n.states),
            n.value,
            n.actions,
            sorted(n.caps),
            [c.native_id for c in n.children],
            n.truncated,
        )
        for n in nodes(snapshot.tree)
    }


def rects(snapshot: Snapshot) -> dict[str, Rect | None]:
    """Every node's screen rect, per node id."""
    return {n.native_id: n.rect for n in nodes(snapshot.tree)}


async def settle(backend: AtspiBackend, root: RootInfo, quiet_s: float = 0.3) -> None:
    """Return once the root's app has sent no event for ``quiet_s`` (at most 10 s)."""
    async with asyncio.timeout(10):
        while True:
            mark = backend.change_mark(root)
            if await backend.wait_for_change(root, mark, quiet_s) == mark:
                return
