"""OCR on real captures: labels are read where AT-SPI puts them, and text it lacks shows up."""

from __future__ import annotations

import asyncio

import pytest
from computer_helpers import (
    executed,
    inspected_of,
    matches_of,
    observed_of,
    paired_root,
    state_id_of,
)

from actui.backends.linux.backend import LinuxBackend
from actui.backends.linux.sandbox import Sandbox
from actui.backends.x11.session import X11Session
from actui.outline.model import build_outline
from actui.runtime.ocr import recognize
from actui.runtime.visual import add_visual_evidence
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _window(backend: LinuxBackend, pid: int) -> int:
    async with asyncio.timeout(10):
        while True:
            roots = [r for r in await backend.list_roots(pid) if r.window_id]
            if roots and roots[0].window_id:
                return roots[0].window_id
            await asyncio.sleep(0.05)


async def test_ocr_reads_a_dialogs_big_label(module_sandbox: Sandbox) -> None:
    dialog = await module_sandbox.launch(
        [
            "zenity",
            "--info",
            "--title=OCR",
            "--text=<span size='xx-large'>Reactor temperature nominal</span>",
        ]
    )
    await module_sandbox.wait_for_app(dialog.pid)
    backend = LinuxBackend(env=module_sandbox.env)
    session = X11Session(module_sandbox.display)
    try:
        window = await _window(backend, dialog.pid)
        await session.start()
        shot = await session.capture(window, max_dimension=1600)
        boxes = await recognize(shot.png, timeout_s=30)
        texts = [b.text for b in boxes]
        assert "Reactor temperature nominal" in texts, texts
        (label,) = [b for b in boxes if b.text == "Reactor temperature nominal"]
        assert 0 <= label.rect.x < shot.width and 0 <= label.rect.y < shot.height
        assert label.confidence > 0.5
    finally:
        await session.close()
        await backend.close()
        dialog.kill()


async def test_visual_evidence_on_the_widget_factory_marks_labels_and_finds_placeholder_text(
    module_sandbox: Sandbox,
) -> None:
    factory = await module_sandbox.launch(["gtk3-widget-factory"])
    await module_sandbox.wait_for_app(factory.pid)
    backend = LinuxBackend(env=module_sandbox.env)
    try:
        await _window(backend, factory.pid)
        (root,) = [r for r in await backend.list_roots(factory.pid) if r.window_id]
        snapshot = await backend.snapshot(root, max_nodes=4096, max_depth=64)
        image = await backend.capture(root, max_dimension=1600)
        assert image is not None
        outline = build_outline(snapshot.tree, root.frame, image.scale)
        fused = add_visual_evidence(outline, await recognize(image.png, timeout_s=60))
        carried = {n.name for n in fused if n.ocr_text and not n.picture_only}
        assert {"togglebutton", "checkbutton", "radiobutton", "Andrea"} <= carried
        pictured = [n for n in fused if n.picture_only]
        assert any(n.name == "Click icon to change mode" for n in pictured), [
            n.name for n in pictured
        ]
        assert min(int(n.ref[2:]) for n in pictured) == outline.max_ref + 1
    finally:
        await backend.close()
        factory.kill()


async def test_visual_observe_adds_picture_only_text_and_a_click_on_it_hits_the_widget(
    module_sandbox: Sandbox,
) -> None:
    factory = await module_sandbox.launch(["gtk3-widget-factory"])
    await module_sandbox.wait_for_app(factory.pid)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        window = await paired_root(computer, pid=factory.pid)
        observed = await computer.call("observe_ui", {"root": window.ref, "mode": "visual"})
        ocr = observed_of(observed).ocr
        assert ocr is not None and ocr.picture_only >= 1, ocr
        state = state_id_of(observed)
        # "Andrea" is drawn inside a combo box that exposes no name to AT-SPI.
        found = await computer.call("search_ui", {"stateId": state, "text": "Andrea"})
        picture = [m for m in matches_of(found) if m.role == "label"]
        assert picture, found.text
        inspected = await computer.call("inspect_ui", {"stateId": state, "ref": picture[0].ref})
        assert "picture-only" in inspected.text or inspected_of(inspected).raw_role == "ocr text"
        act = await computer.call(
            "act_ui", {"stateId": state, "actions": [{"action": "click", "ref": picture[0].ref}]}
        )
        assert not act.is_error, act.text
        step = executed(act).steps[0]
        assert step.delivery == "hid"
        # The click landed on the combo box: its popup opened as a new root.
        deltas = executed(act).root_deltas
        assert any(d.change == "appeared" for d in deltas), act.text
    finally:
        await computer.close()
