"""The Linux desktop backend: AT-SPI for semantics, X11 for the physical side.

AT-SPI delivers everything it can without focus or pointer. A request the
runtime sends with the ``foreground`` (or ``default``) policy needs physical
input and goes to XTEST; keyboard input aimed at an element first gets that
element focused semantically, so the keys land where the agent meant, and a
physical Enter waits (briefly) for the default button it activates to be
enabled, and a click aimed at an element for that element, as a person would.
Text typed into an element ends its step only once that element shows it (or
a budget passes): keys reach a web page later than the next call. Roots
are AT-SPI's, enriched with their X11 windows (id, stacking, activation).
This module only composes; each half owns its platform.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace

from actui.backends.atspi.backend import AtspiBackend
from actui.backends.base import (
    ActionRequest,
    ActionResult,
    Backend,
    Image,
    RootInfo,
    Snapshot,
    TextSlice,
)
from actui.backends.procfs import started_by
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.input import X11Input
from actui.backends.x11.pairing import pair_windows
from actui.backends.x11.session import X11Session
from actui.errors import ActuiError, CoordinateBlocked

_PHYSICAL_POLICIES = ("foreground", "default")
_ENTER = (["return"], ["enter"])


class LinuxBackend(Backend):
    name = "linux"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.atspi = AtspiBackend(env=env)
        display = (env or {}).get("DISPLAY", "")
        self._x11 = X11Session(display) if display else None
        self._input = X11Input(self._x11) if self._x11 else None
        self._x11_started = False
        self._x11_starting = asyncio.Lock()

    async def _session(self) -> X11Session | None:
        """The X11 session, started once even when several calls arrive together."""
        if self._x11 is not None and not self._x11_started:
            async with self._x11_starting:
                if not self._x11_started:
                    await self._x11.start()
                    self._x11_started = True
        return self._x11

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        """AT-SPI's roots paired with X11's windows, both listed at once."""
        roots, windows = await asyncio.gather(self.atspi.list_roots(pid), self._windows())
        return roots if windows is None else pair_windows(roots, windows)

    async def _windows(self) -> list[XWindow] | None:
        """The X11 window listing; None without a display or when it fails (roots stay unpaired)."""
        x11 = await self._session()
        if x11 is None:
            return None
        try:
            return await x11.windows()
        except ActuiError:
            return None

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        return await self.atspi.snapshot(root, max_nodes=max_nodes, max_depth=max_depth)

    async def capture(self, root: RootInfo, *, max_dimension: int) -> Image | None:
        x11 = await self._session()
        if x11 is None or not root.window_id:
            return None
        shot = await x11.capture(root.window_id, max_dimension=max_dimension)
        return Image(shot.png, shot.width, shot.height, shot.scale, shot.source, shot.warnings)

    async def act(self, request: ActionRequest) -> ActionResult:
        if request.policy not in _PHYSICAL_POLICIES:
            return await self.atspi.act(request)
        window_id = request.root.window_id
        if self._input is None or not window_id:
            raise CoordinateBlocked(
                "physical input needs an X11 window for this root, and none is known."
            )
        await self._session()
        aimed = request
        before = await self.atspi.text_before_typing(request)
        if request.target is not None and request.kind in ("typeText", "keypress", "setText"):
            focused = await self.atspi.act(replace(request, kind="focus", policy="background"))
            if focused.outcome == "didnt":
                raise CoordinateBlocked(
                    "the target could not be focused, so typed keys would land elsewhere; "
                    "click it first or act on a focusable element."
                )
            request = replace(request, target=None)
        if request.kind == "keypress" and [k.lower() for k in request.keys] in _ENTER:
            await self.atspi.until_default_enabled(request.root)
        refusal = await self.atspi.refusal_if_disabled(request)
        if refusal is not None:
            return refusal
        result = await self._input.deliver(request, window_id)
        self.atspi.note_input(request.root)  # GTK4's events lag physical input too
        if before is not None:
            result = await self.atspi.read_back_typing(aimed, before, result)
        return result

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        return await self.atspi.read_text(root, node_id, offset, limit)

    def change_mark(self, root: RootInfo) -> int:
        return self.atspi.change_mark(root)

    async def wait_for_change(self, root: RootInfo, since: int, timeout_s: float) -> int:
        return await self.atspi.wait_for_change(root, since, timeout_s)

    def waits_are_event_driven(self, root: RootInfo) -> bool:
        return self.atspi.waits_are_event_driven(root)

    def settle_quiet_s(self, root: RootInfo) -> float | None:
        return self.atspi.settle_quiet_s(root)

    def notices(self) -> list[str]:
        return self.atspi.notices()

    def started_processes(self, root: RootInfo, since: float) -> list[int]:
        return started_by(root.pid, since) if root.pid > 0 else []

    async def close(self) -> None:
        await self.atspi.close()
        if self._input is not None:
            await self._input.close()
        if self._x11 is not None:
            await self._x11.close()
