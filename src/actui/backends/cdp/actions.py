"""Delivering one ``ActionRequest`` to a page and judging its outcome from read-back evidence.

Each action kind is one function: deliver through CDP input or a page-side
function, then read back (value, checked state, scroll position, focus, or
the page's change counters); what the readings mean, and how long the page is
given to react, is ``evidence``'s. Typed text is never echoed into evidence for
password fields. This module must not build trees or manage connections.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping

from actui.backends.base import ActionRequest, ActionResult, JsonObject, Outcome
from actui.backends.cdp import dom
from actui.backends.cdp.dialog import ACCEPT_ID, DISMISS_ID, PROMPT_ID
from actui.backends.cdp.input import key_events, mouse_events, parse_chord
from actui.backends.cdp.page import Element, PageSession
from actui.backends.evidence import SETTLE_S, explain, judge, settle, verdict
from actui.backends.reads import int_of, list_of, numbers, numbers_of, obj_of
from actui.errors import DialogOpen, Undeliverable, UnsupportedAction

PAGE_KINDS = ("m", "n", "i", "d")
"""Change kinds that show a page reacted: mutation, navigation, input/change, dialog."""
MAX_VALUE_KEYS = 200
"""Arrow keys a setValue on an ARIA slider may press before it gives up."""
_REACTIONS = frozenset({"press", "click", "keypress"})
"""Kinds for which a dialog opening during delivery is the page reacting."""

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
    if session.dialog is not None:
        return await _answer_dialog(session, request)
    handler = _HANDLERS.get(request.kind)
    if handler is None:
        raise UnsupportedAction(request.kind, "is not supported on browser pages")
    try:
        return await handler(session, request)
    except DialogOpen:
        # The step made the page open a dialog, which blocks it: the step's own
        # read-back cannot run, but the dialog is the page's answer.
        if session.dialog is None:
            raise
        # the dialog is the page's answer to a press or a key; to anything else it proves nothing
        outcome = verdict(effect=request.kind in _REACTIONS, unchanged=False)
        evidence = {"dialog": {"type": session.dialog.kind, "message": session.dialog.message}}
        return result(request, outcome, evidence, f"the page opened {session.dialog.describe()}")
    finally:
        await session.release()


async def _answer_dialog(session: PageSession, request: ActionRequest) -> ActionResult:
    """While a dialog is open, only its own controls (and Enter/Escape) act."""
    dialog = session.dialog
    assert dialog is not None
    accept: bool | None = None
    if request.kind in ("press", "click", "focus") and request.target in (ACCEPT_ID, DISMISS_ID):
        if request.kind == "focus":
            return result(request, "worked", {"focused": True})
        accept = request.target == ACCEPT_ID
    elif request.kind == "keypress" and request.target in (None, ACCEPT_ID, DISMISS_ID, PROMPT_ID):
        key = parse_chord(request.keys).main
        accept = {"Enter": True, "Escape": False}.get(key.key if key else "")
    elif request.kind in ("setText", "typeText") and request.target == PROMPT_ID:
        dialog.prompt_text = (
            request.text if request.kind == "setText" else (dialog.prompt_text + request.text)
        )
        return result(request, "worked", {"value": dialog.prompt_text[:200]})
    if accept is None:
        raise DialogOpen(dialog.describe())
    evidence: dict[str, object] = {"dialog": dialog.kind, "accepted": accept}
    closed = await session.answer_dialog(accept)
    outcome = verdict(effect=closed, unchanged=False)
    return result(request, outcome, evidence, "" if closed else "the dialog did not report closing")


class _Watch:
    """Counts taken before delivery, compared after (so early events are not lost)."""

    def __init__(self, session: PageSession) -> None:
        self._session = session
        self._before = dict(session.counts)

    async def changes(self, kinds: Iterable[str] = PAGE_KINDS) -> dict[str, int]:
        """The counts of ``kinds`` grown since delivery, once one grew (or the page went)
        or the settle window passed."""
        wanted = tuple(kinds)
        session = self._session
        mark = session.mark

        async def grown_or_gone() -> bool:
            return bool(self._grown(wanted)) or session.gone

        async def wake(left: float) -> None:
            nonlocal mark
            mark = await session.wait_for_change(mark, left)

        await settle(grown_or_gone, wake, SETTLE_S)
        return self._grown(wanted)

    def _grown(self, kinds: tuple[str, ...]) -> dict[str, int]:
        counts = self._session.counts
        return {
            k: counts[k] - self._before.get(k, 0)
            for k in kinds
            if counts[k] > self._before.get(k, 0)
        }


def _page_outcome(request: ActionRequest, grown: Mapping[str, int], what: str) -> ActionResult:
    """A step with no reading of its own: the page reacting is its effect; silence proves
    nothing."""
    evidence: dict[str, object] = {"pageChanges": dict(grown)}
    outcome = judge({}, dict(grown), bool, effect_named=False)
    reason = "" if grown else f"{what} was delivered; no page change within {SETTLE_S} s"
    return result(request, outcome, evidence, reason)


async def _dispatch_mouse(session: PageSession, events: Iterable[Mapping[str, object]]) -> None:
    for event in events:
        await session.conn.send("Input.dispatchMouseEvent", dict(event))


async def _click_point(session: PageSession, el: Element) -> dict[str, object]:
    """Where to click ``el`` in page pixels, after scrolling it into view.

    ``point`` is absent when the element has no box or every sampled point of
    it is covered by another element; ``coveredBy`` names what is on top.
    """
    await el.channel.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": el.node})
    object_id = await dom.resolve(el.channel, el.node)
    picked = await dom.call(el.channel, object_id, dom.PICK_POINT)
    if not picked.get("box"):
        return {}
    found: dict[str, object] = {"covered": bool(picked.get("covered"))}
    if picked.get("covered"):
        found["coveredBy"] = picked.get("coveredBy")
    point = numbers_of(picked, "point")
    if len(point) != 2:
        return found
    # The element's frame may be offset from the page; its first box in page
    # coordinates (content quads) against the same box in its own viewport.
    reply = await el.channel.send("DOM.getContentQuads", {"backendNodeId": el.node})
    quads = list_of(reply, "quads")
    shift_x = shift_y = 0.0
    if quads:
        quad = numbers(quads[0])
        rect_x, rect_y = numbers_of(picked, "rect", required=True)[:2]
        shift_x = min(quad[0::2]) - rect_x
        shift_y = min(quad[1::2]) - rect_y
    found["point"] = (point[0] + shift_x + el.offset[0], point[1] + shift_y + el.offset[1])
    return found


async def _click_node(session: PageSession, request: ActionRequest) -> dict[str, object]:
    """A real mouse click on a visible point of the node, else DOM ``click()``.

    The point is hit-tested first: a click at the centre of a covered element
    would land on whatever covers it.
    """
    el = await session.element(_require_target(request))
    picked = await _click_point(session, el)
    point = picked.pop("point", None)
    if not isinstance(point, tuple):
        object_id = await dom.resolve(el.channel, el.node)
        await dom.call(el.channel, object_id, dom.CLICK)
        why = "covered by " + str(picked.get("coveredBy")) if picked else "it has no box"
        return {"via": "dom.click", "reason": f"no visible point to click: {why}"}
    x, y = point
    events = mouse_events(x, y, button=request.button, click_count=max(1, request.click_count))
    await _dispatch_mouse(session, events)
    return {"via": "mouse", "x": round(x), "y": round(y), **picked}


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
            raise Undeliverable(request.kind, "target")
        return await _type_into_focus(session, request)
    el = await session.element(request.target)
    await el.channel.send("DOM.focus", {"backendNodeId": el.node})
    object_id = await dom.resolve(el.channel, el.node)
    prepared = await dom.call(el.channel, object_id, dom.PREPARE_TEXT, replace)
    if not prepared.get("editable"):
        return result(request, "didnt", {"editable": False}, "the element does not take text")
    if request.text:
        await session.conn.send("Input.insertText", {"text": request.text})
    elif replace:
        await _press_keys(session, ("Delete",))
    check = await dom.call(el.channel, object_id, dom.FINISH_TEXT, request.text, replace)
    evidence: dict[str, object] = {"length": check["length"], "matches": check["matches"]}
    if not check["secure"]:
        evidence["value"] = check["value"]
    outcome = verdict(effect=bool(check["matches"]), unchanged=bool(check["unchanged"]))
    reason = explain(
        outcome,
        didnt="the field's text did not change",
        unknown="the field changed but holds other text",
    )
    return result(request, outcome, evidence, reason)


async def _type_into_focus(session: PageSession, request: ActionRequest) -> ActionResult:
    before = await _focused_text(session)
    if not before.get("editable"):
        return result(request, "didnt", {"editable": False}, "no editable element has focus")
    await session.conn.send("Input.insertText", {"text": request.text})
    after = await _focused_text(session)
    grew = int_of(after, "length", 0) - int_of(before, "length", 0)
    evidence: dict[str, object] = {"length": int_of(after, "length", 0)}
    if not after.get("secure"):
        evidence["value"] = str(after.get("value", ""))[:200]
    outcome = verdict(
        effect=grew == len(request.text)
        and bool(after.get("secure") or request.text in str(after.get("value", ""))),
        unchanged=grew == 0 and after.get("value") == before.get("value"),
    )
    reason = explain(
        outcome,
        didnt="the focused field did not change",
        unknown="the focused field changed differently",
    )
    return result(request, outcome, evidence, reason)


async def _focused_text(session: PageSession) -> JsonObject:
    reply = await session.conn.send(
        "Runtime.evaluate",
        {"expression": f"({dom.FOCUSED_TEXT}).call(null)", "returnByValue": True},
    )
    return obj_of(obj_of(reply, "result"), "value")


async def _press_keys(session: PageSession, keys: tuple[str, ...]) -> None:
    """Keys to the page; the browser routes them to the focused element of any frame."""
    for event in key_events(parse_chord(keys)):
        await session.conn.send("Input.dispatchKeyEvent", event)


async def _keypress(session: PageSession, request: ActionRequest) -> ActionResult:
    parse_chord(request.keys)
    if request.target is not None:
        el = await session.element(request.target)
        await el.channel.send("DOM.focus", {"backendNodeId": el.node})
    watch = _Watch(session)
    await _press_keys(session, request.keys)
    outcome = _page_outcome(request, await watch.changes((*PAGE_KINDS, "f", "s", "c")), "the keys")
    return result(
        request, outcome.outcome, {"keys": list(request.keys), **outcome.evidence}, outcome.reason
    )


async def _toggle(session: PageSession, request: ActionRequest) -> ActionResult:
    el = await session.element(_require_target(request))
    object_id = await dom.resolve(el.channel, el.node)
    before = await dom.call_text(el.channel, object_id, dom.CHECKED)
    delivered = await _click_node(session, request)
    after = await dom.call_text(el.channel, object_id, dom.CHECKED)
    evidence = {**delivered, "before": before, "after": after}
    readable = not before == after == "none"
    outcome = judge(before, after, lambda now: now != before, readable=readable)
    reason = explain(
        outcome,
        didnt="the checked state did not change",
        unknown="the element has no checked state to read",
    )
    return result(request, outcome, evidence, reason)


async def _select(session: PageSession, request: ActionRequest) -> ActionResult:
    el = await session.element(_require_target(request))
    object_id = await dom.resolve(el.channel, el.node)
    chosen = await dom.call(el.channel, object_id, dom.SELECT_OPTION, request.text)
    if not chosen.get("native"):
        return await _press(session, request)
    if not chosen.get("found"):
        return result(request, "didnt", {"found": False}, f"no option matches {request.text!r}")
    evidence = {k: chosen[k] for k in ("value", "label", "changed")}
    # the option was found, so a select that left it unselected chose nothing
    outcome = verdict(effect=bool(chosen.get("selected")), unchanged=True)
    return result(request, outcome, evidence)


async def _focus(session: PageSession, request: ActionRequest) -> ActionResult:
    """Focus the element; worked when it holds focus or received a focus event.

    A page's own focus handler may pass focus on at once (to a next field, a
    widget's inner input): the element did receive focus, which is the step.
    """
    el = await session.element(_require_target(request))
    object_id = await dom.resolve(el.channel, el.node)
    await dom.call(el.channel, object_id, dom.FOCUS_ARM)
    await el.channel.send("DOM.focus", {"backendNodeId": el.node})
    read = await dom.call(el.channel, object_id, dom.FOCUS_READ)
    evidence: dict[str, object] = {"focused": read["focused"], "focusEvent": read["received"]}
    if read["focused"]:
        return result(request, "worked", evidence)
    evidence["focusNow"] = read["now"]
    # a focus event on the element is the effect read back, even if the page moved on
    outcome = verdict(effect=bool(read["received"]), unchanged=True)
    reason = explain(
        outcome,
        worked="the page moved focus on after it arrived",
        didnt="the element did not receive focus",
    )
    return result(request, outcome, evidence, reason)


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
        el = await session.element(request.target)
        object_id = await dom.resolve(el.channel, el.node)
        moved = await dom.call(el.channel, object_id, dom.SCROLL_BY, dx, dy)
    else:
        reply = await session.conn.send(
            "Runtime.evaluate",
            {"expression": f"({dom.SCROLL_BY}).call(document, {dx}, {dy})", "returnByValue": True},
        )
        moved = obj_of(obj_of(reply, "result"), "value")
    before, after = moved.get("before"), moved.get("after")
    outcome = judge(before, after, lambda now: now != before)
    reason = "" if outcome == "worked" else "the scroll position did not change"
    return result(request, outcome, {"before": before, "after": after}, reason)


async def _drag(session: PageSession, request: ActionRequest) -> ActionResult:
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
    outcome = verdict(effect=False, unchanged=False, readable=False)
    return result(request, outcome, {"x": x, "y": y}, "the pointer position cannot be read back")


async def _set_value(session: PageSession, request: ActionRequest) -> ActionResult:
    """Set a range/number input directly; other value widgets the way a user would.

    A widget with a text field (a jQuery UI spinner) gets the number typed
    over its selected text; an ARIA slider or spinbutton without one gets
    arrow keys until ``aria-valuenow`` matches (at most ``MAX_VALUE_KEYS``).
    """
    el = await session.element(_require_target(request))
    object_id = await dom.resolve(el.channel, el.node)
    done = await dom.call(el.channel, object_id, dom.SET_NUMBER, request.value)
    if done.get("native"):
        evidence = {"before": done["before"], "after": done["after"], "via": "property"}
        return _value_outcome(request, evidence, bool(done["matches"]))
    widget = await dom.call(el.channel, object_id, dom.VALUE_WIDGET, True)
    if widget.get("field"):
        return await _type_value(session, el, object_id, request, widget)
    start = widget.get("value")
    if not isinstance(start, (int, float)):
        raise UnsupportedAction(
            "setValue",
            "needs a range or number input, a widget with a text field, or an element with "
            "a numeric aria-valuenow",
            instead="keys",
        )
    return await _step_value(session, el, object_id, request, float(start))


async def _type_value(
    session: PageSession,
    el: Element,
    object_id: str,
    request: ActionRequest,
    widget: Mapping[str, object],
) -> ActionResult:
    assert request.value is not None
    text = f"{request.value:g}"
    if not widget.get("focused"):
        return result(request, "didnt", {"before": widget.get("text")}, "its field took no focus")
    await session.conn.send("Input.insertText", {"text": text})
    await dom.call(el.channel, object_id, dom.FIRE_CHANGE)
    after = await dom.call(el.channel, object_id, dom.VALUE_WIDGET, False)
    evidence = {"before": widget.get("text"), "after": after.get("text"), "via": "typed"}
    return _value_outcome(request, evidence, after.get("value") == request.value)


async def _step_value(
    session: PageSession, el: Element, object_id: str, request: ActionRequest, start: float
) -> ActionResult:
    assert request.value is not None
    want = request.value
    await el.channel.send("DOM.focus", {"backendNodeId": el.node})
    now, pressed = start, 0
    keys = ("ArrowUp",) if want > now else ("ArrowDown",)
    while now != want and pressed < MAX_VALUE_KEYS:
        await _press_keys(session, keys)
        pressed += 1
        read = await dom.call(el.channel, object_id, dom.VALUE_WIDGET, False)
        value = read.get("value")
        if not isinstance(value, (int, float)) or value == now:
            if pressed == 1 and keys == ("ArrowUp",):
                keys = ("ArrowRight",)  # some sliders only take the horizontal arrows
                continue
            if pressed == 1 and keys == ("ArrowDown",):
                keys = ("ArrowLeft",)
                continue
            break
        crossed = (now < want < value) or (value < want < now)
        now = float(value)
        if crossed:
            break
    evidence = {"before": start, "after": now, "via": "keys", "keys": pressed}
    return _value_outcome(request, evidence, now == want)


def _value_outcome(
    request: ActionRequest, evidence: Mapping[str, object], matches: bool
) -> ActionResult:
    outcome = verdict(effect=matches, unchanged=evidence["before"] == evidence["after"])
    reason = "" if outcome == "worked" else "the value differs from the one asked for"
    return result(request, outcome, evidence, reason)


async def _expand(session: PageSession, request: ActionRequest) -> ActionResult:
    """Click the disclosure control when its state differs; read the state back."""
    want = "true" if request.kind == "expand" else "false"
    el = await session.element(_require_target(request))
    object_id = await dom.resolve(el.channel, el.node)
    before = await dom.call_text(el.channel, object_id, dom.EXPANDED)
    if before == want:
        return result(request, "worked", {"before": before, "after": before, "already": True})
    watch = _Watch(session)
    delivered = await _click_node(session, request)
    after = await dom.call_text(el.channel, object_id, dom.EXPANDED)
    if after == before:
        await watch.changes(("m",))  # a widget may update the state a moment later
        after = await dom.call_text(el.channel, object_id, dom.EXPANDED)
    evidence = {**delivered, "before": before, "after": after}
    readable = not before == after == "none"
    outcome = judge(before, after, want.__eq__, readable=readable)
    reason = explain(
        outcome,
        didnt=f"the element is not {request.kind}ed",
        unknown="the element has no expanded state to read"
        if not readable
        else f"its expanded state changed to {after!r}, not {want!r}",
    )
    return result(request, outcome, evidence, reason)


def _require_target(request: ActionRequest) -> str:
    if request.target is None:
        raise Undeliverable(request.kind, "target")
    return request.target


def _require_point(request: ActionRequest) -> tuple[int, int]:
    if request.point is None:
        raise Undeliverable(request.kind, "point")
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
    "expand": _expand,
    "collapse": _expand,
}
