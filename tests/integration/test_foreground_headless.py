"""Headless proof: a whole semantic workflow sends no device event and moves nothing.

An independent X RECORD witness sees every key, button and motion event the
server processes, from any client; the active window and the pointer are read
before and after.
"""

from __future__ import annotations

import asyncio

from computer_helpers import executed, paired_root, state_id_of

from actui.backends.linux.sandbox import Sandbox
from actui.backends.x11.record import InputMonitor
from actui.backends.x11.session import X11Session
from actui.outline.model import Node
from actui.tools.dispatch import ToolBox


def _first(nodes: list[Node], role: str, name: str = "") -> Node:
    found = [
        n
        for n in nodes
        if n.role == role
        and (not name or n.name == name or n.value == name)
        and "sensitive" in n.states
        and "showing" in n.states
    ]
    assert found, f"no sensitive, showing {role} {name!r}"
    return found[0]


async def test_headless_observe_set_toggle_press_sends_no_input_and_keeps_focus_and_pointer(
    sandbox: Sandbox,
) -> None:
    factory = await sandbox.launch(["gtk3-widget-factory"])
    await sandbox.wait_for_app(factory.pid)
    other = await sandbox.launch(["zenity", "--info", "--title=Keep me active", "--text=hi"])
    await sandbox.wait_for_app(other.pid)
    session = X11Session(sandbox.display)
    computer = ToolBox(env={**sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        keep = (await paired_root(computer, pid=other.pid)).root.window_id
        async with asyncio.timeout(10):  # the window manager activates new windows
            while True:
                if await session.active_window() == keep:
                    break
                await asyncio.sleep(0.05)
        async with InputMonitor(sandbox.display) as monitor:
            active = await session.active_window()
            pointer = await session.pointer_position()
            root = await paired_root(computer, pid=factory.pid)
            assert root.root.window_id != active, "the workflow must target an inactive window"
            observed = await computer.call("observe_ui", {"root": root.ref, "mode": "semantic"})
            state = state_id_of(observed)
            nodes = list(computer.state(state).outline)
            entry = _first(nodes, "textbox", "entry")
            check = _first(nodes, "checkbox", "checkbutton")
            toggle = _first(nodes, "toggle", "togglebutton")
            was_checked = "checked" in check.states
            was_pressed = "pressed" in toggle.states or "checked" in toggle.states
            acted = await computer.call(
                "act_ui",
                {
                    "stateId": state,
                    "actions": [
                        {"action": "setText", "ref": entry.ref, "text": "headless"},
                        {"action": "toggle", "ref": check.ref},
                        {"action": "press", "ref": toggle.ref},
                    ],
                },
            )
            seen = await monitor.settle(0.2)
            assert await session.active_window() == active
            assert await session.pointer_position() == pointer
        assert not acted.is_error, acted.text
        assert seen == []
        trace = executed(acted)
        assert [s.delivery for s in trace.steps] == ["ax", "ax", "ax"]
        assert {s.policy for s in trace.steps} == {"ax_only"}
        assert trace.escalated is None
        after = computer.state(state_id_of(acted)).outline
        assert after.nodes[entry.ref].value == "headless"
        assert ("checked" in after.nodes[check.ref].states) is not was_checked
        states = after.nodes[toggle.ref].states
        assert ("pressed" in states or "checked" in states) is not was_pressed
    finally:
        await computer.close()
        await session.close()
