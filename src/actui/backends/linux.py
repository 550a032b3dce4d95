"""The Linux desktop backend: AT-SPI for semantics, X11 for the physical side.

AT-SPI delivers everything it can without focus or pointer; a request whose
policy is ``foreground`` (the runtime decided physical input is allowed and
needed) goes to X11. This module only routes; each half owns its platform.
"""

from __future__ import annotations

from collections.abc import Mapping

from actui.backends.atspi.backend import AtspiBackend
from actui.backends.base import (
    ActionRequest,
    ActionResult,
    Backend,
    RootInfo,
    Snapshot,
    TextSlice,
)


class LinuxBackend(Backend):
    name = "linux"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.atspi = AtspiBackend(env=env)

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        return await self.atspi.list_roots(pid)

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        return await self.atspi.snapshot(root, max_nodes=max_nodes, max_depth=max_depth)

    async def act(self, request: ActionRequest) -> ActionResult:
        return await self.atspi.act(request)

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        return await self.atspi.read_text(root, node_id, offset, limit)

    def change_mark(self, root: RootInfo) -> int:
        return self.atspi.change_mark(root)

    async def wait_for_change(self, root: RootInfo, since: int, timeout_s: float) -> int:
        return await self.atspi.wait_for_change(root, since, timeout_s)

    @property
    def waits_are_event_driven(self) -> bool:
        return self.atspi.waits_are_event_driven

    async def close(self) -> None:
        await self.atspi.close()
