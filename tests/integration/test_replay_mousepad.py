"""mousepad's Save As through the GTK file chooser, recorded once through the MCP tools (the
second act with no expect: the recorded effect becomes its check) and replayed by ``actui replay``
in a fresh mousepad with a new file name given by ``--var``; the file on disk is the
oracle."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import process_alive

from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent, connect
from actui.tools.workflow import Workflow, load

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = "Minutes of the meeting\n"


@dataclass
class Recording:
    path: Path
    workflow: Workflow
    home: Path


def _env(sandbox: Sandbox) -> dict[str, str]:
    return {**sandbox.env, "ACTUI_HEADLESS": "0"}


async def _window(agent: Agent, pid: int, title: str) -> str:
    """The stateId of a look at ``pid``'s window titled with ``title``, once it is listed."""
    async with asyncio.timeout(20):
        while True:
            roots = await agent.details("find_roots", {"pid": pid})
            for window in roots["windows"]:
                if title in window["windowTitle"] and window["windowId"]:
                    look = await agent.details("observe_ui", {"root": window["windowRef"]})
                    return str(look["stateId"])
            await asyncio.sleep(0.1)


async def _shown_textbox(agent: Agent, state: str) -> str:
    found = await agent.details("search_ui", {"stateId": state, "role": "textbox"})
    for match in found["matches"]:
        inspected = await agent.details("inspect_ui", {"stateId": state, "ref": match["ref"]})
        if "showing" in inspected["target"]["states"]:
            return str(match["ref"])
    raise AssertionError(f"no textbox on screen: {found}")


async def _editor(sandbox: Sandbox) -> asyncio.subprocess.Process:
    editor = await sandbox.launch(["mousepad"])
    await sandbox.wait_for_app(editor.pid)
    return editor


def _content(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


async def _saved(path: Path, text: str) -> None:
    """``path`` holds ``text`` (mousepad writes once the dialog has closed)."""
    for _ in range(200):
        if _content(path) == text:
            return
        await asyncio.sleep(0.05)
    assert _content(path) == text


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def recording(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Recording]:
    directory = tmp_path_factory.mktemp("workflows")
    home = Path(module_sandbox.env["HOME"])
    editor = await _editor(module_sandbox)
    async with connect(_env(module_sandbox), "--record", str(directory)) as agent:
        state = await _window(agent, editor.pid, "Mousepad")
        document = await _shown_textbox(agent, state)
        typed = await agent.details(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {"action": "typeText", "ref": document, "text": TEXT},
                    {"action": "keypress", "ref": document, "keys": ["ctrl", "s"]},
                ],
                # a key chord's effect cannot be read back: the agent says what it expects
                "expect": {"text": "Save As", "role": "dialog"},
            },
        )
        assert typed["outcome"] == "worked", json.dumps(typed)[:3000]
        state = await _window(agent, editor.pid, "Save As")
        name = await _shown_textbox(agent, state)
        save = await agent.find_ref(state, "Save", "button")
        saved = await agent.details(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {"action": "setText", "ref": name, "text": str(home / "minutes.txt")},
                    {"action": "press", "ref": save},
                ],
            },
        )
        assert saved["outcome"] == "worked", saved
    await _saved(home / "minutes.txt", TEXT)
    assert process_alive(editor.pid)
    editor.terminate()
    await editor.wait()
    (path,) = directory.glob("*.workflow.json")
    yield Recording(path, load(path), home)


async def test_save_as_replays_to_the_new_name_given_by_var(
    module_sandbox: Sandbox, recording: Recording
) -> None:
    workflow = recording.workflow
    assert len(workflow.steps) == 2, workflow.leftOut
    typed, saved = workflow.steps
    assert typed.recorded.check == "verified" and not typed.recorded.derivedExpect
    assert saved.recorded.derivedExpect and saved.expect is not None  # the dialog closing
    assert saved.expect.until == "absent"
    (path_var,) = [
        v for v in workflow.variables if v.default == str(recording.home / "minutes.txt")
    ]
    editor = await _editor(module_sandbox)
    try:
        target = recording.home / "agenda.txt"
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "actui.server.cli", "replay", str(recording.path),
             "--var", f"{path_var.name}={target}"],
            env=_env(module_sandbox), capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        print(done.stdout)
        assert done.returncode == 0, done.stdout + done.stderr
        await _saved(target, TEXT)
        assert process_alive(editor.pid)
    finally:
        editor.terminate()
        await editor.wait()


async def test_the_python_script_of_the_recording_saves_under_the_name_it_is_given(
    module_sandbox: Sandbox, recording: Recording, tmp_path: Path
) -> None:
    script = tmp_path / "save_as.py"
    cli = [sys.executable, "-m", "actui.server.cli", "replay", str(recording.path)]
    made = await asyncio.to_thread(
        subprocess.run, [*cli, "--to-python", str(script)], capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    (path_var,) = [v for v in recording.workflow.variables if v.default and "/" in v.default]
    editor = await _editor(module_sandbox)
    try:
        target = recording.home / "from-script.txt"
        ran = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, str(script), f"{path_var.name}={target}"],
            env=_env(module_sandbox), capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stdout + ran.stderr
        await _saved(target, TEXT)
        assert process_alive(editor.pid)
    finally:
        editor.terminate()
        await editor.wait()
