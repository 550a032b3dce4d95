"""The tool reference for people (``docs/tools.md``), generated from the contract.

Parameter and result tables come from the same JSON Schemas clients get; the ``act_ui``
step kinds' fields come from the contract's per-kind rules, so the page
cannot drift from what is accepted. Only the one-line meaning of each step
kind and its example are written here, and a unit test validates every
example against the contract. None of this is in the tool catalog: agents
pay for every catalog token on every turn, people read this page once.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

from actui.backends.base import JsonObject
from actui.results.schemas import output_schema
from actui.runtime.reaching import BUDGET_S, MAX_CELLS, READ_AFTER_S, READ_EVERY_S
from actui.tools.contract import STEP_RULES, TOOLS, input_schema


@dataclass(frozen=True)
class StepDoc:
    meaning: str
    example: JsonObject


STEP_DOCS: dict[str, StepDoc] = {
    "press": StepDoc(
        "Activate the element's press action (a button, menu item, link), without the pointer.",
        {"action": "press", "ref": "@e7"},
    ),
    "click": StepDoc(
        "A mouse click. On a ref, a plain left single click is delivered as what it means "
        "(a press, or focus for a text field) when it can be; otherwise a real click at the "
        "element's centre or at x, y (image pixels of the state).",
        {"action": "click", "x": 120, "y": 48, "button": "right"},
    ),
    "toggle": StepDoc(
        "Flip a check box, switch or toggle button; checked against its new state.",
        {"action": "toggle", "ref": "@e12"},
    ),
    "setText": StepDoc(
        "Replace the field's whole text.",
        {"action": "setText", "ref": "@e4", "text": "Ada Lovelace"},
    ),
    "typeText": StepDoc(
        "Type text: inserted at the caret of ref, or typed into whatever has focus.",
        {"action": "typeText", "ref": "@e4", "text": " and friends"},
    ),
    "keypress": StepDoc(
        "Press one key chord, into ref or into whatever has focus.",
        {"action": "keypress", "keys": ["ctrl", "s"]},
    ),
    "setValue": StepDoc(
        "Set a slider's or spin button's number.",
        {"action": "setValue", "ref": "@e9", "value": 42},
    ),
    "select": StepDoc(
        "Select an item of a list, tab strip or combo box.",
        {"action": "select", "ref": "@e15"},
    ),
    "focus": StepDoc(
        "Give the element keyboard focus.",
        {"action": "focus", "ref": "@e4"},
    ),
    "scroll": StepDoc(
        "Scroll by wheel clicks: positive scrollY is down, positive scrollX right; at least "
        "one of them non-zero.",
        {"action": "scroll", "ref": "@e3", "scrollY": 5},
    ),
    "expand": StepDoc(
        "Open a tree node, expander or combo box.",
        {"action": "expand", "ref": "@e21"},
    ),
    "collapse": StepDoc(
        "Close a tree node, expander or combo box.",
        {"action": "collapse", "ref": "@e21"},
    ),
    "drag": StepDoc(
        "Press the left button at the first point, move through the others, release at the last.",
        {"action": "drag", "path": [{"x": 40, "y": 200}, {"x": 300, "y": 200}]},
    ),
    "moveMouse": StepDoc(
        "Move the pointer to x, y (for hover effects).",
        {"action": "moveMouse", "x": 300, "y": 90},
    ),
    "wait": StepDoc(
        "Pause between steps: ms, or until a condition (the same fields as expect) holds.",
        {"action": "wait", "until": {"text": "Saved", "timeoutMs": 5000}},
    ),
}

LIMITS = (
    ("minimum", "≥ {}"),
    ("maximum", "≤ {}"),
    ("maxLength", "max length {}"),
    ("minItems", "items ≥ {}"),
    ("maxItems", "items ≤ {}"),
)

READS_ON_DEMAND = (
    "A condition waited for (`wait_for`, and `expect` and `require` in `act_ui`) that"
    " is `present` and not met by what is shown reads on demand what the"
    " look left unread: hidden pages, closed menus and unshown rows of big lists, within"
    " `scopeRef` when given. Reads are bounded: the first comes"
    f" {READ_AFTER_S:g} s into the wait (half the timeout when that is shorter), then one"
    f" every {READ_EVERY_S:g} s, each within the wait's time and at most {BUDGET_S:g} s,"
    f" and at most {MAX_CELLS:,} rows' cells in all; they queue behind writes to the same"
    " app. What they read joins the state the wait returns; `wait_for`'s `details.unread` says"
    " what was read and what was not. An element that is not displayed at all (listed"
    " `[hidden]`, such as a closed find bar's field) never meets a condition unless the"
    " condition names it: its `ref`, or a `scopeRef` that is hidden itself."
)
"""Said under the tools whose conditions read on demand
(``actui.runtime.reaching.ConditionReach``)."""


def markdown_reference() -> str:
    """The tool reference for people, generated from the same schemas agents get."""
    out = [
        "# actui tools",
        "",
        "Generated by `actui schema --format markdown` from `src/actui/tools/contract.py`.",
    ]
    for spec in TOOLS:
        schema = input_schema(spec.name)
        out += ["", f"## `{spec.name}`", "", spec.description, ""]
        out += _table(schema)
        if spec.name in ("wait_for", "act_ui"):
            out += ["", READS_ON_DEMAND]
        result = output_schema(spec.name)
        out += ["", "Result (`structuredContent`):", ""]
        out += _table(result, column="key")
        if spec.name == "act_ui":
            out += ["", *_step_kinds()]
    return "\n".join(out) + "\n"


def _table(
    schema: JsonObject, required: Collection[str] = (), column: str = "parameter"
) -> list[str]:
    """A schema's properties as a table; ``required`` adds to those the schema requires."""
    required = {*required, *_listed(schema, "required")}
    out = [f"| {column} | type | required | notes |", "| --- | --- | --- | --- |"]
    for name, member in _object(schema.get("properties", {})).items():
        prop = _object(member)
        kind = prop.get("type", "object" if "properties" in prop else "any")
        if isinstance(kind, list):  # a result key that may be null
            kind = " \\| ".join(map(str, kind))
        if "enum" in prop:
            kind = " \\| ".join(f"`{v}`" for v in _listed(prop, "enum"))
        notes = [str(prop["description"]).rstrip(".")] if "description" in prop else []
        for key, label in LIMITS:
            if key in prop:
                notes.append(label.format(prop[key]))
        if "default" in prop:
            notes.append(f"default {json.dumps(prop['default'])}")
        mark = "yes" if name in required else ""
        out.append(f"| `{name}` | {kind} | {mark} | {'; '.join(notes)} |")
    return out


def _step_kinds() -> list[str]:
    """Each step kind: what it does, its target, its other fields, an example."""
    step = input_schema_of_step()
    fields = [name for name in _object(step["properties"]) if name != "action"]
    out = [
        "### Steps",
        "",
        "Each entry of `actions` is an object with `action` (the step kind) and the fields that "
        "kind takes; any other field is an error naming it. Coordinates are pixels of the "
        "state's image.",
        "",
        *_table(step, {"action"}),
        "",
        "### Step kinds",
    ]
    for kind, rule in STEP_RULES.items():
        doc = STEP_DOCS[kind]
        rest = [name for name in fields if name not in ("ref", "x", "y")]
        required = [f"`{name}`" for name in rest if name in rule.required]
        optional = [f"`{name}`" for name in rest if name in rule.allowed - set(rule.required)]
        out += ["", f"#### `{kind}`", "", doc.meaning, ""]
        out.append(f"- target: {_target(rule.target, rule.allowed)}")
        if required:
            out.append(f"- required: {', '.join(required)}")
        if optional:
            out.append(f"- optional: {', '.join(optional)}")
        out += ["", "```json", json.dumps(doc.example), "```"]
    return out


def _target(target: str, allowed: frozenset[str]) -> str:
    if target == "optional_ref":
        if "x" in allowed:
            return "`ref`, or `x` and `y`, or neither (the window's centre)"
        return "`ref`, or neither (whatever has focus)"
    return {
        "ref": "`ref`",
        "ref_or_point": "`ref`, or `x` and `y`",
        "point": "`x` and `y`",
        "none": "none",
    }[target]


def input_schema_of_step() -> JsonObject:
    """The schema of one ``actions`` entry, as agents get it inside ``act_ui``'s."""
    actions = _object(_object(input_schema("act_ui")["properties"])["actions"])
    return _object(actions["items"])


def _object(value: object) -> JsonObject:
    """A member of the contract's own JSON Schemas that is an object, as their shape says."""
    assert isinstance(value, dict), value
    return value


def _listed(schema: JsonObject, key: str) -> list[str]:
    """A schema's list of names (``required``) or choices (``enum``), as strings."""
    value = schema.get(key, [])
    assert isinstance(value, list), value
    return [str(item) for item in value]
