"""Typed text arrives whole before the next step runs, and typing reports its outcome.

``focus`` → ``typeText`` (at the focus) → ``press OK`` in one act_ui on zenity: OK must
not overtake keys GTK has not handled yet. zenity prints the entry's text when OK closes
it, so its stdout is the application's own account of what arrived.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from atspi_helpers import find, launch_app, snap
from computer_helpers import executed, paired_root, state_id_of

from actui.backends import arrival
from actui.backends.base import ActionRequest, RootInfo
from actui.backends.linux.backend import LinuxBackend
from actui.backends.linux.sandbox import Sandbox
from actui.results.tool_result import ToolResult
from actui.results.typed import StepTrace
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

ASCII = "".join(chr(33 + i % 94) for i in range(2000))
MIXED = "".join("aé中Ω–✓ß b"[i % 9] for i in range(2000))
SHORT = "abcdefgh" * 8
# Keystrokes go at the rate GTK handles them (45–65 a second on a loaded 2-core machine),
# so the non-ASCII keystroke case is shorter than the step's timeout allows for 2,000.
MIXED_KEYS = MIXED[:500]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[ToolBox]:
    session = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    yield session
    await session.close()


async def _type_and_press_ok(
    computer: ToolBox, sandbox: Sandbox, text: str
) -> tuple[ToolResult, str]:
    """One act_ui: focus the entry, type ``text`` at the focus, press OK; zenity's output."""
    dialog = await sandbox.launch(
        ["zenity", "--entry", "--title=Typing", "--text=Type:"], stdout=asyncio.subprocess.PIPE
    )
    try:
        await sandbox.wait_for_app(dialog.pid)
        root = (await paired_root(computer, pid=dialog.pid)).ref
        observed = await computer.call("observe_ui", {"root": root})
        assert not observed.is_error, observed.text
        state = state_id_of(observed)
        outline = computer.state(state).outline
        entry = next(n for n in outline if n.role == "textbox")
        ok = next(n for n in outline if n.role == "button" and n.name == "OK")
        acted = await computer.call(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {"action": "focus", "ref": entry.ref},
                    {"action": "typeText", "text": text},
                    {"action": "press", "ref": ok.ref},
                ],
            },
        )
        assert not acted.is_error, acted.text
        # every step ran: else OK was never pressed, and zenity would be waited for in vain
        ran = [s.action for s in executed(acted).steps]
        assert ran == ["focus", "typeText", "press"], acted.text
        assert dialog.returncode is None or dialog.returncode == 0  # alive until OK
        out, _ = await asyncio.wait_for(dialog.communicate(), timeout=30)
        assert dialog.returncode == 0  # it exited by OK, not by a crash
        return acted, out.decode().removesuffix("\n")
    finally:
        if dialog.returncode is None:
            dialog.kill()
            await dialog.wait()


def _typing_step(acted: ToolResult) -> StepTrace:
    steps = executed(acted).steps
    assert [s.action for s in steps] == ["focus", "typeText", "press"], steps
    return steps[1]


@pytest.fixture
def physical_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Long text too goes in as keystrokes, as it does where no field takes an insert."""
    monkeypatch.setattr(arrival, "SEMANTIC_TYPING_CHARS", 10**9)


@pytest.mark.parametrize(
    "text", [SHORT, ASCII, MIXED_KEYS], ids=["short", "ascii-2000", "mixed-500"]
)
async def test_keystrokes_arrive_whole_before_ok_is_pressed(
    computer: ToolBox, module_sandbox: Sandbox, physical_only: None, text: str
) -> None:
    details, printed = await _type_and_press_ok(computer, module_sandbox, text)
    typed = _typing_step(details)
    assert typed.delivery == "hid" and typed.outcome == "worked", typed
    assert printed == text


@pytest.mark.parametrize("text", [ASCII, MIXED], ids=["ascii-2000", "mixed-2000"])
async def test_long_text_at_the_focus_is_inserted_semantically(
    computer: ToolBox, module_sandbox: Sandbox, text: str
) -> None:
    details, printed = await _type_and_press_ok(computer, module_sandbox, text)
    assert printed == text
    typed = _typing_step(details)
    assert typed.outcome == "worked", typed
    assert typed.mechanism == "EditableText.InsertText", typed


async def test_text_set_by_keys_arrives_whole_over_what_the_field_held(
    module_sandbox: Sandbox,
) -> None:
    """setText delivered physically (Firefox's only way into web fields) selects the field
    and types over it: its keys too wait until the field shows them, so a following press
    does not overtake them, and a temporary binding is not undone under a key still queued."""
    dialog = await launch_app(
        module_sandbox,
        ["zenity", "--entry", "--title=Set by keys", "--text=Type:", "--entry-text=old text"],
        stdout=asyncio.subprocess.PIPE,
    )
    backend = LinuxBackend(module_sandbox.env)
    try:
        root = await _paired(backend, dialog.pid)
        snapshot = await snap(backend.atspi, root)
        entry = find(snapshot, lambda n: n.raw_role == "text")
        ok = find(snapshot, lambda n: n.raw_role == "push button" and n.name == "OK")
        typed = await backend.act(
            ActionRequest(
                kind="setText",
                root=root,
                policy="foreground",
                target=entry.native_id,
                text=MIXED_KEYS,
            )
        )
        assert typed.delivery == "hid" and typed.outcome == "worked", typed
        pressed = await backend.act(
            ActionRequest(kind="press", root=root, policy="background", target=ok.native_id)
        )
        assert pressed.outcome != "didnt", pressed
        out, _ = await asyncio.wait_for(dialog.communicate(), timeout=30)
        assert dialog.returncode == 0  # it exited by OK, not by a crash
        assert out.decode().removesuffix("\n") == MIXED_KEYS
    finally:
        await backend.close()
        if dialog.returncode is None:
            dialog.kill()
            await dialog.wait()


async def _paired(backend: LinuxBackend, pid: int) -> RootInfo:
    """The pid's root once X11 has paired it with its window (physical input needs it)."""
    async with asyncio.timeout(10):
        while True:
            roots = [r for r in await backend.list_roots(pid) if r.window_id]
            if roots:
                return roots[0]
            await asyncio.sleep(0.1)
