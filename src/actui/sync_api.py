"""The Python API for scripts without ``asyncio``: the same calls, each run to its end.

::

    with SyncComputer() as computer:
        state = computer.observe(computer.find_roots(text="calculator").first)
        seven = state.search(text="7", role="button").first
        computer.act(state, seven.press(), expect=Expect(text="7")).raise_for_outcome()

One event loop of its own runs every call (the backends keep their
connections on it), so it cannot be used from inside a running loop: use
:mod:`actui.api` there. The results are :mod:`actui.api`'s; their
``search``, ``element`` and ``raise_for_outcome`` need no loop, and what
acts from a state is a method here that takes the state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from actui import api
from actui.api import Done, Element, Evaluated, Expect, Observation, Root, Roots, Step
from actui.backends.base import Backend
from actui.results.tool_result import ToolResult
from actui.runtime.store import ObserveMode
from actui.tools.replaying import WINDOW_TIMEOUT_S

T = TypeVar("T")

__all__ = ["Expect", "SyncComputer"]


class SyncComputer:
    """:class:`actui.api.Computer`, one call at a time."""

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        desktop: Backend | None = None,
        record: str | Path | None = None,
    ) -> None:
        self._runner = asyncio.Runner()
        self._async = api.Computer(env=env, desktop=desktop, record=record)

    @property
    def recording(self) -> Path | None:
        return self._async.recording

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        return self._runner.run(work)

    def __enter__(self) -> SyncComputer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._run(self._async.close())
        finally:
            self._runner.close()

    def call(self, tool: str, arguments: Mapping[str, object] | None = None) -> ToolResult:
        return self._run(self._async.call(tool, arguments))

    def find_roots(
        self,
        text: str | None = None,
        *,
        app: str | None = None,
        pid: int | None = None,
        kind: str | None = None,
    ) -> Roots:
        return self._run(self._async.find_roots(text, app=app, pid=pid, kind=kind))

    def observe(
        self, root: Root | str | None = None, *, mode: ObserveMode = "fused"
    ) -> Observation:
        return self._run(self._async.observe(root, mode=mode))

    def wait_for_window(
        self,
        *,
        app: str,
        title: str,
        kind: str = "window",
        url: str = "",
        timeout_s: float = WINDOW_TIMEOUT_S,
    ) -> Root:
        return self._run(
            self._async.wait_for_window(
                app=app, title=title, kind=kind, url=url, timeout_s=timeout_s
            )
        )

    def launch_browser(self, url: str | None = None) -> Observation:
        return self._run(self._async.launch_browser(url))

    def act(
        self,
        state: Observation,
        *steps: Step,
        expect: Expect | None = None,
        require: Expect | None = None,
    ) -> Done:
        return self._run(state.act(*steps, expect=expect, require=require))

    def wait_for(self, state: Observation, condition: Expect) -> api.Waited:
        return self._run(state.wait_for(condition))

    def read_text(self, state: Observation, element: Element | str) -> str:
        return self._run(state.read_text(element))

    def navigate(self, state: Observation, url: str) -> Observation:
        return self._run(state.navigate(url))

    def evaluate(self, state: Observation, expression: str) -> Evaluated:
        return self._run(state.evaluate(expression))
