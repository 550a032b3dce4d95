"""Outcomes that invite no harmful retry: a closed window satisfies a gone condition, a
condition on a password's text is refused up front, and no result repeats a secret."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from computer_helpers import check_of, error_of, matches_of, paired_root, state_id_of, windows_of

from actui.backends.linux.sandbox import Sandbox
from actui.results.observations import WindowClosed
from actui.results.tool_result import ToolResult
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

SECRET = "hunter2-Zq9"


@dataclass
class Login:
    computer: ToolBox
    process: asyncio.subprocess.Process
    state: str
    password: str
    user: str
    ok: str


async def _ref(computer: ToolBox, state: str, **query: str) -> str:
    found = await computer.call("search_ui", {"stateId": state, **query})
    assert matches_of(found), (query, found.text)
    return str(matches_of(found)[0].ref)


def _shown(result: ToolResult) -> str:
    return result.text + json.dumps(result.details)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def login(module_sandbox: Sandbox) -> AsyncIterator[Login]:
    process = await module_sandbox.launch(
        ["zenity", "--forms", "--title=login", "--add-entry=User", "--add-password=Secret"],
        stdout=asyncio.subprocess.PIPE,
    )
    await module_sandbox.wait_for_app(process.pid)
    computer = ToolBox(env=module_sandbox.env)
    window = await paired_root(computer, pid=process.pid)
    observed = await computer.call("observe_ui", {"root": window.ref, "mode": "semantic"})
    state = state_id_of(observed)
    try:
        yield Login(
            computer,
            process,
            state,
            password=await _ref(computer, state, role="password"),
            user=await _ref(computer, state, role="textbox"),
            ok=await _ref(computer, state, text="OK", role="button"),
        )
    finally:
        await computer.close()
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _refused(login: Login, expect: dict[str, Any], field: str) -> None:
    step = {"action": "setText", "ref": login.password, "text": SECRET}
    result = await login.computer.call(
        "act_ui", {"stateId": login.state, "actions": [step], "expect": expect}
    )
    assert result.is_error, result.text
    assert error_of(result).code == "invalid_params"
    assert result.text.startswith(f"act_ui failed: {field}: "), result.text
    assert SECRET not in _shown(result)


async def test_a_text_condition_on_the_password_field_is_refused_before_anything_is_sent(
    login: Login,
) -> None:
    await _refused(login, {"ref": login.password, "text": SECRET}, "expect.text")
    await _refused(login, {"ref": login.password, "value": SECRET}, "expect.value")


async def test_a_condition_repeating_the_secret_anywhere_is_refused(login: Login) -> None:
    await _refused(login, {"text": SECRET}, "expect.text")
    await _refused(login, {"text": SECRET.upper()[:6]}, "expect.text")


async def test_a_secret_written_once_arrives_once_and_is_echoed_nowhere(login: Login) -> None:
    computer = login.computer
    steps = [
        {"action": "setText", "ref": login.password, "text": SECRET},
        {"action": "setText", "ref": login.user, "text": "alice"},
    ]
    acted = await computer.call(
        "act_ui",
        {"stateId": login.state, "actions": steps, "expect": {"ref": login.user, "value": "alice"}},
    )
    assert not acted.is_error, acted.text
    assert check_of(acted) == "verified"
    assert SECRET not in _shown(acted)
    state = state_id_of(acted)
    alive = await computer.call("find_roots", {"pid": login.process.pid})
    assert windows_of(alive), "the dialog must survive the writes"

    pressed = await computer.call(
        "act_ui", {"stateId": state, "actions": [{"action": "press", "ref": login.ok}]}
    )
    assert not pressed.is_error, pressed.text
    assert SECRET not in _shown(pressed)
    assert login.process.stdout is not None
    out, _ = await asyncio.wait_for(login.process.communicate(), 20)
    # the earlier refused calls delivered nothing: the field holds the secret exactly once
    assert out.decode().strip() == f"alice|{SECRET}"


async def test_gone_is_success_when_the_window_itself_closes(module_sandbox: Sandbox) -> None:
    info = await module_sandbox.launch(
        ["zenity", "--info", "--title=closing", "--text=Going away soon", "--timeout=3"]
    )
    await module_sandbox.wait_for_app(info.pid)
    computer = ToolBox(env=module_sandbox.env)
    try:
        window = await paired_root(computer, pid=info.pid)
        observed = await computer.call("observe_ui", {"root": window.ref})
        state = state_id_of(observed)
        label = await _ref(computer, state, text="Going away soon")
        gone = {"ref": label, "text": "Going away soon", "gone": True, "timeoutMs": 20_000}
        waited = await computer.call("wait_for", {"stateId": state, **gone})
        assert not waited.is_error, waited.text
        closed = waited.value
        assert isinstance(closed, WindowClosed), waited.text
        assert closed.found and closed.gone
        assert await asyncio.wait_for(info.wait(), 10) is not None
        # A presence condition on a closed window is still an error, and the session goes on.
        appeared = await computer.call(
            "wait_for", {"stateId": state, "text": "Going away soon", "timeoutMs": 500}
        )
        assert appeared.is_error and error_of(appeared).code == "target_gone"
        listed = await computer.call("find_roots", {})
        assert not listed.is_error
    finally:
        await computer.close()
