"""A model application for unit tests: a backend whose one entry really changes.

It is a small model of an app, not a mock of AT-SPI: it keeps an entry's text
and applies setText/typeText to it, so outcomes and conditions are checked
against state that really changes. Shared by the unit tests that drive the
tools, the Python API and the fuzz in process.
"""

from __future__ import annotations

import time

from actui.backends.base import (
    ActionRequest,
    ActionResult,
    Backend,
    RawNode,
    Rect,
    RootInfo,
    Snapshot,
    TextSlice,
)
from actui.refusals import Refused
from actui.results.tool_result import ToolResult
from actui.results.typed import RootsFound, RootView

ROOT = RootInfo(
    native_id="app/1",
    pid=7,
    app_name="model",
    title="Model",
    kind="window",
    raw_role="frame",
    frame=Rect(0, 0, 300, 200),
    window_id=5,
    resource_key="desktop-pid:7",
)


class ModelApp(Backend):
    """An entry whose text changes only through semantic setText/typeText."""

    def __init__(self) -> None:
        self.text = "start"
        self.requests: list[ActionRequest] = []

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        return [ROOT]

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        entry = RawNode(
            "entry",
            "text",
            name="Name",
            value=self.text,
            value_length=len(self.text),
            caps=frozenset({"setText", "typeText", "focus"}),
            rect=Rect(10, 10, 100, 20),
        )
        tree = RawNode("win", "frame", name="Model", children=(entry,), rect=ROOT.frame)
        return Snapshot(root=ROOT, tree=tree, captured_at=time.time(), node_count=2)

    async def act(self, request: ActionRequest) -> ActionResult | Refused:
        self.requests.append(request)
        if request.kind == "keypress" and request.policy != "foreground":
            return Refused("keys need physical input", "physical", request.policy)
        if request.kind == "setText":
            self.text = request.text
        elif request.kind == "typeText":
            self.text += request.text
        delivery = "hid" if request.policy == "foreground" else "ax"
        return ActionResult("worked", delivery, request.policy)

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        return TextSlice(self.text[offset : offset + limit], offset, len(self.text))

    async def close(self) -> None:
        return None


def windows_of(result: ToolResult) -> tuple[RootView, ...]:
    """The roots a find_roots result lists, as results name them."""
    assert isinstance(result.value, RootsFound), result.text
    return tuple(found.view for found in result.value.roots)
