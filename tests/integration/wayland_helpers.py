"""What the Wayland desktop modules share: their module's desktop and computer, starting an
app, waiting for its window as the compositor lists it, the app's survival, a dialog's exit
with its output, the zenity form every desktop must fill, and a killed compositor named."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from typing import Any, Literal

import pytest_asyncio
from computer_helpers import assert_alive

from actui.api import Computer, Observation
from actui.backends.linux.sandbox import Sandbox


def module_desktop(wayland: Literal[True, "gnome"], **env: str) -> tuple[Any, Any]:
    """A module's two fixtures, ``desktop`` (one sandbox of the ``wayland`` kind) and
    ``computer`` (a session on it that may send input, with ``env`` added); assign them
    as ``desktop, computer = module_desktop(...)``."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module", name="desktop")
    async def desktop_fixture() -> AsyncIterator[Sandbox]:
        async with Sandbox(wayland=wayland) as sandbox:
            yield sandbox

    @pytest_asyncio.fixture(scope="module", loop_scope="module", name="computer")
    async def computer_fixture(desktop: Sandbox) -> AsyncIterator[Computer]:
        async with Computer(env={**desktop.env, "ACTUI_HEADLESS": "0", **env}) as session:
            yield session

    return desktop_fixture, computer_fixture


async def start(desktop: Sandbox, *argv: str, stdout: int | None = None) -> Any:
    """The app started on ``desktop`` once it is ready (its output to ``stdout`` when given,
    else to its log)."""
    process = await desktop.launch(list(argv), **({"stdout": stdout} if stdout else {}))
    await desktop.wait_for_app(process.pid)
    return process


async def window(computer: Computer, pid: int, *, focused: bool = False) -> Observation:
    """The app's window once the compositor lists it (paired: it has a window id), and with
    ``focused`` once it has the focus and a place (a frame: gnome-shell's windows are placed
    only while focused)."""
    async with asyncio.timeout(20):
        while True:
            roots = await computer.find_roots(pid=pid)
            root = roots.first.root if roots else None
            ready = root is not None and bool(root.window_id)
            if ready and (not focused or (root.is_focused and root.frame is not None)):
                return await computer.observe(roots.first)
            await asyncio.sleep(0.05)


async def survived(computer: Computer, pid: int) -> None:
    """The app still runs and answers: a fresh look at its window succeeds."""
    assert_alive(pid)
    await window(computer, pid)
    assert_alive(pid)


async def ended_with(process: Any, code: int) -> str:
    """What the process printed, once it exited with ``code``."""
    out, _ = await asyncio.wait_for(process.communicate(), 15)
    assert process.returncode == code, f"exited with {process.returncode}, not {code}"
    return bytes(out or b"").decode()


async def fill_a_zenity_form(computer: Computer, desktop: Sandbox) -> None:
    """A zenity form filled and confirmed semantically: every step by accessibility, and the
    values zenity prints are the ones set."""
    form = await start(
        desktop, "zenity", "--forms", "--add-entry=Name", "--add-entry=City", stdout=-1
    )
    state = await window(computer, form.pid)
    name = state.search("Name", role="textbox").first
    city = state.search("City", role="textbox").first
    ok = state.search("OK", role="button").first
    done = await state.act(name.set_text("Grace Ω"), city.set_text("Zürich"), ok.press())
    assert [step.delivery for step in done.steps] == ["ax", "ax", "ax"], done.text
    assert await ended_with(form, 0) == "Grace Ω|Zürich\n"


async def killed_compositor_is_named(session: Computer, pid: int, display: str) -> None:
    """The compositor ``pid`` killed: within 10 s a listing fails, naming ``display`` gone."""
    os.kill(pid, signal.SIGKILL)
    async with asyncio.timeout(10):
        while True:
            listed = await session.call("find_roots", {})
            if listed.is_error:
                break
            await asyncio.sleep(0.05)
    assert f"the Wayland display {display} is gone" in listed.text, listed.text
