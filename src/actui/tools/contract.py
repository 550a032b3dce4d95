"""The tool contract: what a tool is, the parameters tools share, and validation.

Each tool is a :class:`Tool` declared once in its handler's module (its name,
parameter model, description, hints, handler and result shape); the catalog
(``actui.tools.catalog``) lists them and derives the MCP tool list, the exported
OpenAI / Anthropic function schemas and the docs from them. The ``act_ui`` step
kinds are one table here (:data:`STEPS`). This module validates shapes, types
and bounds, a condition's cross-field rules (``conditions.check_condition``),
once, and turns every violation into an :class:`~actui.errors.InvalidParams`
naming the field; semantic rules that need a state (refs, scopes, coordinates)
are checked where the state is known.
It must not touch a backend.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Generic, Literal, TypeGuard, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from actui.backends.base import ActionKind, JsonObject
from actui.errors import FieldRule, InvalidParams
from actui.outline.conditions import check_condition
from actui.results.tool_result import ToolResult
from actui.runtime.reaching import BUDGET_S, MAX_CELLS, READ_AFTER_S, READ_EVERY_S
from actui.tools.session import Session

MAX_ACTIONS = 20
StateId = Annotated[str, Field(min_length=1, max_length=128, description="From the latest result.")]
ElementRefDoc = Annotated[str, Field(pattern=r"^@e\d+$", max_length=16, description="An @e ref.")]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=False)


MIN_TOKENS = 100
MAX_TOKENS = 50_000
"""The range of ``maxTokens``: below 100 no view can say what it left out."""


class ToolParams(Params):
    """Every tool's parameters: ``maxTokens`` caps the result text (``actui.tokens`` counts)."""

    maxTokens: int | None = Field(
        None,
        ge=MIN_TOKENS,
        le=MAX_TOKENS,
        description="Cap on the result text, in tokens; a receipt says what was left out.",
    )


class Condition(Params):
    """A UI condition; the same shape for expect, require, wait steps and wait_for."""

    ref: str | None = Field(None, max_length=128, description="This exact element.")
    scopeRef: str | None = Field(None, max_length=128, description="Within this subtree.")
    scopeExact: bool | None = None
    text: str | None = Field(None, max_length=512, description="Substring of name/value.")
    role: str | None = Field(None, max_length=128)
    value: str | None = Field(None, max_length=4096, description="Exact value; needs ref.")
    until: Literal["present", "absent"] | None = None
    gone: bool | None = Field(
        None, description='Same as until: absent; with only ref: "this element no longer exists".'
    )
    timeoutMs: int | None = Field(None, ge=0, description="Default 10000; clamped to 100-60000.")

    @model_validator(mode="after")
    def _fields_fit_together(self) -> Condition:
        check_condition(self)
        return self


READS_ON_DEMAND = (
    "A condition waited for (`wait_for`, and `expect` and `require` in `act_ui`) that"
    " is `present` and not met by what is shown reads on demand what the"
    " look left unread: hidden pages, closed menus and unshown rows of big lists, within"
    " `scopeRef` when given. Reads are bounded: the first comes"
    f" {READ_AFTER_S:g} s into the wait (half the timeout when that is shorter), then one"
    f" every {READ_EVERY_S:g} s, each within the wait's time and at most {BUDGET_S:g} s,"
    f" and at most {MAX_CELLS:,} rows' cells in all; they queue behind writes to the same"
    " app. What they read joins the state the wait returns; `wait_for`'s `details.unread` says"
    " what was read and what was not. A document that lists only what is on screen"
    " (LibreOffice Writer's page) is scrolled down to look, its caret left in place, only"
    " when `scopeRef` is that document: scrolling moves what the person sees; otherwise"
    " the result says its other pages were not checked. An element that is not displayed"
    " at all (listed `[hidden]`, such as a closed find bar's field) never meets a condition"
    " unless the condition names it: its `ref`, or a `scopeRef` that is hidden itself."
)
"""Said under the tools whose conditions read on demand
(``actui.runtime.reaching.ConditionReach``)."""


Finite = Annotated[float, Field(allow_inf_nan=False)]
Point = Annotated[dict[str, Finite], Field(description="{x, y} image pixels")]


class ActionStep(Params):
    action: ActionKind | Literal["wait"]
    ref: str | None = Field(None, pattern=r"^@e\d+$", max_length=16)
    x: Finite | None = None
    y: Finite | None = None
    text: str | None = Field(None, max_length=100_000)
    keys: list[Annotated[str, Field(min_length=1, max_length=32)]] | None = Field(
        None, max_length=8, description='One chord, e.g. ["ctrl","s"].'
    )
    button: Literal["left", "right", "middle"] | None = None
    clickCount: int | None = Field(None, ge=1, le=3)
    scrollX: Finite | None = None
    scrollY: Finite | None = None
    path: list[Point] | None = Field(None, min_length=2, max_length=100)
    value: Finite | None = None
    ms: int | None = Field(None, ge=0, le=60_000, description="wait: pause.")
    until: Condition | None = Field(None, description="wait: until this holds.")

    @model_validator(mode="after")
    def _fields_fit_action(self) -> ActionStep:
        rule = STEPS[self.action]
        given = {k for k, v in self.__dict__.items() if v is not None and k != "action"}
        stray = given - rule.allowed
        if stray:
            takes = ", ".join(sorted(rule.allowed)) or "no other fields"
            raise ValueError(
                f"{self.action} does not take {', '.join(sorted(stray))}; it takes {takes}"
            )
        if (self.x is None) != (self.y is None):
            raise ValueError("x and y come together or not at all")
        has_point = self.x is not None
        if rule.target == "ref" and self.ref is None:
            raise ValueError(f"{self.action} needs ref (an @e ref from the state)")
        if rule.target == "ref_or_point" and (self.ref is None) == (not has_point):
            raise ValueError(f"{self.action} needs exactly one target: ref, or x and y")
        for name in rule.required:
            if getattr(self, name) is None:
                raise ValueError(f"{self.action} needs {name}")
        if self.action == "scroll" and not (round(self.scrollX or 0) or round(self.scrollY or 0)):
            raise ValueError("scroll needs a non-zero scrollX or scrollY")
        if self.action == "wait" and (self.ms is None) == (self.until is None):
            raise ValueError("wait needs exactly one of ms or until")
        if self.path is not None:
            for point in self.path:
                if set(point) != {"x", "y"}:
                    raise ValueError("each path point is an object {x, y}")
        if self.keys is not None:
            check_chord(self.keys)
        return self


MODIFIER_KEYS = frozenset(
    {"ctrl", "control", "shift", "alt", "option", "meta", "super", "cmd", "command", "win"}
)
"""The modifier names (any case) a chord holds around its one main key."""


def chord_names(keys: Sequence[str]) -> tuple[str, ...]:
    """A chord's key names one by one: ``"ctrl+a"`` is ``ctrl``, ``a``; ``"+"`` and a
    trailing ``"++"`` name the plus key; an empty name marks a stray ``+``."""
    names: list[str] = []
    for key in keys:
        if len(key) <= 1 or "+" not in key:
            names.append(key)
        elif key.endswith("++"):
            names += [*key[:-2].split("+"), "+"]
        else:
            names += key.split("+")
    return tuple(names)


def _is_modifier(name: str) -> bool:
    return len(name) > 1 and name.strip().lower() in MODIFIER_KEYS


def check_chord(keys: Sequence[str]) -> None:
    """One chord: at least one key, no empty name, at most one key besides modifiers.

    Whether a backend's keyboard has the main key is the backend's to say
    (``UnknownKey``): the names differ per platform, the shape of a chord does not.
    """
    names = chord_names(keys)
    if not names:
        raise FieldRule("keys", "must name at least one key.", 'Example: ["ctrl", "a"].')
    if "" in names:
        raise FieldRule(
            "keys", f"{list(keys)!r} has an empty key name.", 'Join names with +, e.g. "ctrl+s".'
        )
    main = [name for name in names if not _is_modifier(name)]
    if len(main) > 1:
        raise FieldRule(
            "keys",
            f"a chord has one main key; got {main[0]!r} and {main[1]!r}.",
            "Send the keys as separate keypress steps.",
        )


StepTarget = Literal["ref", "ref_or_point", "optional_ref", "point", "none"]


@dataclass(frozen=True)
class StepKind:
    """One ``act_ui`` step kind, declared once: its target rule and fields (validation),
    what it does and an example (``docs/tools.md``); the Python API's ``Element``
    methods and the fuzz tests follow this table (``tests/unit/test_api.py`` checks)."""

    target: StepTarget
    meaning: str
    example: JsonObject
    optional: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    keyboard: bool = False
    """Keyboard input: sent to the current focus without a ref, and retried in the
    foreground when its background attempt verifiably did nothing."""

    @property
    def allowed(self) -> frozenset[str]:
        """Every field the kind takes besides ``action``: its target's and its own."""
        base = {"ref"} if self.target in ("ref", "optional_ref", "ref_or_point") else set()
        if self.target in ("ref_or_point", "point"):
            base |= {"x", "y"}
        return frozenset(base | set(self.optional) | set(self.required))


STEPS: Mapping[str, StepKind] = {
    "press": StepKind(
        "ref",
        "Activate the element's press action (a button, menu item, link), without the pointer.",
        {"action": "press", "ref": "@e7"},
    ),
    "click": StepKind(
        "ref_or_point",
        "A mouse click. On a ref, a plain left single click is delivered as what it means "
        "(a press, or focus for a text field) when it can be; otherwise a real click at the "
        "element's centre or at x, y (image pixels of the state).",
        {"action": "click", "x": 120, "y": 48, "button": "right"},
        optional=("button", "clickCount"),
    ),
    "toggle": StepKind(
        "ref",
        "Flip a check box, switch or toggle button; checked against its new state.",
        {"action": "toggle", "ref": "@e12"},
    ),
    "setText": StepKind(
        "ref",
        "Replace the field's whole text.",
        {"action": "setText", "ref": "@e4", "text": "Ada Lovelace"},
        required=("text",),
    ),
    "typeText": StepKind(
        "optional_ref",
        "Type text: inserted at the caret of ref, or typed into whatever has focus.",
        {"action": "typeText", "ref": "@e4", "text": " and friends"},
        required=("text",),
        keyboard=True,
    ),
    "keypress": StepKind(
        "optional_ref",
        "Press one key chord, into ref or into whatever has focus.",
        {"action": "keypress", "keys": ["ctrl", "s"]},
        required=("keys",),
        keyboard=True,
    ),
    "setValue": StepKind(
        "ref",
        "Set a slider's or spin button's number.",
        {"action": "setValue", "ref": "@e9", "value": 42},
        required=("value",),
    ),
    "select": StepKind(
        "ref",
        "Select an item of a list, tab strip or combo box.",
        {"action": "select", "ref": "@e15"},
    ),
    "focus": StepKind(
        "ref",
        "Give the element keyboard focus.",
        {"action": "focus", "ref": "@e4"},
    ),
    "scroll": StepKind(
        "optional_ref",
        "Scroll by wheel clicks: positive scrollY is down, positive scrollX right; at least "
        "one of them non-zero.",
        {"action": "scroll", "ref": "@e3", "scrollY": 5},
        optional=("scrollX", "scrollY", "x", "y"),
    ),
    "expand": StepKind(
        "ref",
        "Open a tree node, expander or combo box.",
        {"action": "expand", "ref": "@e21"},
    ),
    "collapse": StepKind(
        "ref",
        "Close a tree node, expander or combo box.",
        {"action": "collapse", "ref": "@e21"},
    ),
    "drag": StepKind(
        "none",
        "Press the left button at the first point, move through the others, release at the last.",
        {"action": "drag", "path": [{"x": 40, "y": 200}, {"x": 300, "y": 200}]},
        required=("path",),
    ),
    "moveMouse": StepKind(
        "point",
        "Move the pointer to x, y (for hover effects).",
        {"action": "moveMouse", "x": 300, "y": 90},
        required=("x", "y"),
    ),
    "wait": StepKind(
        "none",
        "Pause between steps: ms, or until a condition (the same fields as expect) holds.",
        {"action": "wait", "until": {"text": "Saved", "timeoutMs": 5000}},
        optional=("ms", "until"),
    ),
}
"""Every step kind, in the order ``docs/tools.md`` lists them. A kind other than ``wait``
is delivered by a backend (``backends.base.ActionKind`` names the same ones)."""


@dataclass(frozen=True)
class ToolHints:
    """What a tool may do to the world, for clients that auto-approve safe tools (MCP annotations).

    ``read_only`` tools never send input to an app; ``destructive`` ones may
    lose a person's data (an act can press Delete, a navigation drops a
    page's unsaved form); ``open_world`` ones can reach beyond this machine
    through the app or page they drive.
    """

    read_only: bool
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False

    def to_mcp(self) -> dict[str, bool]:
        hints = {"readOnlyHint": self.read_only, "openWorldHint": self.open_world}
        if not self.read_only:  # the other two mean something only for tools that write
            hints |= {"destructiveHint": self.destructive, "idempotentHint": self.idempotent}
        return hints


READS = ToolHints(read_only=True)
WRITES = ToolHints(read_only=False, destructive=True, idempotent=False, open_world=True)

P = TypeVar("P", bound=Params)


@dataclass(frozen=True)
class Tool(Generic[P]):
    """One tool, declared once in its handler's module: what the catalog, the dispatch,
    the exported schemas, ``docs/tools.md`` and the fuzz tests all read of it.

    ``handler`` does the work over the session's parts, given the validated
    ``params``; ``result`` is the shape of its structured result (the MCP
    ``outputSchema``, built with ``actui.results.schemas``); ``reference`` is said
    under the tool in ``docs/tools.md`` only (agents never pay for it).
    """

    name: str
    params: type[P]
    description: str
    handler: Callable[[Session, P], Awaitable[ToolResult]]
    result: JsonObject
    hints: ToolHints = READS
    reference: str = ""


def _simplify(schema: object, defs: Mapping[str, object]) -> object:
    """Inline $refs, drop titles, and turn ``anyOf [X, null]`` into X.

    Agents read these schemas on every turn, so every token counts; the
    optional-null pattern carries nothing an omitted key does not.
    """
    if isinstance(schema, list):
        return [_simplify(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = defs[ref.rsplit("/", 1)[-1]]
        assert isinstance(target, dict), ref
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return _simplify(merged, defs)
    out: JsonObject = {}
    for key, value in schema.items():
        if key in ("title", "$defs") or (key == "default" and value is None):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _simplify(prop, defs) for name, prop in value.items()}
            continue
        out[key] = _simplify(value, defs)
    any_of = out.get("anyOf")
    if not isinstance(any_of, list):
        return out
    choices = [s for s in any_of if _is_string_choice(s)]
    if len(choices) == len(any_of):
        del out["anyOf"]
        values = [v for s in choices for v in _choice_values(s)]
        return {"type": "string", "enum": values, **out}
    kept = [s for s in any_of if s != {"type": "null"}]
    if len(kept) == 1 and isinstance(kept[0], dict):
        del out["anyOf"]
        out = {**kept[0], **out}
    return out


def _is_string_choice(schema: object) -> TypeGuard[JsonObject]:
    return isinstance(schema, dict) and ("enum" in schema or "const" in schema)


def _choice_values(schema: JsonObject) -> list[object]:
    enum = schema.get("enum")
    return enum if isinstance(enum, list) else [schema.get("const")]


def input_schema(params: type[Params]) -> JsonObject:
    """The JSON Schema of a tool's arguments (no tuple-style arrays, no $refs)."""
    raw = params.model_json_schema(by_alias=True)
    schema = _simplify(raw, raw.get("$defs", {}))
    assert isinstance(schema, dict)
    schema.pop("description", None)
    properties = schema.get("properties", {})
    if "maxTokens" in properties:  # every tool's: last, after what the tool is about
        properties["maxTokens"] = properties.pop("maxTokens")
    return schema


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.startswith("function-") or "[" in part:
            continue  # pydantic's validator and union-member tags: literal[...], list[...]
        else:
            path += f".{part}" if path else part
    return path or "arguments"


def validate(tool: Tool[P], arguments: Mapping[str, object] | None) -> P:
    """Check a tool call's arguments; raise InvalidParams naming the first bad field."""
    try:
        return tool.params.model_validate(dict(arguments or {}))
    except ValidationError as exc:
        raise _invalid(tool.params, exc) from None


def validate_step(fields: Mapping[str, object]) -> ActionStep:
    """One ``act_ui`` step on its own (the Python API builds them one by one); an
    InvalidParams names the bad field as ``actions[0].<field>``."""
    try:
        return ActionStep.model_validate(dict(fields))
    except ValidationError as exc:
        raise _invalid(ActionStep, exc, ("actions", 0)) from None


def _model_at(params: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel]:
    """The parameter model that owns the last named key of ``loc``."""
    model = params
    for part in loc[:-1]:
        if isinstance(part, str) and part in ("expect", "require", "until"):
            model = Condition
        elif part == "actions":
            model = ActionStep
    return model


def _invalid(
    params: type[BaseModel], exc: ValidationError, prefix: tuple[int | str, ...] = ()
) -> InvalidParams:
    errors = exc.errors(include_url=False)
    error = min(errors, key=lambda e: e["type"] != "extra_forbidden")
    error["loc"] = (*prefix, *error["loc"])
    field = _field_path(tuple(error["loc"]))
    kind = error["type"]
    rule = (error.get("ctx") or {}).get("error")
    if isinstance(rule, FieldRule):
        at = (*error["loc"], rule.key) if rule.key else tuple(error["loc"])
        return InvalidParams(_field_path(at), rule.problem, rule.fix)
    if kind == "extra_forbidden":
        allowed = ", ".join(_model_at(params, tuple(error["loc"])).model_fields)
        return InvalidParams(field, "is not a parameter here.", f"Allowed: {allowed}.")
    if kind == "missing":
        return InvalidParams(field, "is required.", "Add it; `actui schema` lists the parameters.")
    if kind == "string_pattern_mismatch":
        pattern = str((error.get("ctx") or {}).get("pattern", ""))
        example = "@r3 from find_roots" if "@r" in pattern else "@e12 from the state's outline"
        return InvalidParams(
            field,
            f"{error['input']!r} is not a ref like {example}.",
            "Use a ref from the latest result.",
        )
    if field == "maxTokens":
        return InvalidParams(
            field,
            f"{error['input']!r} is not a token budget actui accepts.",
            f"Give an integer from {MIN_TOKENS} to {MAX_TOKENS}, or leave it out.",
        )
    message = str(error["msg"]).removeprefix("Value error, ")
    return InvalidParams(field, message.rstrip(".") + ".", "")
