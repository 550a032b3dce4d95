"""Recording a session's ``act_ui`` transactions as a workflow file (``actui mcp --record``).

The recorder sits on the act_ui call path (``dispatch.ToolBox``) and sees
each transaction's state, parameters and result. A transaction that
``worked`` with a check ``verified`` or ``preexisting`` (or, without an
``expect``, whose effect could be read back: a field's value, a window that
closed or opened) becomes a step; every other one is listed as left out, with
why. Refs become selectors against the state the agent acted on; typed text
becomes a variable named after its field, a password field's with no value.
The file is rewritten whole after each transaction, so a session that ends
abruptly still leaves every step it kept.

It must not change what a transaction does or returns.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from actui.errors import ActuiError
from actui.outline.conditions import anchor_node, condition_of, evaluate
from actui.outline.model import Node, Outline
from actui.outline.selectors import Selector, selector_of
from actui.results.tool_result import ToolResult
from actui.results.typed import Execution, StepTrace
from actui.runtime.store import State
from actui.tools import contract
from actui.tools.transaction import ActUi
from actui.tools.workflow import (
    Act,
    Check,
    LeftOut,
    Recorded,
    Step,
    Traced,
    Variable,
    Window,
    Workflow,
    save,
)

log = logging.getLogger(__name__)

TEMPLATED_MIN = 3
"""A recorded value shorter than this is not looked for in titles and conditions
(``a`` would turn every title into a template)."""
TYPED = ("setText", "typeText")
SESSION_EVIDENCE = frozenset({"windows"})
"""Evidence that names one session's windows by their native identities: not written."""
UNPORTABLE = ("drag", "moveMouse")
"""Steps addressed by image pixels only: they name no element to find again."""


class Recorder:
    """One session's workflow, written to ``directory`` as its transactions run."""

    def __init__(self, directory: Path, *, name: str | None = None) -> None:
        self.directory = directory
        self.name = name
        self.path: Path | None = None
        self._calls = 0
        self._steps: list[Step] = []
        self._left: list[LeftOut] = []
        self._values: dict[str, str] = {}
        """Variable name → recorded value (secrets too: never written)."""
        self._secret: set[str] = set()
        self._started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    async def transaction(
        self, state_of: Callable[[str], State], p: ActUi, work: Awaitable[ToolResult]
    ) -> ToolResult:
        """Run ``work`` (the act_ui call on ``p``) and record what it did."""
        self._calls += 1
        try:
            state: State | None = state_of(p.stateId)
        except ActuiError:
            state = None
        began = time.monotonic()
        try:
            result = await work
        except ActuiError as exc:
            self._leave(state, f"the call failed ({exc.code})")
            raise
        ms = round((time.monotonic() - began) * 1000)
        if state is None or not isinstance(result.value, Execution):
            self._leave(state, "the call failed" if result.is_error else "no transaction ran")
            return result
        try:
            self._take(state, p, result.value, ms, state_of)
        except (ValueError, ActuiError) as exc:  # what ran must reach the agent whatever
            log.warning("act_ui call %d not recorded: %s", self._calls, exc)
            self._leave(state, f"it could not be made portable ({type(exc).__name__})")
        return result

    @property
    def workflow(self) -> Workflow:
        variables = tuple(
            Variable(name=n, secret=n in self._secret, default=None if n in self._secret else v)
            for n, v in self._values.items()
        )
        return Workflow(
            name=self.name or "workflow",
            recordedAt=self._started,
            variables=variables,
            steps=tuple(self._steps),
            leftOut=tuple(self._left),
        )

    def _write(self, state: State | None) -> None:
        if self.path is None:
            app = state.root.app_name if state is not None else "session"
            stamp = self._started.replace("-", "").replace(":", "").lower()
            self.path = self._claim(self.name or f"{_slug(app) or 'session'}_{stamp}")
        save(self.workflow, self.path)

    def _claim(self, name: str) -> Path:
        """A file of its own for this session: ``name``, or ``name_2`` … when another
        session (an MCP server over HTTP records each of its sessions) took it first."""
        self.directory.mkdir(parents=True, exist_ok=True)
        taken, n = name, 1
        while True:
            path = self.directory / f"{taken}.workflow.json"
            try:
                path.open("x").close()
            except FileExistsError:
                n += 1
                taken = f"{name}_{n}"
                continue
            self.name = taken
            return path

    def _leave(self, state: State | None, why: str) -> None:
        title = state.root.title if state is not None else ""
        self._left.append(LeftOut(call=self._calls, why=why, window=title))
        self._write(state)

    def _take(
        self,
        state: State,
        p: ActUi,
        done: Execution,
        ms: int,
        state_of: Callable[[str], State],
    ) -> None:
        check = done.verification.status if done.verification else None
        why = _unkept(p, done, check)
        if why:
            self._leave(state, why)
            return
        outline = state.outline
        known = dict(self._values), set(self._secret)
        acts = tuple(self._act(outline, step) for step in p.actions)
        require = self._check(outline, p.require)
        expect = self._check(outline, p.expect)
        derived = expect is None
        if derived:
            after = done.observation
            successor = state_of(after.state_id).outline if after is not None else None
            expect = self._effect(outline, p, done, successor)
            if expect is None:
                self._values, self._secret = known  # its typed text names no variable
                self._leave(state, "no check: give act_ui an expect (nothing to read back)")
                return
        recorded = Recorded(
            outcome=done.outcome,
            check=check,
            ms=ms,
            derivedExpect=derived,
            traces=tuple(
                self._traced(outline, s, t) for s, t in zip(p.actions, done.steps, strict=False)
            ),
        )
        window = Window(
            app=state.root.app_name,
            kind=state.root.kind,
            title=self._templated(state.root.title),
            url=self._templated(state.root.url) if state.root.kind == "browser_page" else "",
        )
        step = Step(window=window, actions=acts, require=require, expect=expect, recorded=recorded)
        self._steps.append(step)
        self._write(state)

    def _act(self, outline: Outline, step: contract.ActionStep) -> Act:
        fields = step.model_dump(exclude_none=True, exclude={"action", "ref", "until"})
        node = outline.get(step.ref) if step.ref else None
        target = selector_of(outline, node) if node is not None else None
        if step.text is not None and step.action in TYPED:
            focused = node or next((n for n in outline if n.focused), None)
            fields["text"] = self._variable(step.text, target, focused)
        until = self._check(outline, step.until)
        return Act(action=step.action, target=target, until=until, **fields)

    def _variable(self, text: str, target: Selector | None, node: Node | None) -> str:
        """``{{name}}`` for typed ``text``: a known variable of the same value, or a new
        one named after its field (a password field's never keeps its value)."""
        secret = node is not None and node.secure
        if not secret:
            for name, value in self._values.items():
                if value == text and name not in self._secret:
                    return f"{{{{{name}}}}}"
        base = _slug(target.name if target else "") or "text"
        name, n = base, 1
        while name in self._values:
            n += 1
            name = f"{base}_{n}"
        self._values[name] = text
        if secret:
            self._secret.add(name)
        return f"{{{{{name}}}}}"

    def _check(self, outline: Outline, raw: contract.Condition | None) -> Check | None:
        if raw is None:
            return None
        cond = condition_of(raw)
        target = scope = None
        node = anchor_node(cond, outline)
        if node is not None and cond.ref is not None:
            target = selector_of(outline, node)
        elif node is not None:
            scope = selector_of(outline, node)
        return Check(
            target=target,
            scope=scope,
            scopeExact=cond.scope_exact if scope is not None else None,
            text=None if cond.text is None else self._templated(cond.text),
            role=cond.role,
            value=None if cond.value is None else self._templated(cond.value),
            until="absent" if cond.until == "absent" else None,
            timeoutMs=raw.timeoutMs,
        )

    def _effect(
        self, outline: Outline, p: ActUi, done: Execution, successor: Outline | None
    ) -> Check | None:
        """The recorded effect as a postcondition, for a transaction without ``expect``:
        the last typed field's value as read back, the acted-on element gone with its
        window, or the title of a window the steps opened."""
        last = next((s for s in reversed(p.actions) if s.ref is not None), None)
        node = outline.get(last.ref) if last is not None and last.ref else None
        target = selector_of(outline, node) if node is not None else None
        if done.ended is not None and target is not None:
            return Check(target=target, until="absent")
        if successor is None or last is None or node is None or target is None:
            return None
        after = successor.get(node.ref)
        if last.action in TYPED and after is not None and not after.secure:
            wanted = contract.Condition.model_validate({"ref": node.ref, "value": after.value})
            if evaluate(condition_of(wanted), successor).satisfied:
                return Check(target=target, value=self._templated(after.value.strip()))
        opened = [d for d in done.root_deltas if d.change == "appeared" and d.title.strip()]
        if opened:
            return Check(text=self._templated(opened[0].title.strip()))
        return None

    def _traced(self, outline: Outline, step: contract.ActionStep, trace: StepTrace) -> Traced:
        node = outline.get(step.ref) if step.ref else None
        secret = (node is not None and node.secure) or any(
            v in str(trace.evidence) for n, v in self._values.items() if n in self._secret
        )
        kept = {k: v for k, v in (trace.evidence or {}).items() if k not in SESSION_EVIDENCE}
        evidence = None if secret or not kept else kept
        return Traced(
            action=trace.action, outcome=trace.outcome, mechanism=trace.mechanism, evidence=evidence
        )

    def _templated(self, text: str) -> str:
        """``text`` with each non-secret variable's value (or its path's last part) as
        its template."""
        for name, value in sorted(self._values.items(), key=lambda kv: -len(kv[1])):
            if name in self._secret or len(value) < TEMPLATED_MIN:
                continue
            text = text.replace(value, f"{{{{{name}}}}}")
            base = Path(value).name
            if base != value and len(base) >= TEMPLATED_MIN:
                text = text.replace(base, f"{{{{{name}:basename}}}}")
        return text


def _unkept(p: ActUi, done: Execution, check: str | None) -> str:
    """Why a transaction is not a step ("" when it is one)."""
    if done.outcome != "worked":
        return f"outcome {done.outcome}"
    if check is not None and check not in ("verified", "preexisting"):
        return f"check {check}"
    if any(s.action in UNPORTABLE or (s.action != "wait" and s.x is not None) for s in p.actions):
        return "a step is addressed by image pixels: no element to find again"
    return ""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40].lstrip("0123456789_")
