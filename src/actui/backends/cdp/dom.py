"""Element handles (backend node ids resolved to JS objects) and the page-side functions.

Everything that must run inside the page (reading a field, placing the caret,
choosing an option, scrolling a container) lives here as one small function
each, called with ``Runtime.callFunctionOn`` and ``this`` bound to the element.
Password values never leave the page: functions compare them in place and
return only booleans and lengths. This module must not decide outcomes.
"""

from __future__ import annotations

from actui.backends.base import JsonObject
from actui.backends.cdp.connection import CdpCommandError, Sender
from actui.backends.reads import obj_of, text_of
from actui.errors import UnknownRef, UnsupportedAction

OBJECT_GROUP = "actui"
CALL_TIMEOUT_S = 5.0
"""How long a page-side function's answer is waited for."""


def parse_id(native_id: str) -> tuple[str, int]:
    """``cdp:<id>`` → ("", id); ``cdp:<frame target>:<id>`` → (frame target, id).

    Backend node ids are unique per renderer process only, so nodes of an
    out-of-process frame carry their frame's target id. Other forms (AX-only
    nodes, dialog buttons) have no DOM node to act on.
    """
    _, _, rest = native_id.partition("cdp:")
    frame, _, node = rest.rpartition(":")
    if node.isdigit() and frame != "ax":
        return frame, int(node)
    raise UnsupportedAction(
        native_id, "has no DOM node (it is an accessibility-only node)", instead="parent"
    )


def backend_id(native_id: str) -> int:
    """The backend node id of a main-frame native id (see :func:`parse_id`)."""
    return parse_id(native_id)[1]


async def resolve(conn: Sender, node: int) -> str:
    """The JS object id of a node, or :class:`UnknownRef` when it left the page."""
    try:
        result = await conn.send(
            "DOM.resolveNode", {"backendNodeId": node, "objectGroup": OBJECT_GROUP}
        )
    except CdpCommandError as exc:
        raise UnknownRef(
            f"cdp:{node}", f"is no longer in the page ({exc.message})", then="observe_ui"
        ) from exc
    return str(obj_of(result, "object", required=True)["objectId"])


async def call(conn: Sender, object_id: str, function: str, *args: object) -> JsonObject:
    """Run ``function`` with ``this`` = the object; the JSON object it returns (``{}`` when
    it returns none: the functions that only act return ``true``)."""
    value = await _run(conn, object_id, function, args)
    return value if isinstance(value, dict) else {}


async def call_text(conn: Sender, object_id: str, function: str) -> str:
    """Run ``function`` with ``this`` = the object; the string it returns (a state such as
    ``"true"`` / ``"none"``), ``""`` when it returns none."""
    value = await _run(conn, object_id, function, ())
    return value if isinstance(value, str) else ""


async def _run(conn: Sender, object_id: str, function: str, args: tuple[object, ...]) -> object:
    """``Runtime.callFunctionOn`` by value; a page exception refuses the step."""
    result = await conn.send(
        "Runtime.callFunctionOn",
        {
            "objectId": object_id,
            "functionDeclaration": function,
            "arguments": [{"value": a} for a in args],
            "returnByValue": True,
            "awaitPromise": True,
        },
        timeout_s=CALL_TIMEOUT_S,
    )
    if "exceptionDetails" in result:
        text = text_of(obj_of(obj_of(result, "exceptionDetails"), "exception"), "description")
        raise UnsupportedAction(
            "the page", f"refused the step: {text.splitlines()[0] if text else ''}"
        )
    return obj_of(result, "result").get("value")


async def release(conn: Sender) -> None:
    await conn.send("Runtime.releaseObjectGroup", {"objectGroup": OBJECT_GROUP})


# Shared prelude: what kind of text holder `this` is. Values stay inside.
_FIELD = """
  const el = this;
  const isField = el instanceof el.ownerDocument.defaultView.HTMLInputElement ||
    el instanceof el.ownerDocument.defaultView.HTMLTextAreaElement;
  const secure = isField && el.type === 'password';
  const read = () => isField ? el.value : (el.innerText ?? el.textContent ?? '');
"""

PREPARE_TEXT = (
    """function(replace) {"""
    + _FIELD
    + """
  if (!isField && !el.isContentEditable) return {editable: false};
  el[Symbol.for('actui.before')] = read();
  const win = el.ownerDocument.defaultView;
  if (isField) {
    if (replace) el.select();
    else { try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) {} }
  } else {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    if (!replace) range.collapse(false);
    const sel = win.getSelection(); sel.removeAllRanges(); sel.addRange(range);
  }
  return {editable: true, secure};
}"""
)

# Fires `change` (insertText only fires `input`) and compares in place.
FINISH_TEXT = (
    """function(text, replace) {"""
    + _FIELD
    + """
  el.dispatchEvent(new Event('change', {bubbles: true}));
  const before = el[Symbol.for('actui.before')] ?? '';
  delete el[Symbol.for('actui.before')];
  const now = read();
  const expected = replace ? text : before + text;
  const norm = (s) => isField ? s : s.replace(/\\s+$/, '');
  return {
    secure,
    matches: norm(now) === norm(expected),
    unchanged: now === before,
    length: now.length,
    value: secure ? null : now.slice(0, 200),
  };
}"""
)

FOCUSED_TEXT = """function() {
  let doc = document, el = doc.activeElement;
  while (el && el.contentDocument && el.contentDocument.activeElement) {
    doc = el.contentDocument; el = doc.activeElement;
  }
  if (!el || el === doc.body) return {editable: false};
  const win = doc.defaultView;
  const isField = el instanceof win.HTMLInputElement || el instanceof win.HTMLTextAreaElement;
  if (!isField && !el.isContentEditable) return {editable: false};
  const value = isField ? el.value : (el.innerText ?? '');
  const secure = isField && el.type === 'password';
  return {editable: true, secure, length: value.length, value: secure ? null : value};
}"""

CHECKED = """function() {
  if (this.type === 'checkbox' || this.type === 'radio') return String(this.checked);
  return this.getAttribute('aria-checked') ?? this.getAttribute('aria-pressed') ?? 'none';
}"""

SELECT_OPTION = """function(text) {
  const win = this.ownerDocument.defaultView;
  let select = null, option = null;
  if (this instanceof win.HTMLOptionElement) { option = this; select = this.closest('select'); }
  else if (this instanceof win.HTMLSelectElement) {
    select = this;
    const want = String(text).trim();
    option = [...this.options].find((o) => o.value === want) ||
             [...this.options].find((o) => o.label.trim() === want || o.text.trim() === want);
  } else return {native: false};
  if (!select || !option) return {native: true, found: false};
  const before = select.value;
  option.selected = true;
  select.dispatchEvent(new Event('input', {bubbles: true}));
  select.dispatchEvent(new Event('change', {bubbles: true}));
  return {native: true, found: true, changed: select.value !== before,
          selected: option.selected, value: select.value, label: option.label.trim()};
}"""

IS_FOCUSED = """function() {
  let a = this.ownerDocument.activeElement;
  return a === this || (a !== null && this.contains(a) && a !== this.ownerDocument.body);
}"""

# Scrolls the nearest scrollable container of `this` (or the document) after
# revealing `this`; positions are taken before the reveal, so either counts.
SCROLL_BY = """function(dx, dy) {
  const doc = this.ownerDocument || this;
  const canScroll = (e) => {
    const s = doc.defaultView.getComputedStyle(e);
    return /(auto|scroll|overlay)/.test(s.overflowX + s.overflowY) &&
      (e.scrollHeight > e.clientHeight || e.scrollWidth > e.clientWidth);
  };
  let box = this.nodeType === 1 ? this : null;
  const top = (e) => !e || e === doc.body || e === doc.documentElement;
  while (!top(box) && !canScroll(box)) box = box.parentElement;
  if (top(box)) box = doc.scrollingElement;
  const page = doc.scrollingElement;
  const where = () => [box.scrollLeft, box.scrollTop, page.scrollLeft, page.scrollTop];
  const before = where();
  const shown = this.nodeType === 3 ? this.parentElement : this;
  if (shown && shown.nodeType === 1) {
    shown.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
  }
  box.scrollBy({left: dx, top: dy, behavior: 'instant'});
  return {before, after: where()};
}"""

READ_TEXT = """function() {
  if (this.nodeType === 9) return {text: this.body ? this.body.innerText : ''};
  const win = (this.ownerDocument || document).defaultView;
  if (this instanceof win.HTMLInputElement && this.type === 'password') return {secure: true};
  if (this instanceof win.HTMLInputElement || this instanceof win.HTMLTextAreaElement) {
    return {text: this.value};
  }
  if (this instanceof win.HTMLSelectElement) {
    return {text: [...this.selectedOptions].map((o) => o.text).join('\\n')};
  }
  return {text: this.innerText ?? this.textContent ?? ''};
}"""

SET_NUMBER = """function(value) {
  const win = this.ownerDocument.defaultView;
  if (!(this instanceof win.HTMLInputElement) || !['range', 'number'].includes(this.type)) {
    return {native: false};
  }
  const before = this.value;
  this.value = String(value);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {native: true, before, after: this.value, matches: Number(this.value) === value};
}"""

CLICK = "function() { this.click(); return true; }"

# Where a click on `this` lands on `this`: the centre of its first box when
# nothing covers it there, else the visible point nearest a box's centre on a
# grid (the hit-test a real click would do, in the element's own document or
# shadow root). A label's hit counts for its control. Points are in the
# element's frame's viewport; `rect` lets the caller map them to the page's.
PICK_POINT = """function() {
  const doc = this.ownerDocument;
  const text = this.nodeType === 3;
  let rects;
  if (text) {
    const range = doc.createRange(); range.selectNodeContents(this);
    rects = [...range.getClientRects()];
  } else rects = this.nodeType === 1 ? [...this.getClientRects()] : [];
  rects = rects.filter((r) => r.width >= 1 && r.height >= 1).slice(0, 4);
  if (!rects.length) return {box: false};
  const scope = this.getRootNode && this.getRootNode().elementFromPoint ? this.getRootNode() : doc;
  const owns = (hit) => {
    if (!hit) return false;
    if (text) return hit.contains(this);
    for (let n = hit; n; n = n.parentNode || n.host) if (n === this) return true;
    const label = hit.closest && hit.closest('label');
    return !!label && label.control === this;
  };
  const describe = (e) => !e ? 'nothing' : e.localName + (e.id ? '#' + e.id : '') +
    (typeof e.className === 'string' && e.className.trim() ?
      '.' + e.className.trim().split(/\\s+/).join('.') : '');
  const steps = [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9, 0.03, 0.97];
  const first = rects[0];
  const centre = scope.elementFromPoint(first.left + first.width / 2, first.top + first.height / 2);
  const found = {box: true, rect: [first.left, first.top], coveredBy: describe(centre)};
  for (const r of rects) {
    const grid = [];
    for (const fy of steps) for (const fx of steps) grid.push([fx, fy]);
    grid.sort((a, b) => Math.hypot(a[0] - 0.5, a[1] - 0.5) - Math.hypot(b[0] - 0.5, b[1] - 0.5));
    for (const [fx, fy] of grid) {
      const x = r.left + r.width * fx, y = r.top + r.height * fy;
      if (owns(scope.elementFromPoint(x, y))) {
        return {...found, point: [x, y], covered: x !== first.left + first.width / 2 ||
          y !== first.top + first.height / 2};
      }
    }
  }
  return {...found, point: null, covered: true};
}"""

# Records whether `this` itself receives a focus event: a page's own handler
# may move focus on at once, and the event is the evidence focus arrived.
FOCUS_ARM = """function() {
  const key = Symbol.for('actui.focused');
  this[key] = false;
  this.addEventListener('focus', () => { this[key] = true; }, {once: true, capture: true});
  return true;
}"""

FOCUS_READ = """function() {
  const key = Symbol.for('actui.focused');
  const received = this[key] === true;
  delete this[key];
  const a = this.ownerDocument.activeElement;
  const focused = a === this || (a !== null && this.contains(a) && a !== this.ownerDocument.body);
  const now = !a || a === this.ownerDocument.body ? 'body' :
    a.localName + (a.id ? '#' + a.id : '');
  return {focused, received, now};
}"""

# The disclosure state a user sees: <details open>, a summary's details, or
# aria-expanded; "none" when the element has none.
EXPANDED = """function() {
  const win = this.ownerDocument.defaultView;
  if (this instanceof win.HTMLDetailsElement) return String(this.open);
  const parent = this.parentElement;
  if (this.localName === 'summary' && parent instanceof win.HTMLDetailsElement) {
    return String(parent.open);
  }
  const aria = this.getAttribute ? this.getAttribute('aria-expanded') : null;
  return aria === 'true' || aria === 'false' ? aria : 'none';
}"""

# A value widget that is not a native range/number input: its text field
# (itself or one inside, as in a jQuery UI spinner) or its ARIA value.
# `select` readies the field for typed text, as select-all would.
VALUE_WIDGET = """function(select) {
  const win = this.ownerDocument.defaultView;
  const typed = (e) => e instanceof win.HTMLInputElement &&
    ['text', 'search', 'tel', 'number', ''].includes(e.type) && !e.disabled && !e.readOnly;
  const field = typed(this) ? this : (this.querySelector ? [...this.querySelectorAll('input')]
    .find(typed) : undefined);
  const aria = this.getAttribute ? this.getAttribute('aria-valuenow') : null;
  const now = aria !== null && aria !== '' ? Number(aria) : null;
  if (field) {
    if (select) { field.focus(); field.select(); }
    const value = field.value.trim() === '' ? null : Number(field.value.replace(/,/g, ''));
    return {field: true, value: Number.isFinite(value) ? value : null, text: field.value,
            focused: field.ownerDocument.activeElement === field};
  }
  return {field: false, value: Number.isFinite(now) ? now : null,
          min: Number(this.getAttribute('aria-valuemin')),
          max: Number(this.getAttribute('aria-valuemax'))};
}"""

FIRE_CHANGE = """function() {
  const win = this.ownerDocument.defaultView;
  const field = this instanceof win.HTMLInputElement ? this : this.querySelector('input');
  if (field) field.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
}"""
