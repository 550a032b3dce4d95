"""The workflow file: a recorded run as portable, versioned steps (``docs/replay.md``).

One file holds one session's kept ``act_ui`` transactions, in order. Nothing
in it belongs to one session: windows are matched by app, kind and title
(and URL for pages), elements by :class:`~actui.outline.selectors.Selector`,
and typed text is a named variable (``{{email}}``) whose recorded value is
its default, except a password's, which is never written. Each step keeps
its ``require`` and ``expect`` (the recorded effect when the agent wrote
none) and what the recording saw, so a replay can stop where a run differs.

This module owns the format: its models, the template rule, reading with an
error that names the field, and writing. It must not observe or act.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from actui.errors import InvalidParams
from actui.outline.selectors import Selector
from actui.tools import contract

FORMAT: Final = "actui-workflow"
VERSION = 1
"""The format this actui writes and reads; a file of another version is refused by name."""
PLACEHOLDER_REF = "@e1"
"""Stands for a selector while a step is checked by the contract's own rules."""
NAME = r"^[a-z][a-z0-9_]{0,63}$"
TEMPLATE = re.compile(r"\{\{([a-z][a-z0-9_]{0,63})(:basename)?\}\}")
"""``{{name}}`` is a variable's value; ``{{name:basename}}`` the last part of a path in it."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Window(_Strict):
    """Which window a step acts on: its app, kind and title (a template), and a page's URL."""

    app: str = Field(max_length=256)
    kind: str = Field(max_length=32)
    title: str = Field(max_length=1024)
    url: str = Field(default="", max_length=8192)


class Check(_Strict):
    """A condition of ``act_ui`` (``docs/tools.md``) with selectors where it had refs:
    ``target`` for ``ref``, ``scope`` for ``scopeRef``."""

    target: Selector | None = None
    scope: Selector | None = None
    scopeExact: bool | None = None
    text: str | None = Field(default=None, max_length=512)
    role: str | None = Field(default=None, max_length=128)
    value: str | None = Field(default=None, max_length=4096)
    until: Literal["present", "absent"] | None = None
    timeoutMs: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _a_condition(self) -> Check:
        contract.Condition.model_validate(self.wire({}))
        return self

    def wire(self, refs: Mapping[int, str]) -> dict[str, object]:
        """The contract's condition, ``refs`` giving each selector's ref by ``id()``
        (a placeholder where none is given)."""
        out = self.model_dump(exclude_none=True, exclude={"target", "scope"})
        if self.target is not None:
            out["ref"] = refs.get(id(self.target), PLACEHOLDER_REF)
        if self.scope is not None:
            out["scopeRef"] = refs.get(id(self.scope), PLACEHOLDER_REF)
        return out

    def selectors(self) -> tuple[Selector, ...]:
        return tuple(s for s in (self.target, self.scope) if s is not None)


class Act(_Strict):
    """One step of ``act_ui`` with a selector for its ``ref``; ``until`` is a :class:`Check`."""

    model_config = ConfigDict(extra="allow", frozen=True)

    action: str
    target: Selector | None = None
    until: Check | None = None

    @model_validator(mode="after")
    def _a_step(self) -> Act:
        contract.ActionStep.model_validate(self.wire({}))
        return self

    @property
    def text(self) -> str | None:
        text = (self.model_extra or {}).get("text")
        return text if isinstance(text, str) else None

    def wire(self, refs: Mapping[int, str]) -> dict[str, object]:
        """The contract's step (see :meth:`Check.wire`)."""
        out: dict[str, object] = {"action": self.action, **(self.model_extra or {})}
        if self.target is not None:
            out["ref"] = refs.get(id(self.target), PLACEHOLDER_REF)
        if self.until is not None:
            out["until"] = self.until.wire(refs)
        return out

    def selectors(self) -> tuple[Selector, ...]:
        mine = () if self.target is None else (self.target,)
        return mine + (self.until.selectors() if self.until else ())


class Traced(_Strict):
    """What one recorded step did, as its trace said (no evidence for a password field)."""

    action: str
    outcome: str
    mechanism: str = ""
    evidence: dict[str, object] | None = None


class Recorded(_Strict):
    """What the recording saw of a step: the outcome, the check, the act's time."""

    outcome: str
    check: str | None = None
    ms: int = Field(ge=0)
    derivedExpect: bool = False
    """``expect`` is the recorded effect: the agent wrote none."""
    traces: tuple[Traced, ...] = ()


class Step(_Strict):
    window: Window
    actions: tuple[Act, ...] = Field(min_length=1, max_length=contract.MAX_ACTIONS)
    require: Check | None = None
    expect: Check | None = None
    recorded: Recorded

    def checks(self) -> tuple[Check, ...]:
        return tuple(c for c in (self.require, self.expect) if c is not None)

    def selectors(self) -> tuple[Selector, ...]:
        found = [s for act in self.actions for s in act.selectors()]
        return (*found, *(s for c in self.checks() for s in c.selectors()))


class Variable(_Strict):
    """A typed text: its name, whether it went to a password field, its recorded value."""

    name: str = Field(pattern=NAME)
    secret: bool = False
    default: str | None = None

    @model_validator(mode="after")
    def _no_secret_written(self) -> Variable:
        if self.secret and self.default is not None:
            raise ValueError("a secret variable has no default: its value is never written")
        return self


class LeftOut(_Strict):
    """A transaction that is not a step, and why."""

    call: int = Field(ge=1, description="Its place among the session's act_ui calls.")
    why: str
    window: str = ""


class Workflow(_Strict):
    format: Literal["actui-workflow"] = FORMAT
    version: int = VERSION
    name: str = Field(pattern=NAME)
    recordedAt: str = ""
    variables: tuple[Variable, ...] = ()
    steps: tuple[Step, ...] = ()
    leftOut: tuple[LeftOut, ...] = ()

    @model_validator(mode="after")
    def _templates_name_variables(self) -> Workflow:
        known = {v.name: v for v in self.variables}
        for index, step in enumerate(self.steps):
            for where, text in _templated(step):
                for name, _ in TEMPLATE.findall(text):
                    variable = known.get(name)
                    if variable is None:
                        raise ValueError(
                            f"steps[{index}].{where} names an undeclared {{{{{name}}}}}"
                        )
                    if variable.secret and not where.startswith("actions"):
                        raise ValueError(
                            f"steps[{index}].{where} uses the secret {{{{{name}}}}}: a secret "
                            "is only typed, never shown in a title or a condition"
                        )
        return self

    @property
    def recorded_ms(self) -> int:
        """The recorded act_ui calls' time, over the kept steps."""
        return sum(step.recorded.ms for step in self.steps)


def _templated(step: Step) -> list[tuple[str, str]]:
    """Every string of ``step`` a variable may appear in, with where it is."""
    found = [("window.title", step.window.title), ("window.url", step.window.url)]
    for i, act in enumerate(step.actions):
        if act.text is not None:
            found.append((f"actions[{i}].text", act.text))
        if act.until is not None:
            found += [(f"actions[{i}].until.{k}", v) for k, v in _strings(act.until)]
    for name, check in (("require", step.require), ("expect", step.expect)):
        if check is not None:
            found += [(f"{name}.{k}", v) for k, v in _strings(check)]
    return found


def _strings(check: Check) -> list[tuple[str, str]]:
    return [(k, v) for k, v in (("text", check.text), ("value", check.value)) if v is not None]


def fill(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{{name}}`` replaced by its value (a path's last part for
    ``{{name:basename}}``)."""

    def value(match: re.Match[str]) -> str:
        text = values[match.group(1)]
        return os.path.basename(text) if match.group(2) else text

    return TEMPLATE.sub(value, template)


def values_of(workflow: Workflow, given: Mapping[str, str]) -> dict[str, str]:
    """Every variable's value: given, else recorded; an unknown or missing one named."""
    names = {v.name for v in workflow.variables}
    for name in given:
        if name not in names:
            listed = ", ".join(sorted(names)) or "none"
            raise InvalidParams(
                f"var {name}", "is not a variable of this workflow.", f"It has: {listed}."
            )
    values: dict[str, str] = {}
    for variable in workflow.variables:
        value = given.get(variable.name, variable.default)
        if value is None:
            raise InvalidParams(
                f"var {variable.name}",
                "is required: it is a secret, and the recording never kept its value.",
                f"Give it: --var {variable.name}=VALUE.",
            )
        values[variable.name] = value
    return values


def load(path: Path) -> Workflow:
    """The workflow in ``path``; an unreadable file or a bad field raises ``InvalidParams``
    naming it."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidParams(str(path), f"cannot be read ({exc.strerror}).") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidParams(str(path), f"is not JSON ({exc}).", "Give a workflow file.") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise InvalidParams(f"{path}: format", f'is not "{FORMAT}".', "Give a workflow file.")
    if raw.get("version") != VERSION:
        raise InvalidParams(
            f"{path}: version",
            f"is {raw.get('version')!r}; this actui reads version {VERSION}.",
            "Record the workflow again with this actui.",
        )
    try:
        return Workflow.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        at = ".".join(str(part) for part in error["loc"] if not str(part).startswith("function"))
        message = str(error["msg"]).removeprefix("Value error, ")
        raise InvalidParams(f"{path}: {at or 'workflow'}", message.rstrip(".") + ".") from None


def dump(workflow: Workflow) -> str:
    return json.dumps(workflow.model_dump(mode="json", exclude_none=True), indent=2) + "\n"


def save(workflow: Workflow, path: Path) -> None:
    """Write ``workflow`` to ``path`` whole (a reader never meets half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(dump(workflow), encoding="utf-8")
    partial.replace(path)


def tool_name(workflow: Workflow) -> str:
    """The MCP tool that runs it: ``run_<name>``."""
    return f"run_{workflow.name}"
