"""Qt Designer 6 (Debian's Qt 6.4) driven like an agent through ``ToolBox``: create a
form from the New Form dialog's default template, save it with ctrl+s through the Save
Form As dialog, and the .ui file on disk is that form; Designer is alive after every
tool call.

Qt 6.4's accessibility bridge registers nothing when ``AT_SPI_BUS_ADDRESS`` is set in
its environment, so this module also proves the sandbox starts apps without it
(``sandbox.app_env``): Designer is not even listed otherwise.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from computer_helpers import (
    call_alive,
    executed,
    inspected_of,
    matches_of,
    paired_root,
    state_id_of,
    windows_of,
)

from actui.backends.linux.sandbox import Sandbox
from actui.results.typed import Execution
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

DESIGNER = "/usr/lib/qt6/bin/designer"


@dataclass
class Designer:
    computer: ToolBox
    pid: int
    home: Path

    async def call(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        return await call_alive(self.computer, self.pid, tool, args)

    async def observe(self, title: str) -> str:
        window = await paired_root(self.computer, pid=self.pid, title=title)
        observed = await self.call("observe_ui", {"root": window.ref})
        return str(state_id_of(observed))

    async def ref(self, state: str, text: str, role: str) -> str:
        found = await self.call("search_ui", {"stateId": state, "text": text, "role": role})
        exact = [m.ref for m in matches_of(found) if m.label == text]
        refs = exact or [m.ref for m in matches_of(found)]
        assert refs, found.text
        return refs[0]

    async def act(self, state: str, *actions: dict[str, Any]) -> Execution:
        return executed(await self.call("act_ui", {"stateId": state, "actions": list(actions)}))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def designer(module_sandbox: Sandbox) -> AsyncIterator[Designer]:
    process = await module_sandbox.launch([DESIGNER])
    await module_sandbox.wait_for_app(process.pid, timeout=60)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        yield Designer(computer, process.pid, Path(module_sandbox.env["HOME"]))
    finally:
        await computer.close()


async def test_a_form_created_from_the_new_form_dialog_is_saved_as_its_ui_file(
    designer: Designer,
) -> None:
    state = await designer.observe("New Form")
    roots = await designer.call("find_roots", {"pid": designer.pid})
    assert all(w.root.toolkit.startswith("Qt 6") for w in windows_of(roots)), roots.text
    template = await designer.ref(state, "Dialog with Buttons Bottom", "cell")
    inspected = await designer.call("inspect_ui", {"stateId": state, "ref": template})
    assert "selected" in inspected_of(inspected).states  # the default template
    created = await designer.act(
        state, {"action": "press", "ref": await designer.ref(state, "Create", "button")}
    )
    assert created.steps[0].outcome == "worked", created

    state = await designer.observe("Qt Designer")
    await designer.act(state, {"action": "keypress", "keys": ["ctrl", "s"]})
    state = await designer.observe("Save Form As")
    path = designer.home / "dialog.ui"
    saved = await designer.act(
        state,
        {
            "action": "setText",
            "ref": await designer.ref(state, "File name:", "textbox"),
            "text": str(path),
        },
        {"action": "press", "ref": await designer.ref(state, "Save", "button")},
    )
    assert [s.outcome for s in saved.steps] == ["worked", "worked"], saved

    for _ in range(200):
        if path.exists() and path.read_bytes().rstrip().endswith(b"</ui>"):
            break
        await asyncio.sleep(0.05)
    ui = ET.fromstring(path.read_bytes())
    assert ui.tag == "ui" and ui.get("version") == "4.0"
    assert ui.findtext("class") == "Dialog"
    form = ui.find("widget")
    assert form is not None and form.get("class") == "QDialog" and form.get("name") == "Dialog"
    assert [w.get("class") for w in form.iter("widget")][1:] == ["QDialogButtonBox"]

    roots = await designer.call("find_roots", {"pid": designer.pid})
    titles = [w.title for w in windows_of(roots)]
    assert "Save Form As" not in titles and any("Qt Designer" in t for t in titles), titles
