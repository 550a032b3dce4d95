"""AT-SPI backend against gtk3-widget-factory: roots, cached snapshots, toggles, typing."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from atspi_helpers import assert_answers, find, launch_app, nodes, root_of, settle, snap

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionKind, ActionRequest, ActionResult, RawNode, RootInfo
from actui.backends.linux.sandbox import Sandbox
from actui.errors import TargetGone
from actui.refusals import Refused
from actui.sentences import refusal

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Factory:
    backend: AtspiBackend
    root: RootInfo
    pid: int
    env: dict[str, str]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def factory(module_sandbox: Sandbox) -> AsyncIterator[Factory]:
    process = await launch_app(module_sandbox, ["gtk3-widget-factory"])
    backend = AtspiBackend(module_sandbox.env)
    try:
        yield Factory(backend, await root_of(backend, process.pid), process.pid, module_sandbox.env)
    finally:
        await backend.close()


@pytest_asyncio.fixture(autouse=True, loop_scope="module")
async def survives(factory: Factory) -> AsyncIterator[None]:
    """Every test leaves gtk3-widget-factory running and answering."""
    yield
    await assert_answers(factory.backend, factory.pid)


async def test_roots_carry_pid_title_frame_and_toolkit(factory: Factory) -> None:
    root = factory.root
    assert root.pid == factory.pid
    assert root.app_name == "gtk3-widget-factory"
    assert root.kind == "window" and root.raw_role == "frame"
    assert root.frame is not None and not root.frame.empty
    assert root.toolkit.lower().startswith("gtk 3")
    assert root.resource_key == f"desktop-pid:{factory.pid}"
    assert root.window_id, "paired with its X window"


async def test_cold_snapshot_comes_from_the_cache_with_sane_roles_and_states(
    factory: Factory,
) -> None:
    fresh = AtspiBackend(factory.env)
    try:
        started = time.perf_counter()
        snapshot = await snap(fresh, factory.root)
        cold_ms = (time.perf_counter() - started) * 1000
    finally:
        await fresh.close()
    print(f"gtk3-widget-factory cold snapshot: {snapshot.node_count} nodes in {cold_ms:.0f} ms")
    assert snapshot.source == "cache"
    assert snapshot.node_count > 100
    roles = {n.raw_role for n in nodes(snapshot.tree)}
    assert {"push button", "check box", "text", "toggle button"} <= roles
    check = find(snapshot, lambda n: n.raw_role == "check box" and "enabled" in n.states)
    assert "focusable" in check.states and {"toggle", "press", "focus"} <= check.caps
    assert all(n.rect is None or not n.rect.empty for n in nodes(snapshot.tree))


async def test_node_cap_marks_the_cut_parents_truncated(factory: Factory) -> None:
    snapshot = await factory.backend.snapshot(factory.root, max_nodes=20, max_depth=64)
    assert snapshot.node_count == 20 and snapshot.truncated
    assert any(n.truncated for n in nodes(snapshot.tree))
    shallow = await factory.backend.snapshot(factory.root, max_nodes=4096, max_depth=1)
    assert all(not c.children for c in shallow.tree.children)
    assert any(c.truncated for c in shallow.tree.children)


async def test_toggle_flips_a_check_button(factory: Factory) -> None:
    snapshot = await snap(factory.backend, factory.root)
    check = find(snapshot, lambda n: n.raw_role == "check box" and "enabled" in n.states)
    result = await factory.backend.act(
        ActionRequest(kind="toggle", root=factory.root, policy="background", target=check.native_id)
    )
    assert result.outcome == "worked", result
    after = find(
        await snap(factory.backend, factory.root), lambda n: n.native_id == check.native_id
    )
    assert ("checked" in after.states) != ("checked" in check.states)


async def test_type_text_inserts_at_the_caret(factory: Factory) -> None:
    snapshot = await snap(factory.backend, factory.root)
    entry = find(snapshot, lambda n: n.raw_role == "text" and "setText" in n.caps)
    base = ActionRequest(kind="setText", root=factory.root, policy="background")
    set_result = await factory.backend.act(
        ActionRequest(**{**base.__dict__, "target": entry.native_id, "text": "hello world"})
    )
    assert set_result.outcome == "worked", set_result
    typed = await factory.backend.act(
        ActionRequest(
            kind="typeText", root=factory.root, policy="background", target=entry.native_id,
            text="XY",
        )
    )  # fmt: skip
    assert typed.outcome == "worked", typed
    caret = int(str(typed.evidence["caret"]))
    live = await factory.backend.read_text(factory.root, entry.native_id, 0, 100)
    assert live.text == "hello world"[:caret] + "XY" + "hello world"[caret:]


async def test_physical_steps_are_refused_by_policy(factory: Factory) -> None:
    """Nothing is sent: the answer says physical input is needed, and only ax_only blocks it."""
    clicked = await factory.backend.act(
        ActionRequest(kind="click", root=factory.root, policy="default", point=(10, 10))
    )
    assert isinstance(clicked, Refused) and clicked.needs == "physical"
    assert refusal(clicked)[0] == "foreground_required"
    keyed = await factory.backend.act(
        ActionRequest(kind="keypress", root=factory.root, policy="ax_only", keys=("a",))
    )
    assert isinstance(keyed, Refused) and refusal(keyed)[0] == "coordinate_blocked"
    assert await factory.backend.list_roots(factory.root.pid), "the app still answers"


async def test_bogus_node_id_is_reported_gone_quickly(factory: Factory) -> None:
    started = time.perf_counter()
    with pytest.raises(TargetGone):
        await factory.backend.read_text(
            factory.root,
            factory.root.native_id.split("/")[0] + "/org/a11y/atspi/accessible/99999",
            0,
            10,
        )
    with pytest.raises(TargetGone):
        await factory.backend.read_text(factory.root, "not-an-id", 0, 10)
    assert time.perf_counter() - started < 5


async def _step(factory: Factory, kind: ActionKind, node: RawNode, **extra: Any) -> ActionResult:
    request = ActionRequest(
        kind=kind, root=factory.root, policy="background", target=node.native_id, **extra
    )
    return await factory.backend.act(request)


def _showing(node: RawNode, role: str) -> bool:
    return node.raw_role == role and {"showing", "enabled"} <= node.states


async def _fresh(factory: Factory, node: RawNode) -> RawNode:
    return find(await snap(factory.backend, factory.root), lambda n: n.native_id == node.native_id)


async def test_select_a_combo_item_changes_the_combo_choice(factory: Factory) -> None:
    snapshot = await snap(factory.backend, factory.root)
    combo = find(snapshot, lambda n: n.raw_role == "combo box" and n.name == "Left")
    item = find(combo, lambda n: n.raw_role == "menu item" and n.name == "Right")
    result = await _step(factory, "select", item)
    assert result.outcome == "worked", result
    assert (await _fresh(factory, combo)).name == "Right"


async def test_set_value_moves_a_spin_button_and_a_slider(factory: Factory) -> None:
    snapshot = await snap(factory.backend, factory.root)
    spin = find(snapshot, lambda n: _showing(n, "spin button") and n.value == "50")
    slider = find(snapshot, lambda n: _showing(n, "slider") and n.value == "50")
    assert (await _step(factory, "setValue", spin, value=42.0)).outcome == "worked"
    assert (await _step(factory, "setValue", slider, value=70.0)).outcome == "worked"
    assert (await _fresh(factory, spin)).value == "42"
    assert (await _fresh(factory, slider)).value == "70"


async def test_focus_moves_keyboard_focus_to_the_element(factory: Factory) -> None:
    snapshot = await snap(factory.backend, factory.root)
    spin = find(snapshot, lambda n: _showing(n, "spin button") and "focused" not in n.states)
    result = await _step(factory, "focus", spin)
    assert result.outcome == "worked", result
    assert "focused" in (await _fresh(factory, spin)).states


async def test_wheel_scroll_moves_a_text_view_down_without_a_pointer(factory: Factory) -> None:
    snapshot = await snap(factory.backend, factory.root)
    text = find(snapshot, lambda n: _showing(n, "text") and (n.value or "").startswith("Lorem"))
    result = await _step(factory, "scroll", text, scroll=(0, 3))
    assert result.outcome == "worked", result
    moved = result.evidence["vertical"]
    assert isinstance(moved, dict) and moved["after"] > moved["before"]
    back = await _step(factory, "scroll", text, scroll=(0, -100))
    assert back.outcome == "worked"


async def test_page_two_expander_collapses_and_expands_and_an_icon_is_selected(
    factory: Factory,
) -> None:
    snapshot = await snap(factory.backend, factory.root)
    page = find(snapshot, lambda n: n.raw_role == "radio button" and n.name == "Page 2")
    assert (await _step(factory, "press", page)).outcome == "worked"
    await settle(factory.backend, factory.root)
    snapshot = await snap(factory.backend, factory.root)
    expander = find(snapshot, lambda n: n.name == "Expander" and "expandable" in n.states)
    assert "expand" in expander.caps
    assert (await _step(factory, "collapse", expander)).outcome == "worked"
    assert "expanded" not in (await _fresh(factory, expander)).states
    assert (await _step(factory, "expand", expander)).outcome == "worked"
    assert "expanded" in (await _fresh(factory, expander)).states
    icon = [n for n in nodes(snapshot.tree) if n.raw_role == "icon" and "select" in n.caps][-1]
    assert (await _step(factory, "select", icon)).outcome == "worked"
    assert "selected" in (await _fresh(factory, icon)).states
