"""A zenity form with a password, recorded once through the MCP tools and replayed from fresh
processes with no recorded ref reused: by ``actui replay`` (moved, resized, covered,
dark-themed, on a smaller screen: it passes; a relabelled or removed field: it stops
before sending anything), by the script ``--to-python`` writes, and as a workflow tool
called through the official MCP client. The form's stdout is the oracle: what it printed
is what was entered."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import process_alive

from actui.api import Computer, Expect
from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent, connect
from actui.tools.workflow import Workflow, load

pytestmark = pytest.mark.asyncio(loop_scope="module")

SECRET = "s3cret-recorded"
TITLE = "Contact"
FIELDS = ("--add-entry=Name", "--add-password=Secret", "--add-entry=City")


@dataclass
class Recording:
    path: Path
    workflow: Workflow
    agent_texts: str


async def _form(
    sandbox: Sandbox, fields: Sequence[str] = FIELDS, env: Sequence[str] = ()
) -> asyncio.subprocess.Process:
    argv = [*(["env", *env] if env else []), "zenity", "--forms", f"--title={TITLE}", *fields]
    form = await sandbox.launch(argv, stdout=asyncio.subprocess.PIPE)
    await sandbox.wait_for_app(form.pid)
    return form


async def _printed(form: asyncio.subprocess.Process) -> str:
    assert form.stdout is not None
    out = await asyncio.wait_for(form.stdout.read(), 15)
    assert await asyncio.wait_for(form.wait(), 15) == 0
    return out.decode()


def _env(sandbox: Sandbox) -> dict[str, str]:
    return {**sandbox.env, "ACTUI_HEADLESS": "1"}


async def _record(agent: Agent, texts: list[str]) -> None:
    """What an agent does: find the form, fill it (one call whose Name field it mistyped
    first: a didnt step is left out), press OK."""
    roots = await agent.details("find_roots", {"text": TITLE})
    state = (await agent.details("observe_ui", {"root": roots["windows"][0]["windowRef"]}))[
        "stateId"
    ]
    name = await agent.find_ref(state, "Name", "textbox")
    secret = await agent.find_ref(state, "Secret", "password")
    city = await agent.find_ref(state, "City", "textbox")
    ok = await agent.find_ref(state, "OK", "button")
    refused = await agent.call(
        "act_ui",
        {
            "stateId": state,
            "require": {"text": "No such field", "timeoutMs": 200},
            "actions": [{"action": "setText", "ref": name, "text": "never"}],
        },
    )
    assert refused.is_error
    filled = await agent.details(
        "act_ui",
        {
            "stateId": state,
            "require": {"text": "Secret", "role": "password"},
            "actions": [
                {"action": "setText", "ref": name, "text": "Alice"},
                {"action": "setText", "ref": secret, "text": SECRET},
                {"action": "setText", "ref": city, "text": "Paris"},
            ],
        },
    )
    assert filled["outcome"] == "worked", filled
    pressed = await agent.details(
        "act_ui",
        {
            "stateId": filled["stateId"],
            "actions": [{"action": "press", "ref": ok}],
            "expect": {"ref": ok, "gone": True},
        },
    )
    assert pressed["outcome"] == "worked", pressed
    texts += [json.dumps(filled), json.dumps(pressed)]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def recording(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Recording]:
    directory = tmp_path_factory.mktemp("workflows")
    form = await _form(module_sandbox)
    texts: list[str] = []
    async with connect(_env(module_sandbox), "--record", str(directory)) as agent:
        await _record(agent, texts)
    assert await _printed(form) == f"Alice|{SECRET}|Paris\n"
    (path,) = directory.glob("*.workflow.json")
    yield Recording(path, load(path), "\n".join(texts))


def _xdotool(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        ["xdotool", *args], env=env, capture_output=True, text=True, timeout=10, check=True
    )
    return done.stdout


def _replay(sandbox: Sandbox, path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "actui.server.cli", "replay", str(path), *args]
    return subprocess.run(
        command, env=_env(sandbox), capture_output=True, text=True, timeout=120, check=False
    )


async def test_the_recording_keeps_two_steps_names_the_left_out_call_and_never_the_secret(
    recording: Recording,
) -> None:
    workflow, raw = recording.workflow, recording.path.read_text()
    assert SECRET not in raw and "@e" not in raw and "stateId" not in raw
    assert "/org/a11y" not in raw, "no native identity of this session is written"
    assert [(v.name, v.secret, v.default) for v in workflow.variables] == [
        ("name", False, "Alice"),
        ("secret", True, None),
        ("city", False, "Paris"),
    ]
    assert len(workflow.steps) == 2
    assert [left.why for left in workflow.leftOut] == ["the call failed (precondition_failed)"]
    fill, press = workflow.steps
    assert fill.window.title == TITLE and fill.window.app == "zenity"
    assert [a.text for a in fill.actions] == ["{{name}}", "{{secret}}", "{{city}}"]
    assert fill.expect is not None and fill.expect.value == "{{city}}"  # the read-back effect
    assert fill.recorded.derivedExpect and not press.recorded.derivedExpect


async def test_replay_fills_the_form_with_the_given_secret_and_a_new_name(
    module_sandbox: Sandbox, recording: Recording
) -> None:
    form = await _form(module_sandbox)
    done = await asyncio.to_thread(
        _replay, module_sandbox, recording.path, "--var", "secret=pw-2", "--var", "name=Bob"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert await _printed(form) == "Bob|pw-2|Paris\n"
    assert "2 of 2 steps verified" in done.stdout and "pw-2" not in done.stdout


async def test_replay_without_the_secret_sends_nothing_and_says_which_variable(
    module_sandbox: Sandbox, recording: Recording
) -> None:
    done = await asyncio.to_thread(_replay, module_sandbox, recording.path)
    assert done.returncode == 2
    assert "var secret: is required" in done.stderr


async def test_replay_passes_on_a_moved_resized_dark_window_with_another_in_front(
    module_sandbox: Sandbox, recording: Recording
) -> None:
    form = await _form(module_sandbox, env=["GTK_THEME=Adwaita:dark"])
    env = module_sandbox.env
    found = await asyncio.to_thread(
        _xdotool, env, "search", "--sync", "--pid", str(form.pid), "--name", TITLE
    )
    window = found.split()[0]
    await asyncio.to_thread(_xdotool, env, "windowmove", window, "400", "300")
    await asyncio.to_thread(_xdotool, env, "windowsize", "--sync", window, "640", "480")
    front = await module_sandbox.launch(["zenity", "--info", "--title=In front", "--text=Hi"])
    await module_sandbox.wait_for_app(front.pid)
    try:
        geometry = await asyncio.to_thread(_xdotool, env, "getwindowgeometry", "--shell", window)
        assert "WIDTH=640" in geometry and "HEIGHT=480" in geometry, geometry
        active = await asyncio.to_thread(_xdotool, env, "getactivewindow")
        assert active.strip() != window  # the info dialog is in front
        done = await asyncio.to_thread(_replay, module_sandbox, recording.path, "--var", "secret=x")
        assert done.returncode == 0, done.stdout + done.stderr
        assert await _printed(form) == "Alice|x|Paris\n"
        assert process_alive(front.pid)
    finally:
        front.kill()
        await front.wait()


async def test_replay_passes_on_another_desktop_with_a_smaller_screen(
    recording: Recording,
) -> None:
    async with Sandbox(width=1024, height=600) as small:
        form = await _form(small)
        done = await asyncio.to_thread(_replay, small, recording.path, "--var", "secret=y")
        assert done.returncode == 0, done.stdout + done.stderr
        assert await _printed(form) == "Alice|y|Paris\n"


@pytest.mark.parametrize(
    ("fields", "missing"),
    [
        (("--add-entry=Name", "--add-password=Secret", "--add-entry=Town"), 'textbox "City"'),
        (("--add-entry=Name", "--add-entry=City"), 'password "Secret"'),
    ],
    ids=["relabelled", "removed"],
)
async def test_replay_stops_before_sending_anything_when_a_field_changed(
    module_sandbox: Sandbox, recording: Recording, fields: tuple[str, ...], missing: str
) -> None:
    form = await _form(module_sandbox, fields)
    done = await asyncio.to_thread(_replay, module_sandbox, recording.path, "--var", "secret=x")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 of 2 steps verified" in done.stdout
    assert "stopped at step 1 (not_found)" in done.stdout
    assert missing in done.stdout and "nothing was sent" in done.stdout
    assert process_alive(form.pid)
    # the oracle: the form received nothing; pressed OK now, it prints its fields empty
    async with Computer(env=_env(module_sandbox)) as computer:
        state = await computer.observe((await computer.find_roots(TITLE)).first)
        ok = state.one("button", "OK")
        (await state.act(ok.press(), expect=Expect(ref=ok, gone=True))).raise_for_outcome()
    assert await _printed(form) == "|" * (len(fields) - 1) + "\n"


async def test_the_python_script_of_the_recording_runs_and_passes(
    module_sandbox: Sandbox, recording: Recording, tmp_path: Path
) -> None:
    script = tmp_path / "contact.py"
    made = await asyncio.to_thread(
        _replay, module_sandbox, recording.path, "--to-python", str(script)
    )
    assert made.returncode == 0, made.stderr
    form = await _form(module_sandbox)
    ran = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(script), "secret=py", "city=Rome"],
        env=_env(module_sandbox), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert await _printed(form) == "Alice|py|Rome\n"


async def test_the_workflow_tool_completes_the_form_through_the_mcp_client(
    module_sandbox: Sandbox, recording: Recording
) -> None:
    form = await _form(module_sandbox)
    served = str(recording.path.parent)
    async with connect(_env(module_sandbox), "--workflows", served) as agent:
        listed = await agent.session.list_tools()
        name = f"run_{recording.workflow.name}"
        (tool,) = [t for t in listed.tools if t.name == name]
        assert tool.input_schema["required"] == ["secret"]
        assert tool.annotations is not None and tool.annotations.read_only_hint is False
        result = await agent.session.call_tool(name, {"secret": "tool", "name": "Eve"})
    assert not result.is_error, agent.text(result)
    assert result.structured_content is not None
    assert result.structured_content["ok"] and result.structured_content["reached"] == 2
    assert await _printed(form) == "Eve|tool|Paris\n"
