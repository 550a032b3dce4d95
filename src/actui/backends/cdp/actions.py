"""Delivering one ``ActionRequest`` to a page and judging its outcome from read-back evidence.

Each action kind is one function: deliver through CDP input or a page-side
function, then read back (value, checked state, scroll position, focus, or
the page's change counters) and say ``worked`` / ``didnt`` / ``unknown``.
Typed text is never echoed into evidence for password fields. This module
must not build trees or manage connections.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from actui.backends.base import ActionRequest, ActionResult, Outcome
from actui.backends.cdp import dom
from actui.backends.cdp.input import key_events, mouse_events, parse_chord
from actui.backends.cdp.page import PageSession
from actui.errors import InvalidParams, UnsupportedAction

SETTLE_S = 0.3
"""How long a step without a direct read-back waits for the page to react."""
PAGE_KINDS = ("m", "n", "i")
"""Change kinds that show a page reacted: mutation, navigation, input/change."""

Handler = Callable[[PageSession, ActionRequest], Awaitable[ActionResult]]


def result(
    request: ActionRequest, outcome: Outcome, evidence: Mapping[str, object], reason: str = ""
) -> ActionResult:
    return ActionResult(
        outcome=outcome,
        delivery="pid",
        policy=request.policy,
        mechanism="cdp",
        evidence=dict(evidence),
        reason=reason,
    )


async def perform(session: PageSession, request: ActionRequest) -> ActionResult:
    handler = _HANDLERS.get(request.kind)
    if handler is None:
        raise UnsupportedAction(f"{request.kind} is not supported on browser pages.")
    try:
        return await handler(session, request)
    finally:
        if not session.gone:
            await dom.release(session.conn)


async def _settled(session: PageSession, kinds: Iterable[str], timeout_s: float) -> dict[str, int]:
    """Wait (event-driven) until one of ``kinds`` is counted again; the increments seen."""
    wanted = tuple(kinds)
    before = dict(session.counts)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    mark = session.mark
    while True:
        grown = {k: session.counts[k] - before.get(k, 0) for k in wanted}
        if any(grown.values()) or session.gone:
            return {k: v for k, v in grown.items() if v}
        remaining = deadline - loop.time()
        if remaining <= 0:
            return {}
        mark = await session.wait_for_change(mark, remaining)


class _Watch:
    """Counts taken before delivery, compared after (so early events are not lost)."""

    def __init__(self, session: PageSession) -> None:
        self._session = session
        self._before = dict(session.counts)

    async def changes(self, kinds: Iterable[str] = PAGE_KINDS) -> dict[str, int]:
        wanted = tuple(kinds)
        grown = self._grown(wanted)
        if not grown:
            await _settled(self._session, wanted, SETTLE_S)
            grown = self._grown(wanted)
        return grown

    def _grown(self, kinds: tuple[str, ...]) -> dict[str, int]:
        counts = self._session.counts
        return {
            k: counts[k] - self._before.get(k, 0)
            for k in kinds
            if counts[k] > self._before.get(k, 0)
        }


def _page_outcome(request: ActionRequest, grown: Mapping[str, int], what: str) -> ActionResult:
    evidence: dict[str, object] = {"pageChanges": dict(grown)}
    if grown:
        return result(request, "worked", evidence)
    return result(
        request, "unknown", evidence, f"{what} was delivered; no page change within {SETTLE_S} s"
    )


async def _dispatch_mouse(session: PageSession, events: Iterable[Mapping[str, object]]) -> None:
    for event in events:
        await session.conn.send("Input.dispatchMouseEvent", dict(event))


async def _target_point(session: PageSession, node: int) -> tuple[float, float] | None:
    """Scroll the node into view and return its centre in viewport CSS pixels."""
    conn = session.conn
    await conn.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": node})
    quads = (await conn.send("DOM.getContentQuads", {"backendNodeId": node})).get("quads", [])
    for quad in quads:
        xs, ys = quad[0::2], quad[1::2]
        if max(xs) - min(xs) >= 1 and max(ys) - min(ys) >= 1:
            return (sum(xs) / 4, sum(ys) / 4)
    return None


async def _click_node(session: PageSession, request: ActionRequest) -> dict[str, object]:
    """A real mouse click at the node's centre, or DOM ``click()`` when it has no box."""
    node = dom.backend_id(_require_target(request))
    point = await _target_point(session, node)
    if point is None:
        object_id = await dom.resolve(session.conn, node)
        await dom.call(session.conn, object_id, dom.CLICK)
        return {"via": "dom.click"}
    events = mouse_events(
        point[0], point[1], button=request.button, click_count=max(1, request.click_count)
    )
    await _dispatch_mouse(session, events)
    return {"via": "mouse", "x": round(point[0]), "y": round(point[1])}


async def _press(session: PageSession, request: ActionRequest) -> ActionResult:
    watch = _Watch(session)
    if request.target is None:
        point = _require_point(request)
        events = mouse_events(
            *point, button=request.button, click_count=max(1, request.click_count)
        )
        await _dispatch_mouse(session, events)
        delivered: dict[str, object] = {"via": "mouse", "x": point[0], "y": point[1]}
    else:
        delivered = await _click_node(session, request)
    outcome = _page_outcome(request, await watch.changes(), "the click")
    return result(request, outcome.outcome, {**delivered, **outcome.evidence}, outcome.reason)


async def _write_text(session: PageSession, request: ActionRequest) -> ActionResult:
    replace = request.kind == "setText"
    if request.target is None:
        if replace:
            raise InvalidParams("ref", "setText needs a target element.")
        return await _type_into_focus(session, request)
    node = dom.backend_id(request.target)
    await session.conn.send("DOM.focus", {"backendNodeId": node})
    object_id = await dom.resolve(session.conn, node)
    prepared = await dom.call(session.conn, object_id, dom.PREPARE_TEXT, replace)
    if not prepared.get("editable"):
        return result(request, "didnt", {"editable": False}, "the element does not take text")
    if request.text:
        await session.conn.send("Input.insertText", {"text": request.text})
    elif replace:
        await _press_keys(session, ("Delete",))
    check = await dom.call(session.conn, object_id, dom.FINISH_TEXT, request.text, replace)
    evidence: dict[str, object] = {"length": check["length"], "matches": check["matches"]}
    if not check["secure"]:
        evidence["value"] = check["value"]
    if check["matches"]:
        return result(request, "worked", evidence)
    if check["unchanged"]:
        return result(request, "didnt", evidence, "the field's text did not change")
    return result(request, "unknown", evidence, "the field changed but holds other text")


async def _type_into_focus(session: PageSession, request: ActionRequest) -> ActionResult:
    before = await _focused_text(session)
    if not before.get("editable"):
        return result(request, "didnt", {"editable": False}, "no editable element has focus")
    await session.conn.send("Input.insertText", {"text": request.text})
    after = await _focused_text(session)
    grew = after.get("length", 0) - before.get("length", 0)
    evidence: dict[str, object] = {"length": after.get("length", 0)}
    if not after.get("secure"):
        evidence["value"] = str(after.get("value", ""))[:200]
    if grew == len(request.text) and (
        after.get("secure") or request.text in str(after.get("value", ""))
    ):
        return result(request, "worked", evidence)
    if grew == 0 and after.get("value") == before.get("value"):
        return result(request, "didnt", evidence, "the focused field did not change")
    return result(request, "unknown", evidence, "the focused field changed differently")


async def _focused_text(session: PageSession) -> dict[str, Any]:
    reply = await session.conn.send(
        "Runtime.evaluate",
        {"expression": f"({dom.FOCUSED_TEXT}).call(null)", "returnByValue": True},
    )
    value = reply.get("result", {}).get("value")
    return value if isinstance(value, dict) else {}


async def _press_keys(session: PageSession, keys: tuple[str, ...]) -> None:
    for event in key_events(parse_chord(keys)):
        await session.conn.send("Input.dispatchKeyEvent", event)


async def _keypress(session: PageSession, request: ActionRequest) -> ActionResult:
    chord = parse_chord(request.keys)
    if request.target is not None:
        await session.conn.send("DOM.focus", {"backendNodeId": dom.backend_id(request.target)})
    watch = _Watch(session)
    for event in key_events(chord):
        await session.conn.send("Input.dispatchKeyEvent", event)
    outcome = _page_outcome(request, await watch.changes((*PAGE_KINDS, "f", "s", "c")), "the keys")
    return result(
        request, outcome.outcome, {"keys": list(request.keys), **outcome.evidence}, outcome.reason
    )


async def _toggle(session: PageSession, request: ActionRequest) -> ActionResult:
    node = dom.backend_id(_require_target(request))
    object_id = await dom.resolve(session.conn, node)
    before = await dom.call(session.conn, object_id, dom.CHECKED)
    delivered = await _click_node(session, request)
    after = await dom.call(session.conn, object_id, dom.CHECKED)
    evidence = {**delivered, "before": before, "after": after}
    if before == after == "none":
        return result(request, "unknown", evidence, "the element has no checked state to read")
    if before != after:
        return result(request, "worked", evidence)
    return result(request, "didnt", evidence, "the checked state did not change")


async def _select(session: PageSession, request: ActionRequest) -> ActionResult:
    node = dom.backend_id(_require_target(request))
    object_id = await dom.resolve(session.conn, node)
    chosen = await dom.call(session.conn, object_id, dom.SELECT_OPTION, request.text)
    if not chosen.get("native"):
        return await _press(session, request)
    if not chosen.get("found"):
        return result(request, "didnt", {"found": False}, f"no option matches {request.text!r}")
    evidence = {k: chosen[k] for k in ("value", "label", "changed")}
    return result(request, "worked" if chosen.get("selected") else "didnt", evidence)


async def _focus(session: PageSession, request: ActionRequest) -> ActionResult:
    node = dom.backend_id(_require_target(request))
    await session.conn.send("DOM.focus", {"backendNodeId": node})
    object_id = await dom.resolve(session.conn, node)
    focused = bool(await dom.call(session.conn, object_id, dom.IS_FOCUSED))
    return result(request, "worked" if focused else "didnt", {"focused": focused})


async def _scroll(session: PageSession, request: ActionRequest) -> ActionResult:
    dx, dy = request.scroll
    if request.target is None and request.point is not None:
        watch = _Watch(session)
        x, y = request.point
        await session.conn.send(
            "Input.dispatchMouseEvent",
            {"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy},
        )
        grown = await watch.changes(("s",))
        return _page_outcome(request, grown, "the wheel")
    if request.target is not None:
        object_id = await dom.resolve(session.conn, dom.backend_id(request.target))
        moved = await dom.call(session.conn, object_id, dom.SCROLL_BY, dx, dy)
    else:
        reply = await session.conn.send(
            "Runtime.evaluate",
            {"expression": f"({dom.SCROLL_BY}).call(document, {dx}, {dy})", "returnByValue": True},
        )
        moved = reply.get("result", {}).get("value", {})
    evidence = {"before": moved.get("before"), "after": moved.get("after")}
    if moved.get("before") != moved.get("after"):
        return result(request, "worked", evidence)
    return result(request, "didnt", evidence, "the scroll position did not change")


async def _drag(session: PageSession, request: ActionRequest) -> ActionResult:
    if len(request.path) < 2:
        raise InvalidParams("path", "a drag needs at least two points.")
    watch = _Watch(session)
    (x0, y0), *rest = request.path
    events: list[dict[str, object]] = [
        {"type": "mouseMoved", "x": x0, "y": y0},
        {"type": "mousePressed", "x": x0, "y": y0, "button": "left", "buttons": 1, "clickCount": 1},
    ]
    events += [
        {"type": "mouseMoved", "x": x, "y": y, "button": "left", "buttons": 1} for x, y in rest
    ]
    x1, y1 = rest[-1]
    events.append({"type": "mouseReleased", "x": x1, "y": y1, "button": "left", "clickCount": 1})
    await _dispatch_mouse(session, events)
    return _page_outcome(request, await watch.changes(), "the drag")


async def _move_mouse(session: PageSession, request: ActionRequest) -> ActionResult:
    x, y = _require_point(request)
    await session.conn.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
    return result(request, "unknown", {"x": x, "y": y}, "the pointer position cannot be read back")


async def _set_value(session: PageSession, request: ActionRequest) -> ActionResult:
    node = dom.backend_id(_require_target(request))
    if request.value is None:
        raise InvalidParams("value", "setValue needs a number.")
    object_id = await dom.resolve(session.conn, node)
    done = await dom.call(session.conn, object_id, dom.SET_NUMBER, request.value)
    if not done.get("native"):
        raise UnsupportedAction("setValue works on range and number inputs only; use keys.")
    evidence = {"before": done["before"], "after": done["after"]}
    if done["matches"]:
        return result(request, "worked", evidence)
    outcome: Outcome = "didnt" if done["before"] == done["after"] else "unknown"
    return result(request, outcome, evidence, "the value differs from the one asked for")


def _require_target(request: ActionRequest) -> str:
    if request.target is None:
        raise InvalidParams("ref", f"{request.kind} needs a target element.")
    return request.target


def _require_point(request: ActionRequest) -> tuple[int, int]:
    if request.point is None:
        raise InvalidParams("x", f"{request.kind} needs a target element or a point.")
    return request.point


_HANDLERS: dict[str, Handler] = {
    "press": _press,
    "click": _press,
    "setText": _write_text,
    "typeText": _write_text,
    "keypress": _keypress,
    "toggle": _toggle,
    "select": _select,
    "focus": _focus,
    "scroll": _scroll,
    "drag": _drag,
    "moveMouse": _move_mouse,
    "setValue": _set_value,
}
