"""The tool contract: the eleven tools, their parameters, bounds and schemas.

This is the single source for the MCP tool list, the exported OpenAI /
Anthropic function schemas, the Python API's argument checking and the docs;
the shapes of the results (MCP ``outputSchema``) are ``actui.results.schemas``'.
It validates shapes, types and bounds, a condition's cross-field rules
(``conditions.check_condition``) and the URL rule (``urls.check_url``), once,
and turns every violation into an :class:`~actui.errors.InvalidParams` naming
the field; semantic rules that need a state (refs, scopes, coordinates) are
checked where the state is known.
It must not touch a backend.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal, TypeGuard

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from actui.backends.base import ActionKind, JsonObject
from actui.errors import FieldRule, InvalidParams
from actui.outline.conditions import check_condition
from actui.results.schemas import output_schema
from actui.urls import check_url

TOOL_NAMES = (
    "find_roots",
    "observe_ui",
    "search_ui",
    "expand_ui",
    "inspect_ui",
    "act_ui",
    "read_text",
    "wait_for",
    "launch_browser",
    "navigate_browser",
    "evaluate_browser",
)

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


class FindRoots(ToolParams):
    text: str | None = Field(None, max_length=256, description="Ranked match on app and title.")
    app: str | None = Field(None, max_length=256, description="Exact app name.")
    bundleId: str | None = Field(None, max_length=256)
    pid: int | None = Field(None, ge=0)
    kind: Literal["window", "menu", "sheet", "popover", "dialog", "browser_page"] | None = None


class ObserveUi(ToolParams):
    root: str | None = Field(None, pattern=r"^@r\d+$", description="@r ref; default: focused.")
    mode: Literal["semantic", "fused", "visual"] = Field(
        "fused", description="fused adds a screenshot only when the tree is poor."
    )


class SearchUi(ToolParams):
    stateId: StateId
    text: str | None = Field(None, max_length=256)
    role: str | None = Field(None, max_length=128)
    capability: str | None = Field(
        None, max_length=128, description="press, toggle, setText, select, scroll, ..."
    )

    @model_validator(mode="after")
    def _one_predicate(self) -> SearchUi:
        if not any((v or "").strip() for v in (self.text, self.role, self.capability)):
            raise ValueError("give at least one of text, role or capability")
        return self


class ExpandUi(ToolParams):
    stateId: StateId
    ref: ElementRefDoc
    depth: int = Field(3, description="Levels below ref, 1-8 (clamped).")

    @field_validator("depth", mode="before")
    @classmethod
    def _clamp_depth(cls, value: object) -> object:
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return max(1, min(8, int(value)))
        return value


class InspectUi(ToolParams):
    stateId: StateId
    ref: ElementRefDoc


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
        rule = STEP_RULES[self.action]
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


@dataclass(frozen=True)
class StepRule:
    """The fields one step kind takes and needs (``docs/tools.md`` lists them per kind)."""

    target: Literal["ref", "ref_or_point", "optional_ref", "point", "none"]
    allowed: frozenset[str]
    required: tuple[str, ...] = ()


def _rule(target: str, *fields: str, required: tuple[str, ...] = ()) -> StepRule:
    base = {"ref"} if target in ("ref", "optional_ref", "ref_or_point") else set()
    if target in ("ref_or_point", "point"):
        base |= {"x", "y"}
    return StepRule(target, frozenset(base | set(fields) | set(required)), required)  # type: ignore[arg-type]


STEP_RULES: dict[str, StepRule] = {
    "press": _rule("ref"),
    "click": _rule("ref_or_point", "button", "clickCount"),
    "toggle": _rule("ref"),
    "setText": _rule("ref", required=("text",)),
    "typeText": _rule("optional_ref", required=("text",)),
    "keypress": _rule("optional_ref", required=("keys",)),
    "setValue": _rule("ref", required=("value",)),
    "select": _rule("ref"),
    "focus": _rule("ref"),
    "scroll": _rule("optional_ref", "scrollX", "scrollY", "x", "y"),
    "expand": _rule("ref"),
    "collapse": _rule("ref"),
    "drag": _rule("none", required=("path",)),
    "moveMouse": _rule("point", required=("x", "y")),
    "wait": _rule("none", "ms", "until"),
}


class ActUi(ToolParams):
    stateId: StateId
    actions: list[ActionStep] = Field(
        min_length=1,
        max_length=MAX_ACTIONS,
        description="Steps run in order; stops at first failure.",
    )
    expect: Condition | None = Field(
        None,
        description="Postcondition checked after the steps; without ref or scopeRef it is "
        "also met in windows the steps opened (the result names the window).",
    )
    require: Condition | None = Field(
        None, description="Precondition; nothing runs unless it holds."
    )


class ReadText(ToolParams):
    ref: str = Field(pattern=r"^@[eo]\d+$", max_length=16, description="@e element or @o output.")
    offset: int = Field(0, ge=0)
    stateId: str | None = Field(None, max_length=128, description="Required for @e.")


class WaitFor(Condition, ToolParams):
    stateId: StateId


PageUrl = Annotated[str, Field(max_length=8192), AfterValidator(check_url)]


class LaunchBrowser(ToolParams):
    url: PageUrl | None = Field(None, description="Default about:blank.")


class NavigateBrowser(ToolParams):
    stateId: StateId
    url: PageUrl = Field(description="Absolute http(s), file: or data: URL.")


class EvaluateBrowser(ToolParams):
    stateId: StateId
    expression: str = Field(min_length=1, max_length=65_536)


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


@dataclass(frozen=True)
class ToolSpec:
    name: str
    params: type[Params]
    description: str
    hints: ToolHints = READS


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "find_roots",
        FindRoots,
        "List windows, dialogs and browser pages as @r refs. Start here to pick a target.",
    ),
    ToolSpec(
        "observe_ui",
        ObserveUi,
        "Snapshot a root: a folded outline with @e refs and a stateId. Use before acting.",
    ),
    ToolSpec(
        "search_ui",
        SearchUi,
        "Find elements in a stored state by text, role or capability. Rows a big list or "
        "sheet did not show, and parts not shown (hidden pages), are read on demand into a "
        "new stateId.",
    ),
    ToolSpec(
        "expand_ui",
        ExpandUi,
        "Show the subtree under a folded @e ref of a stored state; one marked "
        "(not shown; N items unread) is read on demand into a new stateId.",
    ),
    ToolSpec(
        "inspect_ui",
        InspectUi,
        "All details of one @e ref: states, rect, actions, capabilities.",
    ),
    ToolSpec(
        "act_ui",
        ActUi,
        "Run 1-20 steps on a state as one transaction, with optional require/expect "
        "conditions. Returns outcome worked/didnt/unknown, the check, and a diff + new stateId.",
        WRITES,
    ),
    ToolSpec(
        "read_text",
        ReadText,
        "Read an element's full text (@e + stateId) or continue long output (@o).",
    ),
    ToolSpec(
        "wait_for",
        WaitFor,
        "Wait until a condition holds (or is gone); returns a new state either way.",
    ),
    ToolSpec(
        "launch_browser",
        LaunchBrowser,
        "Start a private Chromium and observe its page.",
        ToolHints(read_only=False, idempotent=False, open_world=True),
    ),
    ToolSpec(
        "navigate_browser",
        NavigateBrowser,
        "Load a URL in a browser page state; returns the new state.",
        ToolHints(read_only=False, destructive=True, open_world=True),
    ),
    ToolSpec(
        "evaluate_browser",
        EvaluateBrowser,
        "Run JavaScript in a browser page state; returns its JSON value.",
        WRITES,
    ),
)
SPECS: Mapping[str, ToolSpec] = {spec.name: spec for spec in TOOLS}


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


def input_schema(name: str) -> JsonObject:
    """The JSON Schema of a tool's arguments (no tuple-style arrays, no $refs)."""
    raw = SPECS[name].params.model_json_schema(by_alias=True)
    schema = _simplify(raw, raw.get("$defs", {}))
    assert isinstance(schema, dict)
    schema.pop("description", None)
    properties = schema.get("properties", {})
    if "maxTokens" in properties:  # every tool's: last, after what the tool is about
        properties["maxTokens"] = properties.pop("maxTokens")
    return schema


def export_schemas(fmt: Literal["mcp", "openai", "anthropic"]) -> list[JsonObject]:
    """Tool definitions in the shape each client family expects."""
    out: list[JsonObject] = []
    for spec in TOOLS:
        schema = input_schema(spec.name)
        if fmt == "mcp":
            out.append(
                {
                    "name": spec.name,
                    "description": spec.description,
                    "inputSchema": schema,
                    "outputSchema": output_schema(spec.name),
                    "annotations": spec.hints.to_mcp(),
                }
            )
        elif fmt == "openai":
            out.append(
                {
                    "type": "function",
                    "function": {
                        "name": spec.name,
                        "description": spec.description,
                        "parameters": schema,
                    },
                }
            )
        else:
            out.append({"name": spec.name, "description": spec.description, "input_schema": schema})
    return copy.deepcopy(out)


def catalog_size_bytes() -> int:
    return len(json.dumps(export_schemas("mcp"), separators=(",", ":")))


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


def validate(name: str, arguments: Mapping[str, object] | None) -> Params:
    """Check a tool call's arguments; raise InvalidParams naming the first bad field."""
    spec = SPECS.get(name)
    if spec is None:
        raise InvalidParams(
            "tool", f"unknown tool {name!r}.", f"Use one of: {', '.join(TOOL_NAMES)}."
        )
    try:
        return spec.params.model_validate(dict(arguments or {}))
    except ValidationError as exc:
        raise _invalid(name, exc) from None


def validate_step(fields: Mapping[str, object]) -> ActionStep:
    """One ``act_ui`` step on its own (the Python API builds them one by one); an
    InvalidParams names the bad field as ``actions[0].<field>``."""
    try:
        return ActionStep.model_validate(dict(fields))
    except ValidationError as exc:
        raise _invalid("act_ui", exc, ("actions", 0)) from None


def _model_at(tool: str, loc: tuple[int | str, ...]) -> type[BaseModel]:
    """The parameter model that owns the last named key of ``loc``."""
    model: type[BaseModel] = SPECS[tool].params
    for part in loc[:-1]:
        if isinstance(part, str) and part in ("expect", "require", "until"):
            model = Condition
        elif part == "actions":
            model = ActionStep
    return model


def _invalid(tool: str, exc: ValidationError, prefix: tuple[int | str, ...] = ()) -> InvalidParams:
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
        allowed = ", ".join(_model_at(tool, tuple(error["loc"])).model_fields)
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
