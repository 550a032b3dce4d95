"""Geany (GTK 3, its Scintilla editor) through the Python API: its unnamed editor is called
``editor``, not after the empty symbol list on the other side of the split pane ("No
symbols found", 3 px to its left, which it used to be named after); text typed into it is
saved with ctrl+s (the file on disk is the oracle). Geany is alive after every call."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import assert_alive, paired_root

from actui import api
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = "written into the editor"


@dataclass
class Geany:
    computer: api.Computer
    pid: int
    path: Path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def geany(module_sandbox: Sandbox) -> AsyncIterator[Geany]:
    home = Path(module_sandbox.env["HOME"])
    path = home / "notes.txt"
    path.write_text("")
    argv = ["geany", "--new-instance", "--config", str(home / "geany"), str(path)]
    process = await module_sandbox.launch(argv)
    await module_sandbox.wait_for_app(process.pid)
    async with api.Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"}) as computer:
        yield Geany(computer, process.pid, path)


async def test_the_editor_is_named_editor_and_takes_typed_text(geany: Geany) -> None:
    window = await paired_root(geany.computer.tools, pid=geany.pid, title="notes.txt")
    look = await geany.computer.observe(window, mode="semantic")
    assert_alive(geany.pid)
    editors = [e for e in look.search(role="textbox") if "multi_line" in e.states]
    shown = [e for e in editors if "showing" in e.states]
    assert [e.name for e in shown] == ["editor"], [(e.ref, e.name) for e in editors]
    assert not look.search("No symbols found", role="textbox").items
    done = await look.act(shown[0].type_text(TEXT), api.keypress("ctrl", "s"))
    assert_alive(geany.pid)
    assert done.steps[0].outcome == "worked", done.text
    for _ in range(200):
        if geany.path.read_text():
            break
        await asyncio.sleep(0.05)
    assert geany.path.read_text().rstrip("\n") == TEXT
