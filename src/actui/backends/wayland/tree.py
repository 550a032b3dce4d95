"""Sway's window tree as the desktop's window list (pure).

``get_tree`` nests outputs, workspaces and containers; the windows are its
leaves that carry a ``pid``. A window's content sits at ``rect`` (the
container, decorations excluded above it) plus ``window_rect`` (the surface
inside it): AT-SPI extents on Wayland are local to that surface, so this is
the origin that puts them on the screen. Floating windows are stacked in
their workspace's ``floating_nodes`` order (last on top) above the tiled ones;
windows sway does not show (another workspace, the scratchpad) count as minimized. It must
stay free of I/O so it can be property-tested.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from actui.backends.base import Rect
from actui.backends.x11.ewmh import XWindow

SCRATCHPAD = "__i3_scratch"


def windows_of(tree: Mapping[str, Any]) -> list[XWindow]:
    """Every window in ``tree``, topmost first (``z_order`` 0): visible floating windows
    (the last drawn first), then visible tiled ones, then hidden ones."""
    found = sorted(_views(tree, [0]), key=lambda v: (v.hidden, not v.floating, -v.order))
    return [_window(v.node, z, v.hidden) for z, v in enumerate(found)]


@dataclass(frozen=True)
class _View:
    node: Mapping[str, Any]
    hidden: bool
    floating: bool
    order: int


def _views(
    node: Mapping[str, Any], counter: list[int], *, hidden: bool = False, floating: bool = False
) -> Iterator[_View]:
    """The windows under ``node`` in drawing order (``counter`` numbers them)."""
    if node.get("type") == "workspace":
        hidden = hidden or node.get("name") == SCRATCHPAD
    if isinstance(node.get("pid"), int) and node.get("type") in ("con", "floating_con"):
        counter[0] += 1
        yield _View(node, hidden or node.get("visible") is False, floating, counter[0])
    for child in node.get("nodes") or ():
        yield from _views(child, counter, hidden=hidden, floating=floating)
    for child in node.get("floating_nodes") or ():
        yield from _views(child, counter, hidden=hidden, floating=True)


def content_frame(view: Mapping[str, Any]) -> Rect:
    """Where the window's surface is on the screen: ``rect`` + ``window_rect``."""
    rect = view.get("rect") or {}
    inner = view.get("window_rect") or {}
    return Rect(
        int(rect.get("x", 0)) + int(inner.get("x", 0)),
        int(rect.get("y", 0)) + int(inner.get("y", 0)),
        int(inner.get("width", rect.get("width", 0))),
        int(inner.get("height", rect.get("height", 0))),
    )


def _window(view: Mapping[str, Any], z_order: int, hidden: bool) -> XWindow:
    app_id = str(view.get("app_id") or "")
    return XWindow(
        window_id=int(view.get("id", 0)),
        pid=int(view.get("pid", 0)),
        title=str(view.get("name") or ""),
        wm_class=(app_id, app_id),
        frame=content_frame(view),
        frame_extents=(0, 0, 0, 0),
        z_order=z_order,
        is_active=bool(view.get("focused")),
        is_minimized=hidden,
        is_modal=False,
        transient_for=None,
    )


def layout_size(tree: Mapping[str, Any]) -> tuple[int, int]:
    """The output layout's width and height (the root's rect), at least 1×1."""
    rect = tree.get("rect") or {}
    return (max(1, int(rect.get("width", 1))), max(1, int(rect.get("height", 1))))
