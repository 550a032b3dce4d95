"""Physical delivery on sway: the policy gate, the preflight and the virtual devices.

The Wayland counterpart of :mod:`~actui.backends.x11.input`, with the same rules:
``ax_only`` and ``background`` send nothing physical; ``default`` sends only to
the focused window; ``foreground`` focuses it first (sway's own view of focus
confirms it). Before each burst of events the target must still be focused,
shown, and (for a point) the topmost window under that point inside its own
content. Events go through one virtual pointer and one virtual keyboard
(:mod:`~actui.backends.wayland.devices`), made once per backend on a worker
thread. Text is typed under keymaps that give each of its characters a key,
so any Unicode arrives as itself. Every outcome is ``unknown``: whether typed
text arrived is for the caller's ``consumed`` read-back to say.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from actui.backends.base import ActionRequest, ActionResult, Rect
from actui.backends.gestures import (
    DRAG_STEP_S,
    Consumed,
    drag_steps,
    inside,
    physical_result,
    policy_refusal,
    required_point,
    wheel_clicks,
)
from actui.backends.wayland import keymap
from actui.backends.wayland.devices import VirtualDevices
from actui.backends.wayland.screen import SwaySession
from actui.backends.wayland.wire import WaylandError
from actui.backends.x11.ewmh import XWindow
from actui.errors import (
    BackendUnavailable,
    CallTimeout,
    CoordinateBlocked,
    ForegroundRequired,
    UnsupportedAction,
    refusal_error,
)
from actui.refusals import Refused

MECHANISM = "wayland-virtual-input"


class WaylandInput:
    """Virtual pointer and keyboard delivery to the windows of one :class:`SwaySession`."""

    def __init__(self, session: SwaySession) -> None:
        self.session = session
        self._lock = asyncio.Lock()
        self._devices: VirtualDevices | None = None

    async def refusal(self, request: ActionRequest, window_id: int) -> Refused | None:
        """Why ``request``'s policy forbids sending it to ``window_id`` now, if it does."""
        active = self.session.active_window
        mechanism = "Wayland virtual input"
        return await policy_refusal(request, mechanism, active, window_id, str(window_id))

    async def deliver(
        self, request: ActionRequest, window_id: int, consumed: Consumed | None = None
    ) -> ActionResult:
        """Send ``request`` as virtual input to ``window_id``; the errors of the X11 sender."""
        lost = keymap.lost_by_keys(request.text, request.root.toolkit)
        if lost and request.kind in ("typeText", "setText"):
            raise UnsupportedAction(
                f"typing {lost!r} into {request.root.app_name}",
                "is not possible by keys: it reads a character outside the BMP truncated "
                "(U+1F600 arrives as U+F600), so nothing was sent",
                instead="page",
            )
        async with self._lock:
            refused = await self.refusal(request, window_id)
            if refused is not None:
                raise refusal_error(refused)
            if request.policy != "default" and not await self.session.activate(window_id):
                raise ForegroundRequired(
                    f"window {window_id} could not be focused (sway kept the focus elsewhere)"
                )
            sender = _Sender(self, window_id, time.monotonic() + request.timeout_s)
            evidence = await sender.operate(request, consumed)
        return physical_result(request, MECHANISM, evidence)

    async def devices(self) -> VirtualDevices:
        """The virtual devices, made on first use and kept (the seat keeps its capabilities)."""
        if self._devices is None:
            try:
                self._devices = await asyncio.to_thread(
                    VirtualDevices, self.session.wayland_display
                )
            except WaylandError as exc:
                raise BackendUnavailable(f"no Wayland virtual input: {exc}") from None
        return self._devices

    async def run(self, call: Callable[[VirtualDevices], None]) -> None:
        devices = await self.devices()
        try:
            await asyncio.to_thread(call, devices)
        except WaylandError as exc:
            self._devices = None
            raise BackendUnavailable(f"the Wayland virtual input failed: {exc}") from None

    async def close(self) -> None:
        if self._devices is not None:
            self._devices.close()
            self._devices = None


class _Sender:
    """One step's events, each burst preceded by the checks that make it safe."""

    def __init__(self, owner: WaylandInput, window_id: int, deadline: float) -> None:
        self.owner = owner
        self.session = owner.session
        self.window_id = window_id
        self.deadline = deadline
        self.events = 0
        self.frame = Rect(0, 0, 0, 0)

    async def guard(self, point: tuple[int, int] | None) -> None:
        """Refuse the next burst unless the target is focused, shown (and under ``point``)."""
        if time.monotonic() > self.deadline:
            raise CallTimeout(f"physical delivery ran out of time after {self.events} events.")
        windows = await self.session.windows()
        target = next((w for w in windows if w.window_id == self.window_id), None)
        if target is None or target.is_minimized:
            raise CoordinateBlocked(f"window {self.window_id} is not shown (gone or hidden).")
        self.frame = target.frame
        active = next((w.window_id for w in windows if w.is_active), None)
        if active != self.window_id:
            raise ForegroundRequired(
                f"window {self.window_id} stopped being the focused window (now "
                f"{active or 'none'}) after {self.events} events; nothing more was sent."
            )
        if point is not None:
            _preflight(windows, target, point)

    async def operate(self, request: ActionRequest, consumed: Consumed | None) -> dict[str, object]:
        kind = request.kind
        base: dict[str, object] = {"mechanism": MECHANISM, "windowId": self.window_id}
        found: dict[str, object]
        if kind in ("click", "press"):
            point = required_point(request)
            count = min(3, max(1, request.click_count))
            await self.click(point, request.button, count)
            found = {"point": list(point), "button": request.button, "clickCount": count}
        elif kind == "moveMouse":
            point = required_point(request)
            await self.guard(point)
            await self.send(lambda d: d.move(*point, *self.screen()), 1)
            found = {"point": list(point)}
        elif kind == "scroll":
            await self.guard(None)
            point = request.point or self.frame.center
            found = {"point": list(point), "wheelClicks": list(await self.scroll(point, request))}
        elif kind == "drag":
            await self.drag(request.path)
            found = {"path": [list(p) for p in request.path]}
        elif kind == "keypress":
            await self.guard(None)
            batch = keymap.plan_chord(request.keys)
            await self.send(lambda d: d.strokes(batch, chord=True), 2 * len(batch.keys))
            found = {"keys": [k if len(k) > 1 else "<char>" for k in request.keys]}
        elif kind in ("setText", "typeText"):
            found = await self.type(request, consumed)
        else:
            raise UnsupportedAction(kind, "has no physical (virtual input) form", instead="ref")
        return {**base, "events": self.events, **found}

    def screen(self) -> tuple[int, int]:
        """The extent absolute motion is relative to: the whole output layout."""
        return self.session.extent

    async def send(self, call: Callable[[VirtualDevices], None], events: int) -> None:
        await self.owner.run(call)
        self.events += events

    async def click(self, point: tuple[int, int], button: str, count: int) -> None:
        await self.guard(point)
        width, height = self.screen()

        def clicks(devices: VirtualDevices) -> None:
            devices.move(*point, width, height)
            for _ in range(count):
                devices.button(button, True)
                devices.button(button, False)
            devices.sync()

        await self.send(clicks, 1 + 2 * count)

    async def scroll(self, point: tuple[int, int], request: ActionRequest) -> tuple[int, int]:
        dx, dy = request.scroll
        clicks_x, clicks_y = wheel_clicks(request.scroll)
        await self.guard(point)
        width, height = self.screen()

        def wheel(devices: VirtualDevices) -> None:
            devices.move(*point, width, height)
            if clicks_y:
                devices.wheel(0, clicks_y if dy > 0 else -clicks_y)
            if clicks_x:
                devices.wheel(1, clicks_x if dx > 0 else -clicks_x)
            devices.sync()

        await self.send(wheel, 1 + bool(clicks_x) + bool(clicks_y))
        return (clicks_x, clicks_y)

    async def drag(self, path: Sequence[tuple[int, int]]) -> None:
        for point in path:
            await self.guard(point)
        width, height = self.screen()
        steps = list(drag_steps(path))

        def dragging(devices: VirtualDevices) -> None:
            devices.move(*path[0], width, height)
            devices.button("left", True)
            try:
                for point in steps:
                    time.sleep(DRAG_STEP_S)
                    devices.move(*point, width, height)
            finally:
                time.sleep(DRAG_STEP_S)
                devices.button("left", False)
                devices.sync()

        await self.send(dragging, 3 + len(steps))

    async def type(self, request: ActionRequest, consumed: Consumed | None) -> dict[str, object]:
        """Type the text (``setText``: over the field's whole text, selected first)."""
        placed: dict[str, object] = {}
        if request.kind == "setText":
            if request.point is not None:
                await self.click(request.point, "left", 1)
                placed = {"point": list(request.point)}
            await self.guard(None)
            select_all = keymap.plan_chord(["ctrl", "a"])
            await self.send(lambda d: d.strokes(select_all, chord=True), 4)
        batches = keymap.plan_text(request.text)
        await self.guard(None)

        def typing(devices: VirtualDevices) -> None:
            for batch in batches:
                devices.strokes(batch)
            devices.sync()

        await self.send(typing, sum(2 * len(batch.keys) for batch in batches))
        if consumed is not None:
            await consumed(len(request.text))
        return {**placed, "chars": len(request.text), "keymaps": len(batches)}


def _preflight(windows: Sequence[XWindow], target: XWindow, point: tuple[int, int]) -> None:
    x, y = point
    if not inside(target.frame, x, y):
        frame = target.frame
        raise CoordinateBlocked(
            f"point ({x}, {y}) is outside window {target.window_id} at "
            f"{frame.x},{frame.y} {frame.w}×{frame.h}."
        )
    above = next(
        (
            w
            for w in windows
            if w.z_order < target.z_order and not w.is_minimized and inside(w.frame, x, y)
        ),
        None,
    )
    if above is not None:
        raise CoordinateBlocked(
            f"point ({x}, {y}) is occluded: the window there is {above.window_id} "
            f"({above.title!r}), not {target.window_id}."
        )
