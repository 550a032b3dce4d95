"""What every physical input shares: pointer gestures as points and counts, and its rules.

A drag is a path walked in small steps with a pause, so toolkits see real
motion rather than a jump; a scroll is a bounded number of wheel clicks per
axis; a point must lie inside the target's frame. ``ax_only`` and
``background`` send nothing physical, and what was sent proves nothing by
itself (``unknown`` until a read-back). X11 (XTEST) and Wayland (virtual
devices) send what this plans; it sends nothing itself (pure).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Awaitable, Callable, Iterator, Sequence

from actui.backends.base import NO_PHYSICAL_INPUT, ActionRequest, ActionResult, Rect
from actui.backends.evidence import verdict
from actui.errors import Undeliverable
from actui.refusals import Refused

Consumed = Callable[[int], Awaitable[bool]]
"""Awaited after each batch of keystrokes with how many characters have been sent so far;
True once the application shows them all (what was set up to type them may then go)."""
MAX_WHEEL_CLICKS = 100
DRAG_STEP_PX = 12
DRAG_STEP_S = 0.008
"""Drags move in small steps with a pause so toolkits see a real motion, not a jump."""


def required_point(request: ActionRequest) -> tuple[int, int]:
    """The step's point; :class:`Undeliverable` naming it when the step has none."""
    if request.point is None:
        raise Undeliverable(request.kind, "point")
    return request.point


def wheel_clicks(amount: tuple[int, int]) -> tuple[int, int]:
    """Wheel clicks (x, y) for a scroll amount, at most :data:`MAX_WHEEL_CLICKS` per axis."""
    dx, dy = amount
    return (min(MAX_WHEEL_CLICKS, math.ceil(abs(dx))), min(MAX_WHEEL_CLICKS, math.ceil(abs(dy))))


def drag_steps(path: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The path's points with intermediate points at most :data:`DRAG_STEP_PX` apart."""
    for (x0, y0), (x1, y1) in itertools.pairwise(path):
        count = max(1, math.ceil(max(abs(x1 - x0), abs(y1 - y0)) / DRAG_STEP_PX))
        for i in range(1, count + 1):
            yield (x0 + round((x1 - x0) * i / count), y0 + round((y1 - y0) * i / count))


def inside(frame: Rect, x: int, y: int) -> bool:
    return frame.x <= x < frame.x + frame.w and frame.y <= y < frame.y + frame.h


async def policy_refusal(
    request: ActionRequest,
    mechanism: str,
    active: Callable[[], Awaitable[int | None]],
    window_id: int,
    window: str,
) -> Refused | None:
    """Why ``request``'s policy forbids sending it as ``mechanism`` to ``window_id`` now.

    ``ax_only`` and ``background`` send no physical input; ``default`` sends it only to
    the window ``active()`` names, which it never activates (``window``: how messages
    name the target)."""
    if request.policy in NO_PHYSICAL_INPUT:
        return Refused(f"{request.kind} as {mechanism}", "physical", request.policy)
    if request.policy == "default" and await active() != window_id:
        return Refused(f"window {window} is not the active window", "activation", request.policy)
    return None


def physical_result(
    request: ActionRequest, mechanism: str, evidence: dict[str, object]
) -> ActionResult:
    """What can be said of physical input once sent: ``unknown`` until a read-back."""
    return ActionResult(
        outcome=verdict(effect=False, unchanged=False, readable=False),
        delivery="hid",
        policy=request.policy,
        mechanism=mechanism,
        evidence=evidence,
        reason="physical input was sent; only a read-back can show its effect",
    )
