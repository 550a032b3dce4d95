"""AT-SPI backend against a Qt form: text, toggle, press, a password that never leaks, and
the live mirror equal to a fresh walk."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path

import pytest
from atspi_helpers import (
    assert_answers,
    fields,
    find,
    launch_app,
    nodes,
    rects,
    root_of,
    settle,
    snap,
)

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionKind, ActionRequest, RootInfo, Snapshot
from actui.backends.linux.sandbox import Sandbox
from actui.errors import SecureTextUnreadable, TargetGone

FORM = str(Path(__file__).parents[1] / "apps" / "qt_form.py")
SECRET = "hunter2-very-secret"


async def test_qt_form_text_toggle_press_and_password_secrecy(sandbox: Sandbox) -> None:
    process = await launch_app(sandbox, [sys.executable, FORM])
    backend = AtspiBackend(sandbox.env)
    try:
        root = await root_of(backend, process.pid)
        assert root.toolkit.startswith("Qt") and root.title == "Qt Form"
        snapshot = await snap(backend, root)
        line = find(snapshot, lambda n: n.raw_role == "text" and n.name == "Name")
        box = find(snapshot, lambda n: n.raw_role == "check box")
        secret = find(snapshot, lambda n: n.raw_role == "password text")
        apply = find(snapshot, lambda n: n.raw_role == "push button" and n.name == "Apply")

        def step(kind: ActionKind, target: str, text: str = "") -> ActionRequest:
            return ActionRequest(
                kind=kind, root=root, policy="background", target=target, text=text
            )

        assert (await backend.act(step("setText", line.native_id, "Grace"))).outcome == "worked"
        assert (await backend.read_text(root, line.native_id, 0, 50)).text == "Grace"
        assert (await backend.act(step("toggle", box.native_id))).outcome == "worked"
        typed = await backend.act(step("setText", secret.native_id, SECRET))
        assert typed.outcome == "worked" and SECRET not in repr(typed)
        pressed = await backend.act(step("press", apply.native_id))
        assert pressed.outcome == "worked", pressed

        after = await snap(backend, root)
        assert "checked" in find(after, lambda n: n.native_id == box.native_id).states
        assert any(n.name == "hello Grace" for n in nodes(after.tree)), (
            pressed,
            [(n.raw_role, n.name) for n in nodes(after.tree)],
        )
        hidden = find(after, lambda n: n.native_id == secret.native_id)
        assert hidden.secure and hidden.value is None
        assert SECRET not in repr(after)
        with pytest.raises(SecureTextUnreadable):
            await backend.read_text(root, secret.native_id, 0, 50)
        await assert_answers(backend, process.pid)

        process.send_signal(signal.SIGKILL)
        await process.wait()
        started = time.perf_counter()
        with pytest.raises(TargetGone):
            await snap(backend, root)
        assert time.perf_counter() - started < 5
    finally:
        await backend.close()


async def test_qt_mirror_equals_a_fresh_walk_after_edits_a_press_and_a_resize(
    sandbox: Sandbox,
) -> None:
    process = await launch_app(sandbox, [sys.executable, FORM])
    watcher, actor = AtspiBackend(sandbox.env), AtspiBackend(sandbox.env)
    try:
        root = await root_of(watcher, process.pid)
        cold = await snap(watcher, root)
        line = find(cold, lambda n: n.raw_role == "text" and n.name == "Name")
        box = find(cold, lambda n: n.raw_role == "check box")
        apply = find(cold, lambda n: n.raw_role == "push button" and n.name == "Apply")
        for kind, node, text in (
            ("setText", line, "Ada"),
            ("toggle", box, ""),
            ("press", apply, ""),
        ):
            request = ActionRequest(
                kind=kind, root=root, policy="background", target=node.native_id, text=text
            )
            assert (await actor.act(request)).outcome == "worked", kind
        await _equal_to_a_fresh_walk(watcher, root, sandbox.env)
        assert root.window_id and cold.tree.rect is not None
        resize = await asyncio.create_subprocess_exec(
            "xdotool", "windowsize", "--sync", str(root.window_id), "520", "400", env=sandbox.env
        )
        assert await resize.wait() == 0
        warm = await _equal_to_a_fresh_walk(watcher, root, sandbox.env)
        assert warm.tree.rect is not None and warm.tree.rect.w > cold.tree.rect.w
        assert any(n.name == "hello Ada" for n in nodes(warm.tree))
        await assert_answers(watcher, process.pid)
    finally:
        await watcher.close()
        await actor.close()


async def _equal_to_a_fresh_walk(
    backend: AtspiBackend, root: RootInfo, env: dict[str, str]
) -> Snapshot:
    await settle(backend, root)
    warm = await snap(backend, root)
    fresh_backend = AtspiBackend(env)
    try:
        fresh = await snap(fresh_backend, root)
    finally:
        await fresh_backend.close()
    assert warm.source.startswith("mirror") and fresh.source == "walk"
    assert fields(warm) == fields(fresh)
    assert rects(warm) == rects(fresh)
    return warm
