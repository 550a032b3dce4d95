"""An application held inside an action's AT-SPI call gets no physical key.

mousepad's "Save" on an untitled document opens Save As with gtk_dialog_run inside
GTK 3's AT-SPI handler (its label has no ellipsis, so it is not refused up front): the
app answers nothing until the dialog closes, and a key press would deadlock it for
good (its bridge forwards keys synchronously over the held connection), so the key
is refused and the app stays alive.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from atspi_helpers import find, launch_app, root_of, snap

from actui.backends.base import ActionRequest, RootInfo
from actui.backends.linux.backend import LinuxBackend
from actui.backends.linux.sandbox import Sandbox
from actui.errors import CoordinateBlocked

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def held(module_sandbox: Sandbox) -> AsyncIterator[tuple[LinuxBackend, RootInfo, int]]:
    process = await launch_app(module_sandbox, ["mousepad"])
    backend = LinuxBackend(module_sandbox.env)
    try:
        yield backend, await root_of(backend.atspi, process.pid), process.pid
    finally:
        await backend.close()


async def test_a_key_is_refused_while_the_app_is_held_inside_an_action(
    held: tuple[LinuxBackend, RootInfo, int],
) -> None:
    backend, root, pid = held
    snapshot = await snap(backend.atspi, root)
    save = find(snapshot, lambda n: n.raw_role == "menu item" and n.name.strip() == "Save")
    pressed = await backend.act(
        ActionRequest(kind="press", root=root, policy="background", target=save.native_id)
    )
    assert pressed.outcome == "unknown" and pressed.evidence["answering"] is False, pressed
    escape = ActionRequest(kind="keypress", root=root, policy="foreground", keys=("Escape",))
    with pytest.raises(CoordinateBlocked, match="deadlock"):
        await backend.act(escape)
    os.kill(pid, 0)
