"""Driving a real corpus app through ``ToolBox`` while proving it survives every call."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from computer_helpers import executed, matches_of, process_alive, state_id_of, windows_of

from actui.backends.linux.sandbox import Sandbox
from actui.results.tool_result import ToolResult
from actui.results.typed import Execution, RootView
from actui.tools.dispatch import ToolBox


class Driven:
    """A ``ToolBox`` whose every call is followed by the check that the app still runs."""

    def __init__(self, computer: ToolBox, pid: int) -> None:
        self.computer = computer
        self.pid = pid
        self.texts: list[str] = []
        """Every tool result's text and details, to prove what never appears in them."""

    async def call(self, tool: str, args: dict[str, Any] | None = None) -> ToolResult:
        result = await self.computer.call(tool, args or {})
        self.texts.append(result.text + repr(result.details))
        assert process_alive(self.pid), f"the app (pid {self.pid}) died during {tool} {args}"
        return result

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> ToolResult:
        """A call that must not fail (its typed value is read through computer_helpers)."""
        result = await self.call(tool, args)
        assert not result.is_error, result.text
        return result

    async def act(self, args: dict[str, Any]) -> Execution:
        """An act_ui call that must not fail: its typed execution."""
        return executed(await self.ok("act_ui", args))

    async def window(self, title: str, timeout_s: float = 20.0) -> RootView:
        """The app's root whose title contains ``title``, once it has its X window."""
        async with asyncio.timeout(timeout_s):
            while True:
                found = await self.ok("find_roots", {"pid": self.pid})
                for window in windows_of(found):
                    if window.root.window_id and title in window.title:
                        return window
                await asyncio.sleep(0.1)

    async def look(self, title: str) -> str:
        """The stateId of a semantic observe_ui of the window titled ``title``, its text
        (up to 20,000 tokens) in ``texts[-1]``."""
        window = await self.window(title)
        observed = await self.ok(
            "observe_ui", {"root": window.ref, "mode": "semantic", "maxTokens": 20000}
        )
        return state_id_of(observed)

    async def answering(self) -> None:
        """The app still answers: its windows are listed."""
        found = await self.ok("find_roots", {"pid": self.pid})
        assert windows_of(found), found.text

    async def refs(self, state: str, **query: str) -> list[str]:
        found = await self.ok("search_ui", {"stateId": state, **query})
        return [match.ref for match in matches_of(found)]


@asynccontextmanager
async def headless_app(sandbox: Sandbox, argv: list[str]) -> AsyncIterator[Driven]:
    """``argv`` started on the sandbox and driven headless; killed afterwards."""
    process = await sandbox.launch(argv)
    await sandbox.wait_for_app(process.pid)
    computer = ToolBox(env={**sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        yield Driven(computer, process.pid)
    finally:
        await computer.close()
        if process.returncode is None:
            process.kill()
            await process.wait()
