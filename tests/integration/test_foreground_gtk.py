"""The physical path through ``ToolBox`` on GTK3: drag, wheel, Unicode typing, safe retry;
and GTK 4 check boxes that only a real click can toggle.

Each effect is read back from the application (AT-SPI values, zenity's output),
never inferred from the trace alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from computer_helpers import assert_alive, executed, paired_root, state_id_of, text_of

from actui.backends.linux.sandbox import Sandbox
from actui.outline.model import Node
from actui.results.tool_result import ToolResult
from actui.results.typed import Execution
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

UNICODE = "Ωmega – 42 ✓ é ß 中"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[ToolBox]:
    session = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    yield session
    await session.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def factory(module_sandbox: Sandbox) -> int:
    app = await module_sandbox.launch(["gtk3-widget-factory"])
    await module_sandbox.wait_for_app(app.pid)
    return app.pid


async def _observe(computer: ToolBox, pid: int, mode: str = "fused") -> str:
    root = (await paired_root(computer, pid=pid)).ref
    observed = await computer.call("observe_ui", {"root": root, "mode": mode})
    assert not observed.is_error, observed.text
    return str(state_id_of(observed))


async def _survived(computer: ToolBox, pid: int) -> None:
    """The app still runs and answers: a fresh look at its window succeeds."""
    assert_alive(pid)
    await _observe(computer, pid)
    assert_alive(pid)


def _one(computer: ToolBox, state: str, where: Callable[[Node], bool]) -> Node:
    found = [n for n in computer.state(state).outline if where(n)]
    assert found, "no node matched"
    return found[0]


async def _act(
    computer: ToolBox, state: str, *actions: dict[str, Any]
) -> tuple[Execution, ToolResult]:
    """An act that must not fail: its typed execution, and the result it came in."""
    acted = await computer.call("act_ui", {"stateId": state, "actions": list(actions)})
    assert not acted.is_error, acted.text
    return executed(acted), acted


async def test_dragging_a_scale_handle_moves_its_value(computer: ToolBox, factory: int) -> None:
    state = await _observe(computer, factory)
    scale = _one(
        computer,
        state,
        lambda n: (
            n.role == "slider"
            and n.value == "50"
            and "horizontal" in n.states
            and "sensitive" in n.states
        ),
    )
    assert scale.rect is not None
    y = scale.rect.y + scale.rect.h // 2
    start, end = scale.rect.x + scale.rect.w // 2, scale.rect.x + scale.rect.w - 4
    trace, acted = await _act(
        computer, state, {"action": "drag", "path": [{"x": start, "y": y}, {"x": end, "y": y}]}
    )
    assert trace.last_delivered is not None and trace.last_delivered.delivery == "hid"
    moved = computer.state(state_id_of(acted)).outline.get(scale.ref)
    assert moved is not None and float(moved.value) > 90, moved
    await _survived(computer, factory)


async def test_wheel_scrolling_a_text_view_moves_its_scroll_bar(
    computer: ToolBox, factory: int
) -> None:
    state = await _observe(computer, factory)
    view = _one(computer, state, lambda n: n.role == "textbox" and n.value.startswith("Lorem"))
    bars = [n.ref for n in computer.state(state).outline if n.parent == view.parent]
    assert view.rect is not None
    x, y = view.rect.center
    trace, acted = await _act(computer, state, {"action": "scroll", "x": x, "y": y, "scrollY": 3})
    step = trace.steps[0]
    assert step.delivery == "hid" and step.evidence and step.evidence["wheelClicks"] == [0, 3]
    after = computer.state(state_id_of(acted)).outline
    offsets = [
        float(after.nodes[ref].value or 0) for ref in bars if after.nodes[ref].role == "scrollbar"
    ]
    assert max(offsets) > 0, offsets
    await _survived(computer, factory)


async def test_unicode_typed_after_a_coordinate_click_reaches_the_app_exactly(
    computer: ToolBox, module_sandbox: Sandbox
) -> None:
    dialog = await module_sandbox.launch(
        ["zenity", "--entry", "--title=Unicode entry", "--text=Type:"],
        stdout=asyncio.subprocess.PIPE,
    )
    await module_sandbox.wait_for_app(dialog.pid)
    state = await _observe(computer, dialog.pid, mode="visual")
    entry = _one(computer, state, lambda n: n.role == "textbox")
    ok = _one(computer, state, lambda n: n.role == "button" and n.name == "OK")
    assert entry.rect is not None
    x, y = entry.rect.center
    trace, acted = await _act(
        computer,
        state,
        {"action": "click", "x": x, "y": y},
        {"action": "typeText", "text": UNICODE},
    )
    typed = trace.steps[1]
    assert typed.background_first is False and typed.delivery == "hid"
    await _survived(computer, dialog.pid)
    await _act(computer, state_id_of(acted), {"action": "press", "ref": ok.ref})
    out, _ = await asyncio.wait_for(dialog.communicate(), timeout=10)
    assert out.decode().rstrip("\n") == UNICODE
    assert dialog.returncode == 0, "zenity ended by its OK button, not by a crash"


async def test_a_refused_background_insert_is_retried_in_the_foreground_and_stays_honest(
    computer: ToolBox, module_sandbox: Sandbox, tmp_path: Path
) -> None:
    """zenity --text-info shows a read-only text view: EditableText.InsertText changes
    nothing (checked ``didnt``), so the side-effect-free retry runs; the keys change
    nothing either, and the view's read-back says so: ``didnt``, never ``worked``."""
    text = tmp_path / "notes.txt"
    text.write_text("read only text\n")
    viewer = await module_sandbox.launch(
        ["zenity", "--text-info", "--title=Read only", f"--filename={text}"]
    )
    await module_sandbox.wait_for_app(viewer.pid)
    state = await _observe(computer, viewer.pid)
    view = _one(computer, state, lambda n: n.role == "textbox")
    trace, acted = await _act(
        computer, state, {"action": "typeText", "ref": view.ref, "text": "xyz"}
    )
    escalated = trace.escalated
    assert escalated is not None and escalated.escalation_reason == "side_effect_free_didnt"
    assert escalated.background_attempt is not None
    assert escalated.background_attempt.outcome == "didnt"
    assert trace.steps[0].policy == "foreground"
    assert trace.outcome == "didnt"
    read = await computer.call("read_text", {"stateId": state_id_of(acted), "ref": view.ref})
    assert text_of(read) == "read only text\n"
    await _survived(computer, viewer.pid)


async def test_a_check_box_without_actions_is_toggled_and_clicked_physically(
    computer: ToolBox, module_sandbox: Sandbox
) -> None:
    """13 of 16 GTK 4 check boxes expose no action: toggle and click become real clicks."""
    app = await module_sandbox.launch(["gtk4-widget-factory"])
    await module_sandbox.wait_for_app(app.pid)
    state = await _observe(computer, app.pid)
    box = _one(
        computer,
        state,
        lambda n: n.raw_role == "check box" and not n.actions and "offscreen" not in n.states,
    )
    assert "toggle" not in box.caps and "press" not in box.caps
    for action in ("toggle", "click"):
        was = "checked" in computer.state(state).outline.nodes[box.ref].states
        acted = await computer.call(
            "act_ui",
            {"stateId": state, "actions": [{"action": action, "ref": box.ref}]},
        )
        assert not acted.is_error, acted.text
        (step,) = executed(acted).steps
        assert step.delivery == "hid" and step.policy == "foreground", step
        if action == "toggle":
            assert step.escalation_reason == "foreground_required", step
        # GTK 4 reports the new state a moment later: read it back once it has
        for _ in range(40):
            state = await _observe(computer, app.pid)
            now = "checked" in computer.state(state).outline.nodes[box.ref].states
            if now != was:
                break
            await asyncio.sleep(0.05)
        assert now != was, f"{action} did not flip the check box"
    await _survived(computer, app.pid)
