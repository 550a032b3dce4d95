"""The README's Python examples run as written, against gnome-calculator on a private desktop.

Each ```` ```python ```` block of README.md is run as its own script, in a
fresh desktop with a fresh calculator, with only the desktop's environment
(as a user's script would have it); it must exit 0, the calculator must
still run, and its display must read what the example pressed.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
from computer_helpers import assert_alive, matches_of, state_id_of, text_of, windows_of

import actui
from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

README = Path(__file__).resolve().parents[2] / "README.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
SRC = str(Path(actui.__file__).resolve().parents[1])
RUN_S = 60


def test_the_readme_has_python_examples() -> None:
    assert len(EXAMPLES) >= 2


async def _display(sandbox: Sandbox) -> str:
    computer = ToolBox(env=sandbox.env)
    try:
        found = await computer.call("find_roots", {"text": "calculator"})
        ref = windows_of(found)[0].ref
        observed = await computer.call("observe_ui", {"root": ref, "mode": "semantic"})
        state = state_id_of(observed)
        boxes = await computer.call("search_ui", {"stateId": state, "role": "textbox"})
        box = matches_of(boxes)[0].ref
        read = await computer.call("read_text", {"stateId": state, "ref": box})
        return text_of(read)
    finally:
        await computer.close()


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
async def test_a_readme_example_presses_seven_on_the_calculator(
    sandbox: Sandbox, index: int
) -> None:
    calculator = await sandbox.launch(["gnome-calculator"])
    await sandbox.wait_for_app(calculator.pid)
    script = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        EXAMPLES[index],
        env={**sandbox.env, "PYTHONPATH": SRC},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(script.communicate(), RUN_S)
    finally:
        if script.returncode is None:
            script.kill()
    assert script.returncode == 0, err.decode()
    assert_alive(calculator.pid)
    assert (await _display(sandbox)).strip() == "7"
    if "print(done.outcome, done.check)" in EXAMPLES[index]:
        assert out.decode().splitlines()[0] == "worked verified"
