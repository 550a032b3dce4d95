"""AT-SPI backend against xfce4-appfinder: type a query, launch the match, see its window."""

from __future__ import annotations

import asyncio

from atspi_helpers import find, launch_app, root_of, settle, snap

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionKind, ActionRequest, RawNode, RootInfo
from actui.backends.linux.sandbox import Sandbox


async def test_a_query_then_launch_opens_the_matching_app_as_a_new_root(
    sandbox: Sandbox, tmp_path: object
) -> None:
    private = [f"HOME={tmp_path}", f"XDG_CONFIG_HOME={tmp_path}/config"]  # no earlier sessions
    process = await launch_app(sandbox, ["env", *private, "xfce4-appfinder"])
    backend = AtspiBackend(sandbox.env)
    try:
        root = await root_of(backend, process.pid)

        async def step(kind: ActionKind, node: RawNode, text: str = "") -> None:
            request = ActionRequest(
                kind=kind, root=root, policy="background", target=node.native_id, text=text
            )
            result = await backend.act(request)
            assert result.outcome == "worked", (kind, node.name, result)

        snapshot = await snap(backend, root)
        query = find(snapshot, lambda n: n.raw_role == "text" and "setText" in n.caps)
        await step("setText", query, "mousepad")
        await settle(backend, root)
        filtered = await snap(backend, root)
        cells = [n.name for n in _cells(filtered.tree)]
        print(cells)
        assert any(name.startswith("Mousepad") for name in cells), cells
        assert not any(name.startswith(("Vim", "Calculator")) for name in cells), cells
        await step("select", find(filtered, lambda n: n.name.startswith("Mousepad")))
        before = {r.native_id for r in await backend.list_roots()}
        await step(
            "press", find(filtered, lambda n: n.raw_role == "push button" and n.name == "Launch")
        )
        opened = await _new_root(backend, before, "mousepad")
        assert opened.pid != process.pid and "Mousepad" in opened.title
    finally:
        await backend.close()


def _cells(node: RawNode) -> list[RawNode]:
    own = [node] if node.raw_role == "table cell" and node.name else []
    return own + [c for child in node.children for c in _cells(child)]


async def _new_root(backend: AtspiBackend, before: set[str], app: str) -> RootInfo:
    async with asyncio.timeout(10):
        while True:
            fresh = [r for r in await backend.list_roots() if r.native_id not in before]
            if any(r.app_name == app for r in fresh):
                return next(r for r in fresh if r.app_name == app)
            await asyncio.sleep(0.1)
