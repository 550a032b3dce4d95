"""The physical side through the Python API: images, coordinate clicks, headless refusal."""

from __future__ import annotations

import asyncio

from computer_helpers import (
    check_of,
    executed,
    inspected_of,
    matches_of,
    observed_of,
    paired_root,
    state_id_of,
    text_of,
    windows_of,
)

from actui.backends.linux.sandbox import Sandbox
from actui.backends.x11.record import InputMonitor
from actui.results.tool_result import ToolResult
from actui.tools.dispatch import ToolBox


async def _dialog(sandbox: Sandbox, title: str) -> asyncio.subprocess.Process:
    dialog = await sandbox.launch(
        ["zenity", "--entry", f"--title={title}", "--text=Type:", "--entry-text=typed"],
        stdout=asyncio.subprocess.PIPE,
    )
    await sandbox.wait_for_app(dialog.pid)
    return dialog


async def _visual_state(computer: ToolBox, title: str) -> tuple[ToolResult, str]:
    """The visual observation of the window titled ``title``, and its OK button's ref."""
    roots = await computer.call("find_roots", {"text": title})
    assert not roots.is_error, roots.text
    observed = await computer.call(
        "observe_ui", {"root": windows_of(roots)[0].ref, "mode": "visual"}
    )
    assert not observed.is_error, observed.text
    found = await computer.call(
        "search_ui", {"stateId": state_id_of(observed), "text": "OK", "role": "button"}
    )
    ok = matches_of(found)[0].ref
    return observed, ok


async def test_visual_observation_attaches_a_png_and_a_coordinate_click_presses_ok(
    sandbox: Sandbox,
) -> None:
    dialog = await _dialog(sandbox, "coordinate click")
    computer = ToolBox(env={**sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        observed, ok = await _visual_state(computer, "coordinate click")
        png, mime = observed.images[0]
        assert mime == "image/png" and png.startswith(b"\x89PNG\r\n\x1a\n")
        seen = observed_of(observed)
        capture, image = seen.observation.capture, seen.image
        assert capture is not None and image is not None, observed.text
        assert capture.width == image.width
        state = seen.observation.state_id
        inspected = await computer.call("inspect_ui", {"stateId": state, "ref": ok})
        rect = inspected_of(inspected).rect
        assert rect is not None, inspected.text
        x, y = rect.x + rect.w / 2, rect.y + rect.h / 2
        act = await computer.call(
            "act_ui",
            {"stateId": state, "actions": [{"action": "click", "x": x, "y": y}]},
        )
        assert not act.is_error, act.text
        step = executed(act).steps[0]
        assert step.delivery == "hid" and step.background_first is False
        out, _ = await asyncio.wait_for(dialog.communicate(), timeout=10)
        assert out.decode().strip() == "typed"
    finally:
        await computer.close()


async def test_headless_mode_refuses_coordinates_and_sends_no_synthetic_event(
    sandbox: Sandbox,
) -> None:
    dialog = await _dialog(sandbox, "headless click")
    computer = ToolBox(env={**sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        observed, _ = await _visual_state(computer, "headless click")
        state = state_id_of(observed)
        async with InputMonitor(sandbox.display) as monitor:
            act = await computer.call(
                "act_ui",
                {"stateId": state, "actions": [{"action": "click", "x": 5, "y": 5}]},
            )
            await monitor.settle(0.1)
        assert executed(act).outcome == "didnt"
        step = executed(act).steps[0]
        assert step.error is not None and step.error.code == "coordinate_blocked"
        assert monitor.events == []
        assert dialog.returncode is None
    finally:
        await computer.close()


async def test_a_coordinate_click_and_typing_compute_in_gnome_calculator(sandbox: Sandbox) -> None:
    calculator = await sandbox.launch(["gnome-calculator"])
    await sandbox.wait_for_app(calculator.pid)
    computer = ToolBox(env={**sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        window = await paired_root(computer, pid=calculator.pid)
        observed = await computer.call("observe_ui", {"root": window.ref, "mode": "visual"})
        state = state_id_of(observed)
        found = await computer.call("search_ui", {"stateId": state, "text": "6", "role": "button"})
        six = matches_of(found)[0].ref
        inspected = await computer.call("inspect_ui", {"stateId": state, "ref": six})
        rect = inspected_of(inspected).rect
        assert rect is not None, inspected.text
        act = await computer.call(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {
                        "action": "click",
                        "x": rect.x + rect.w / 2,
                        "y": rect.y + rect.h / 2,
                    },
                    {"action": "typeText", "text": "*7"},
                    {"action": "keypress", "keys": ["Return"]},
                ],
                "expect": {"text": "42", "timeoutMs": 5000},
            },
        )
        assert not act.is_error, act.text
        assert [s.delivery for s in executed(act).steps] == ["hid", "hid", "hid"]
        assert check_of(act) == "verified", act.text
        display = await computer.call("search_ui", {"stateId": state_id_of(act), "role": "textbox"})
        value = await computer.call(
            "read_text",
            {"stateId": state_id_of(act), "ref": matches_of(display)[0].ref},
        )
        assert text_of(value).strip() == "42"
    finally:
        await computer.close()
