"""Helpers for integration tests that drive ``ToolBox`` like an agent does."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from actui.backends.linux.sandbox import Sandbox, tagged_pids
from actui.outline.model import Node
from actui.outline.search import Match
from actui.results.observations import (
    ElementText,
    Expanded,
    Inspected,
    Observed,
    PageShown,
    ToolError,
    WaitReport,
)
from actui.results.tool_result import ToolResult
from actui.results.typed import (
    Execution,
    Found,
    NoSuccessor,
    RootsFound,
    RootView,
    StateSummary,
    VerificationStatus,
)
from actui.tools.dispatch import ToolBox


async def paired_root(
    computer: ToolBox, *, pid: int | None = None, title: str = "", timeout_s: float = 20.0
) -> RootView:
    """The first root (of ``pid``, with ``title`` in its title) once it has its X window.

    AT-SPI can list a window before the window manager has mapped it, and
    physical input and captures need the X window, so wait for the pairing;
    an app ``pid`` that dies meanwhile fails at once, not at the timeout.
    """
    query: dict[str, Any] = {"pid": pid} if pid else {"text": title}
    async with asyncio.timeout(timeout_s):
        while True:
            found = await computer.call("find_roots", query)
            if pid:
                assert_alive(pid)
            listed = found.value.roots if isinstance(found.value, RootsFound) else ()
            for window in listed:
                if window.view.root.window_id and title in window.view.title:
                    # a window of the display: input reaches it and its pixels can be read
                    assert window.view.capabilities.input == "full", found.text
                    assert window.view.capabilities.capture == "full", found.text
                    return window.view
            await asyncio.sleep(0.05)


def executed(result: ToolResult) -> Execution:
    """An act_ui result's typed execution (its steps, stop, check and root deltas)."""
    assert isinstance(result.value, Execution), result.text
    return result.value


def ended_of(result: ToolResult) -> NoSuccessor:
    """Why an act_ui result has no successor: its window closed or its app ended (and how)."""
    ended = executed(result).ended
    assert ended is not None, result.text
    return ended


def observation_of(result: ToolResult) -> StateSummary:
    """The state a result saved: an observation's, a wait's or a page write's, or an
    act's successor (its id, its root, how it was shown)."""
    value = result.value
    seen = (
        value.observation
        if isinstance(value, (Observed, WaitReport, PageShown, Execution))
        else None
    )
    assert seen is not None, result.text
    return seen


def observed_of(result: ToolResult) -> Observed:
    """An observe_ui or launch_browser result's typed value (news, image, OCR beside the state)."""
    assert isinstance(result.value, Observed), result.text
    return result.value


def waited_of(result: ToolResult) -> WaitReport:
    """A wait_for result's typed value, with its successor (not a window that closed)."""
    assert isinstance(result.value, WaitReport), result.text
    return result.value


def state_id_of(result: ToolResult) -> str:
    """The id of the state a result saved (see :func:`observation_of`)."""
    return observation_of(result).state_id


def roots_of(result: ToolResult) -> RootsFound:
    """A find_roots result's typed value (the roots, their total and the notices)."""
    assert isinstance(result.value, RootsFound), result.text
    return result.value


def windows_of(result: ToolResult) -> tuple[RootView, ...]:
    """The roots a find_roots result lists, best first, as results name them."""
    return tuple(found.view for found in roots_of(result).roots)


def found_of(result: ToolResult) -> Found:
    """A search_ui result's typed value (its state and ranked matches)."""
    assert isinstance(result.value, Found), result.text
    return result.value


def matches_of(result: ToolResult) -> tuple[Match, ...]:
    """The ranked matches of a search_ui result."""
    return found_of(result).result.matches


def expanded_of(result: ToolResult) -> Expanded:
    """An expand_ui result's typed value (the state it was read into and the one asked about)."""
    assert isinstance(result.value, Expanded), result.text
    return result.value


def inspected_of(result: ToolResult) -> Node:
    """The element an inspect_ui result describes, as the stored state holds it."""
    assert isinstance(result.value, Inspected), result.text
    return result.value.target


def text_of(result: ToolResult) -> str:
    """The page of live text a read_text result of an ``@e`` ref carries."""
    assert isinstance(result.value, ElementText), result.text
    return result.value.text


def error_of(result: ToolResult) -> ToolError:
    """A failed call's typed error (its code and the sentence the agent read)."""
    assert result.is_error and isinstance(result.value, ToolError), result.text
    return result.value


def check_of(result: ToolResult) -> VerificationStatus | None:
    """The status of an act_ui result's ``expect`` (None without one)."""
    verification = executed(result).verification
    return verification.status if verification else None


def process_alive(pid: int) -> bool:
    """Running or stopped, but not exited (a zombie has exited; this PID 1 never reaps)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def assert_alive(pid: int) -> None:
    """The process ``pid`` still runs: it exists and is not a zombie (dead, not yet reaped)."""
    assert process_alive(pid), f"process {pid} is gone: it exited, was killed or died"


async def call_alive(
    computer: ToolBox, pid: int, tool: str, args: dict[str, Any] | None = None
) -> ToolResult:
    """One tool call that must succeed, with the app ``pid`` alive after it."""
    result = await computer.call(tool, args or {})
    assert_alive(pid)
    assert not result.is_error, result.text
    return result


def desktop_pids(sandbox: Sandbox, marker: bytes) -> list[int]:
    """The sandbox's processes whose command line contains ``marker`` (``b"Xvfb"``)."""
    return [p for p in tagged_pids(sandbox.env["ACTUI_SANDBOX_ID"]) if marker in _cmdline(p)]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


async def kill_and_wait(pid: int, timeout_s: float = 5.0) -> None:
    """SIGKILL ``pid`` and return once it has exited (by pidfd, not polling)."""
    fd = os.pidfd_open(pid)
    loop = asyncio.get_running_loop()
    ended = loop.create_future()
    loop.add_reader(fd, lambda: ended.done() or ended.set_result(None))
    try:
        os.kill(pid, signal.SIGKILL)
        await asyncio.wait_for(ended, timeout_s)
    finally:
        loop.remove_reader(fd)
        os.close(fd)


async def entry_dialog(sandbox: Sandbox, title: str) -> asyncio.subprocess.Process:
    """A ``zenity --entry`` titled ``title`` (GTK 3), once it shows on the accessibility bus."""
    app = await sandbox.launch(["zenity", "--entry", f"--title={title}", "--text=Name"])
    await sandbox.wait_for_app(app.pid)
    return app
