"""The Python API: snake_case calls, typed results, errors raised as exceptions.

::

    async with Computer() as computer:
        win = (await computer.find_roots(text="calculator")).first
        state = await computer.observe(win)
        seven = state.search(text="7", role="button").first
        done = await state.act(seven.press(), expect=Expect(text="7"))
        done.raise_for_outcome()

It runs the same tools an agent calls (``Computer.call(tool, arguments)``
stays for that, and for the MCP server and the CLI), so validation, the
stale-state rule and honest outcomes are the same; what differs is the face.
Wire names (``stateId``, ``clickCount``) appear only where a call is sent. A
tool's failure is raised as its typed error (:mod:`actui.errors`, with its
``code`` and data); an act whose outcome is not ``worked`` is not an
exception until :meth:`Done.raise_for_outcome` is asked, the way an HTTP
response is checked.
This module decides nothing a tool does not: it translates.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar, overload

from actui.backends.base import Backend, Outcome
from actui.errors import ActuiError
from actui.outline.model import Node
from actui.outline.search import SearchResult
from actui.outline.search import search as search_outline
from actui.outline.selectors import Ancestor, Selector, resolve
from actui.results.observations import ElementText, Observed, PageShown, WaitReport, WindowClosed
from actui.results.tool_result import ToolResult
from actui.results.typed import (
    Execution,
    Found,
    RootsFound,
    RootView,
    StepError,
    StepTrace,
    Verification,
    VerificationStatus,
    Wire,
)
from actui.runtime.deltas import RootDelta
from actui.runtime.store import ObserveMode, State
from actui.tools import contract
from actui.tools.dispatch import ToolBox
from actui.tools.recording import Recorder
from actui.tools.replaying import WINDOW_TIMEOUT_S, WindowWanted, find_window

Root = RootView
"""A window, dialog or page, by its ``@r`` ref (``root`` has all the backend said)."""
Step = contract.ActionStep
"""One step of an act, checked by the contract when it is made."""
Button = Literal["left", "right", "middle"]
T = TypeVar("T")
Shows = Observed | WaitReport | PageShown | Execution
"""The results that carry a saved state (an act's only when it has a successor)."""


class OutcomeError(ActuiError):
    """An act that did not do what was meant, raised by :meth:`Done.raise_for_outcome`."""

    code = "outcome"

    def __init__(self, done: Done, message: str) -> None:
        super().__init__(message)
        self.done = done


class CheckFailed(OutcomeError):
    """The steps ran, but ``expect`` did not hold."""

    code = "postcondition_failed"


class ActionDidnt(OutcomeError):
    """A step had no effect (``didnt``): the transaction stopped there."""

    code = "didnt"


class OutcomeUnknown(OutcomeError):
    """The steps were delivered but nothing confirmed their effect (``unknown``)."""

    code = "unknown"


class NoMatch(LookupError):
    """``first`` of an empty result, or not exactly one element for :meth:`Observation.one`."""


def _typed(result: ToolResult, kind: type[T]) -> T:
    """The typed value a tool's result carries, as the kind its tool returns."""
    if not isinstance(result.value, kind):
        raise TypeError(f"{kind.__name__} expected, the result carries {result.value!r}")
    return result.value


def _step(**fields: object) -> Step:
    """A step checked now, so a bad one raises where it is written (``InvalidParams``)."""
    return contract.validate_step({k: v for k, v in fields.items() if v is not None})


@dataclass(frozen=True)
class Expect:
    """A UI condition: for ``expect``, ``require``, a wait step and :meth:`Observation.wait_for`.

    ``text`` is a substring of an element's name or value, ``role`` its role,
    ``ref`` one element (with ``value``: its exact value), ``scope`` a subtree;
    ``gone=True`` waits for it to be absent. ``timeout_ms`` defaults to the
    tools' 10 s.
    """

    text: str | None = None
    role: str | None = None
    ref: Element | str | None = None
    value: str | None = None
    scope: Element | str | None = None
    scope_exact: bool | None = None
    gone: bool = False
    timeout_ms: int | None = None

    def to_wire(self) -> Wire:
        wire = {
            "text": self.text,
            "role": self.role,
            "ref": self.ref.ref if isinstance(self.ref, Element) else self.ref,
            "value": self.value,
            "scopeRef": self.scope.ref if isinstance(self.scope, Element) else self.scope,
            "scopeExact": self.scope_exact,
            "until": "absent" if self.gone else None,
            "timeoutMs": self.timeout_ms,
        }
        return {key: value for key, value in wire.items() if value is not None}


@dataclass(frozen=True)
class Element:
    """One element of a state, and the steps that act on it.

    ``value`` is empty for a password field, as everywhere in actui.
    """

    node: Node

    @property
    def ref(self) -> str:
        return self.node.ref

    @property
    def role(self) -> str:
        return self.node.role

    @property
    def label(self) -> str:
        return self.node.label

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def value(self) -> str:
        return "" if self.node.secure else self.node.value

    @property
    def states(self) -> frozenset[str]:
        return self.node.states

    @property
    def capabilities(self) -> frozenset[str]:
        return self.node.caps

    def press(self) -> Step:
        return _step(action="press", ref=self.ref)

    def click(self, button: Button | None = None, count: int | None = None) -> Step:
        return _step(action="click", ref=self.ref, button=button, clickCount=count)

    def toggle(self) -> Step:
        return _step(action="toggle", ref=self.ref)

    def set_text(self, text: str) -> Step:
        return _step(action="setText", ref=self.ref, text=text)

    def type_text(self, text: str) -> Step:
        return _step(action="typeText", ref=self.ref, text=text)

    def keypress(self, *keys: str) -> Step:
        return _step(action="keypress", ref=self.ref, keys=list(keys))

    def set_value(self, value: float) -> Step:
        return _step(action="setValue", ref=self.ref, value=value)

    def select(self) -> Step:
        return _step(action="select", ref=self.ref)

    def focus(self) -> Step:
        return _step(action="focus", ref=self.ref)

    def expand(self) -> Step:
        return _step(action="expand", ref=self.ref)

    def collapse(self) -> Step:
        return _step(action="collapse", ref=self.ref)

    def scroll(self, dy: float = 0, dx: float = 0) -> Step:
        return _step(action="scroll", ref=self.ref, scrollY=dy or None, scrollX=dx or None)


def keypress(*keys: str) -> Step:
    """One key chord into whatever has focus: ``keypress("ctrl", "s")``."""
    return _step(action="keypress", keys=list(keys))


def type_text(text: str) -> Step:
    """Text typed into whatever has focus."""
    return _step(action="typeText", text=text)


def click_at(x: float, y: float, button: Button | None = None, count: int | None = None) -> Step:
    """A click at image pixels of the state (its screenshot's coordinates)."""
    return _step(action="click", x=x, y=y, button=button, clickCount=count)


def wait(ms: int | None = None, until: Expect | None = None) -> Step:
    """A pause between steps: ``ms``, or until a condition holds."""
    return _step(action="wait", ms=ms, until=until.to_wire() if until else None)


@dataclass(frozen=True)
class Ranked(Sequence[T]):
    """What a search or a listing returned, best first; ``total`` counts all that matched."""

    items: tuple[T, ...]
    total: int

    @property
    def first(self) -> T:
        """The best match (:class:`NoMatch` when there is none)."""
        if not self.items:
            raise NoMatch(f"nothing matched ({type(self).__name__} is empty)")
        return self.items[0]

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)


@dataclass(frozen=True)
class Matches(Ranked[Element]):
    """Elements a search found; ``state`` is the state their refs belong to: act through it."""

    state: Observation = field(repr=False, compare=False)


@dataclass(frozen=True)
class Roots(Ranked[Root]):
    """The roots ``find_roots`` returned; ``text`` is its listing as an agent reads it."""

    text: str


@dataclass(frozen=True)
class Observation:
    """One saved state of a root: its outline to search, and the calls made from it.

    ``text`` is what an agent would read (a view, or a diff from the state it
    came from); ``images`` the screenshot when one was attached (PNG bytes).
    Refs of this state's elements act only through this state: after an act,
    use :attr:`Done.state`.
    """

    state: State
    text: str
    images: tuple[bytes, ...]
    computer: Computer = field(repr=False, compare=False)

    @property
    def state_id(self) -> str:
        return self.state.state_id

    @property
    def root(self) -> Root:
        return RootView(self.state.root_ref, self.state.root)

    def element(self, ref: str) -> Element:
        """The element ``ref`` of this state (``InvalidParams`` when it has none)."""
        return Element(self.state.node(ref))

    def search(
        self, text: str | None = None, *, role: str | None = None, capability: str | None = None
    ) -> Matches:
        """Elements of this state by text, role or capability, ranked as ``search_ui`` ranks.

        It searches what the state read; rows a big list did not show are read
        by the ``search_ui`` tool (``computer.call``).
        """
        found = search_outline(self.state.outline, text=text, role=role, capability=capability)
        return self._matches(found)

    async def find(
        self, text: str | None = None, *, role: str | None = None, capability: str | None = None
    ) -> Matches:
        """:meth:`search`, and where it finds no exact match, also what the state left
        unread (rows a big list did not show, hidden pages), read on demand
        (``search_ui``); the matches then belong to the successor state it saved."""
        wanted = {"text": text, "role": role, "capability": capability}
        args = {"stateId": self.state_id, **{k: v for k, v in wanted.items() if v is not None}}
        result = await self.computer.run("search_ui", args)
        found = _typed(result, Found)
        state = self
        if found.state_id != self.state_id:
            state = Observation(
                self.computer.tools.state(found.state_id), result.text, (), self.computer
            )
        return state._matches(found.result)

    def one(
        self,
        role: str,
        name: str = "",
        *,
        path: Sequence[tuple[str, str]] | None = None,
        index: int | None = None,
        of: int | None = None,
    ) -> Element:
        """The one on-screen element with this role and name (its name, or the label read
        beside it), as a recorded workflow finds it again (``outline.selectors``).
        ``path`` pins its named ancestors, ``(role, name)`` from the window down, exactly
        (any, when None); ``index`` of ``of`` equals breaks a tie. :class:`NoMatch`,
        naming the candidates, when not exactly one is."""
        pinned = tuple(Ancestor(*a) for a in path or ())
        selector = Selector(role, name, pinned, index, of)
        found = resolve(self.state.outline, selector, anywhere=path is None)
        if found.node is None:
            near = "; ".join(found.candidates) or "nothing like it"
            raise NoMatch(f"{found.why}: {selector.describe()} (on screen: {near})")
        return Element(found.node)

    def _matches(self, found: SearchResult) -> Matches:
        return Matches(tuple(self.element(m.ref) for m in found.matches), found.total, self)

    async def act(
        self, *steps: Step, expect: Expect | None = None, require: Expect | None = None
    ) -> Done:
        """Run ``steps`` as one transaction on this state (``act_ui``)."""
        args: dict[str, object] = {
            "stateId": self.state_id,
            "actions": [step.model_dump(exclude_none=True, by_alias=True) for step in steps],
        }
        if expect is not None:
            args["expect"] = expect.to_wire()
        if require is not None:
            args["require"] = require.to_wire()
        return self.computer._done(await self.computer.run("act_ui", args))

    async def wait_for(self, condition: Expect) -> Waited:
        """Wait until ``condition`` holds on this root; the newest state either way."""
        result = await self.computer.run(
            "wait_for", {"stateId": self.state_id, **condition.to_wire()}
        )
        waited = result.value
        if not isinstance(waited, (WaitReport, WindowClosed)):
            raise TypeError(f"a wait expected, the result carries {waited!r}")
        state = self.computer._observed(result) if isinstance(waited, WaitReport) else None
        return Waited(waited.found, waited.timed_out, state, result.text)

    async def read_text(self, element: Element | str) -> str:
        """An element's whole live text, read in pages."""
        ref = element.ref if isinstance(element, Element) else element
        pages: list[str] = []
        offset = 0
        while True:
            args = {"stateId": self.state_id, "ref": ref, "offset": offset}
            page = (await self.computer.run("read_text", args)).value
            if not isinstance(page, ElementText):
                raise TypeError(f"read_text of {ref} returned {type(page).__name__}")
            pages.append(page.text)
            offset += page.limit
            if not page.has_more or not page.limit:
                return "".join(pages)

    async def navigate(self, url: str) -> Observation:
        """Load ``url`` in this browser page; the page's new state."""
        result = await self.computer.run("navigate_browser", {"stateId": self.state_id, "url": url})
        return self.computer._observed(result)

    async def evaluate(self, expression: str) -> Evaluated:
        """Run JavaScript in this browser page; its JSON value and the page's new state."""
        result = await self.computer.run(
            "evaluate_browser", {"stateId": self.state_id, "expression": expression}
        )
        evaluated = _typed(result, PageShown).evaluation
        raw = evaluated.value if evaluated is not None else None
        value = json.loads(raw) if raw is not None else None
        exception = evaluated.exception if evaluated is not None else None
        return Evaluated(value, exception, self.computer._observed(result))


@dataclass(frozen=True)
class Waited:
    """What :meth:`Observation.wait_for` saw; ``state`` is None when the window closed."""

    found: bool
    timed_out: bool
    state: Observation | None
    text: str


@dataclass(frozen=True)
class Evaluated:
    """A script's JSON value: None when it threw (``exception`` says what) or when it
    was too large for structured content (``state.text`` carries it, bounded)."""

    value: Any
    exception: str | None
    state: Observation


@dataclass(frozen=True)
class Done:
    """The result of an act: the outcome, the check, and the successor state.

    ``outcome`` is ``worked`` (confirmed), ``didnt`` (a step had no effect)
    or ``unknown`` (delivered, not confirmed); ``check`` is the status of
    ``expect`` (None without one). ``state`` is None when the window closed
    or could not be read afterwards: the steps were still delivered, so do
    not repeat them (``error`` says which). ``execution`` has every step.
    """

    execution: Execution
    state: Observation | None
    error: StepError | None
    text: str

    @property
    def outcome(self) -> Outcome:
        return self.execution.outcome

    @property
    def verification(self) -> Verification | None:
        return self.execution.verification

    @property
    def check(self) -> VerificationStatus | None:
        verification = self.execution.verification
        return verification.status if verification else None

    @property
    def stopped_at(self) -> int | None:
        return self.execution.stopped_at

    @property
    def steps(self) -> tuple[StepTrace, ...]:
        return self.execution.steps

    @property
    def root_deltas(self) -> tuple[RootDelta, ...]:
        return self.execution.root_deltas

    @property
    def worked(self) -> bool:
        return self.outcome == "worked"

    def raise_for_outcome(self) -> Done:
        """This result if it worked; else the :class:`OutcomeError` that says why not."""
        if self.check == "failed":
            message = self.error.message if self.error else "the postcondition failed"
            raise CheckFailed(self, message)
        if self.outcome == "didnt":
            step = "" if self.stopped_at is None else f" at step {self.stopped_at + 1}"
            raise ActionDidnt(self, f"the act had no effect{step}: {self.text.splitlines()[0]}")
        if self.outcome == "unknown":
            raise OutcomeUnknown(self, f"nothing confirmed the act: {self.text.splitlines()[0]}")
        return self


class Computer:
    """One session on this desktop (and browser), as a Python library.

    ``env`` is the environment to use (this process's by default: ``DISPLAY``
    and ``DBUS_SESSION_BUS_ADDRESS`` name the desktop); ``desktop`` replaces
    the platform backend (a model application in tests); ``record``, a
    directory, gets this session's acts as a workflow file (``docs/replay.md``).
    """

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        desktop: Backend | None = None,
        record: str | Path | None = None,
    ) -> None:
        recorder = Recorder(Path(record).expanduser()) if record is not None else None
        self.tools = ToolBox(env=env, desktop=desktop, record=recorder)
        """The wire-level tools: ``call(tool, arguments)`` with the agent's JSON."""

    @property
    def recording(self) -> Path | None:
        """The workflow file this session records to, once its first act is written."""
        return self.tools.recorder.path if self.tools.recorder else None

    async def __aenter__(self) -> Computer:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self.tools.close()

    async def call(self, tool: str, arguments: Mapping[str, object] | None = None) -> ToolResult:
        """One tool call with the agent's arguments; failures come back as results."""
        return await self.tools.call(tool, arguments)

    async def run(self, tool: str, arguments: Mapping[str, object]) -> ToolResult:
        """One tool call with the agent's arguments; a failure is raised as its typed
        error (:mod:`actui.errors`: ``InvalidParams``, ``StaleResourceStateError``,
        ``TargetGone`` …, each with its ``code``)."""
        return await self.tools.run(tool, arguments)

    async def find_roots(
        self,
        text: str | None = None,
        *,
        app: str | None = None,
        pid: int | None = None,
        kind: str | None = None,
    ) -> Roots:
        """Windows, dialogs and pages, best match first (``text`` ranks app and title)."""
        wanted = {"text": text, "app": app, "pid": pid, "kind": kind}
        result = await self.run("find_roots", {k: v for k, v in wanted.items() if v is not None})
        found = _typed(result, RootsFound)
        roots = tuple(f.view for f in found.roots)
        return Roots(roots, found.total, result.text)

    async def observe(
        self, root: Root | str | None = None, *, mode: ObserveMode = "fused"
    ) -> Observation:
        """A fresh state of ``root`` (default: the focused window)."""
        ref = root.ref if isinstance(root, Root) else root
        args: dict[str, object] = {"mode": mode, **({"root": ref} if ref else {})}
        return self._observed(await self.run("observe_ui", args))

    async def wait_for_window(
        self,
        *,
        app: str,
        title: str,
        kind: str = "window",
        url: str = "",
        timeout_s: float = WINDOW_TIMEOUT_S,
    ) -> Root:
        """The window of ``app`` with exactly this ``kind`` and ``title`` (and page ``url``),
        waited for up to ``timeout_s``; :class:`NoMatch`, naming the windows listed, when
        none came."""
        wanted = WindowWanted(app, kind, title, url)
        root, listed = await find_window(self.tools, wanted, timeout_s)
        if root is None:
            shown = "; ".join(f'{r.app} {r.kind} "{r.title}"' for r in listed[:5]) or "none"
            raise NoMatch(f"no {wanted.describe()} within {timeout_s:g} s (listed: {shown})")
        return root

    async def launch_browser(self, url: str | None = None) -> Observation:
        """A private Chromium showing ``url`` (default ``about:blank``), observed."""
        return self._observed(await self.run("launch_browser", {"url": url} if url else {}))

    def _observed(self, result: ToolResult) -> Observation:
        """The state a successful result saved, with its text and images."""
        value = result.value
        seen = value.observation if isinstance(value, Shows) else None
        if seen is None:
            raise TypeError(f"a saved state expected, the result carries {value!r}")
        state = self.tools.state(seen.state_id)
        return Observation(state, result.text, tuple(data for data, _ in result.images), self)

    def _done(self, result: ToolResult) -> Done:
        """An act's result, typed."""
        execution = _typed(result, Execution)
        return Done(
            execution=execution,
            state=self._observed(result) if execution.observation is not None else None,
            error=execution.error,
            text=result.text,
        )
