"""The whole contract on a private headless sway desktop, through the Python API.

One Wayland sandbox serves the module: GTK 3 (zenity, mousepad), GTK 4
(gnome-calculator) and Qt 5 (featherpad) run as native Wayland clients. Each
effect is read back from the application itself (zenity's stdout, the
calculator's display, a file mousepad saved, featherpad's text), each test
ends with its app alive and answering (or exited by the button it meant), and
focus and input are judged from sway's own view (``swaymsg``), not actui's.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import wayland_helpers
from computer_helpers import assert_alive
from PIL import Image as PilImage
from wayland_helpers import ended_with, start, survived, window

from actui.api import Computer, Expect, click_at, keypress, type_text
from actui.backends import arrival
from actui.backends.base import SEMANTIC_ONLY, RootCapabilities
from actui.backends.linux.backend import LinuxBackend
from actui.backends.linux.sandbox import Sandbox
from actui.backends.linux.sandbox_reaper import tagged_pids
from actui.backends.wayland import screen
from actui.backends.wayland.wire import WaylandError
from actui.errors import InvalidParams

pytestmark = pytest.mark.asyncio(loop_scope="module")

HEADER_BAR_APP = Path(__file__).resolve().parents[1] / "apps" / "gtk3_headerbar.py"
UNICODE = "Ωmega – 42 ✓ é ß 中 😀"
BMP = "Ωmega – 42 ✓ é ß 中"
"""Qt 5's accessible text counts a character outside the BMP twice and reads one too many."""


desktop, computer = wayland_helpers.module_desktop(True)


def sway(desktop: Sandbox, *args: str) -> Any:
    """sway's own answer (its IPC through swaymsg), independent of actui."""
    out = subprocess.run(
        ["swaymsg", "-s", desktop.env["SWAYSOCK"], "-r", *args],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout
    return json.loads(out)


def focused_pid(desktop: Sandbox) -> int | None:
    def walk(node: dict[str, Any]) -> int | None:
        if node.get("focused") and node.get("pid"):
            return int(node["pid"])
        for child in node.get("nodes", []) + node.get("floating_nodes", []):
            found = walk(child)
            if found:
                return found
        return None

    return walk(sway(desktop, "-t", "get_tree"))


def seat_devices(desktop: Sandbox) -> list[str]:
    return [d["identifier"] for seat in sway(desktop, "-t", "get_seats") for d in seat["devices"]]


async def test_a_zenity_form_is_filled_semantically_and_prints_its_values(
    computer: Computer, desktop: Sandbox
) -> None:
    await wayland_helpers.fill_a_zenity_form(computer, desktop)


async def test_the_gtk4_calculator_computes_by_presses_and_by_a_coordinate_click(
    computer: Computer, desktop: Sandbox
) -> None:
    calc = await start(desktop, "gnome-calculator")
    state = await window(computer, calc.pid)
    assert state.root.capabilities == RootCapabilities("full", "full", "exact")
    keys = [state.search(k, role="button").first for k in ("7", "×", "6", "=")]
    done = await state.act(*(k.press() for k in keys), expect=Expect(text="42", role="textbox"))
    assert done.raise_for_outcome().check == "verified"
    assert done.state is not None
    five = done.state.search("5", role="button").first
    assert five.node.rect is not None
    x, y = five.node.rect.center  # in the window's screenshot pixels, as an agent sees them
    clicked = await done.state.act(click_at(x, y), expect=Expect(text="5", role="textbox"))
    assert clicked.steps[0].delivery == "hid", clicked.text
    assert clicked.raise_for_outcome().check == "verified", clicked.text
    await survived(computer, calc.pid)


async def test_unicode_typed_in_mousepad_and_saved_with_ctrl_s_is_on_disk(
    computer: Computer, desktop: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arrival, "SEMANTIC_TYPING_CHARS", 10**9)  # keystrokes, all of it
    path = Path(desktop.env["TMPDIR"]) / "notes.txt"
    path.write_text("")
    editor = await start(desktop, "mousepad", str(path))
    state = await window(computer, editor.pid)
    text = f"{UNICODE}\nsecond line"
    done = await state.act(type_text(text), keypress("ctrl", "s"))
    typed = done.steps[0]
    assert typed.delivery == "hid" and typed.outcome == "worked", done.text
    for _ in range(200):  # mousepad writes a moment after the keys
        if path.read_text() == text:
            break
        await asyncio.sleep(0.05)
    assert path.read_text() == text
    await survived(computer, editor.pid)


async def test_qt5_featherpad_gets_unicode_typed_by_keys_and_reads_it_back(
    computer: Computer, desktop: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arrival, "SEMANTIC_TYPING_CHARS", 10**9)
    pad = await start(desktop, "featherpad", "--standalone")
    state = await window(computer, pad.pid)
    document = next(
        e for e in state.search(role="textbox") if "multi line" in e.states or e.name == ""
    )
    done = await state.act(document.focus(), type_text(BMP))
    assert done.steps[1].delivery == "hid" and done.steps[1].outcome == "worked", done.text
    assert done.state is not None
    assert await done.state.read_text(document) == BMP
    await survived(computer, pad.pid)


async def test_a_screenshot_is_read_by_ocr_and_a_click_at_its_pixels_answers_yes(
    computer: Computer, desktop: Sandbox
) -> None:
    question = await start(desktop, "zenity", "--question", "--text=Proceed with the plan?")
    state = await window(computer, question.pid)
    visual = await computer.observe(state.root, mode="visual")
    assert visual.images, visual.text
    label = visual.search("Proceed with the plan?", role="label").first
    # OCR read the label off the picture where AT-SPI and sway together place it
    assert any("Proceed" in line for line in label.node.ocr_text), label.node
    yes = visual.search("Yes", role="button").first
    assert yes.node.rect is not None
    done = await visual.act(click_at(*yes.node.rect.center))
    assert done.steps[0].delivery == "hid", done.text
    await ended_with(question, 0)  # zenity --question exits 0 for Yes only


async def test_a_gtk3_window_with_its_own_frame_is_clicked_inside_its_shadow_inset(
    computer: Computer, desktop: Sandbox
) -> None:
    """A header bar makes GTK 3 draw its frame and shadow itself: the surface is 52×52 px
    larger than the window sway places, and the inset (26, 23) is measured from the tree."""
    app = await start(desktop, "/usr/bin/python3", str(HEADER_BAR_APP), stdout=-1)
    state = await window(computer, app.pid)
    assert state.root.capabilities == RootCapabilities("full", "full", "exact")
    visual = await computer.observe(state.root, mode="visual")
    tap = visual.search("Tap", role="button").first
    assert tap.node.rect is not None
    done = await visual.act(click_at(*tap.node.rect.center))
    assert done.steps[0].delivery == "hid", done.text
    assert done.state is not None
    labels = [match.node.name for match in done.state.search("taps", role="label")]
    assert "taps: 1" in labels, done.text
    assert app.stdout is not None
    assert await asyncio.wait_for(app.stdout.readline(), 5) == b"taps=1\n"
    await survived(computer, app.pid)
    app.terminate()
    await app.wait()


async def test_an_open_menu_makes_a_gtk3_windows_coordinates_approximate_until_it_closes(
    computer: Computer, desktop: Sandbox
) -> None:
    """GTK 3 places a popup menu's items by its own estimate of where sway put the popup (6
    px right of and 5 px below where they are drawn): said, not hidden."""
    path = Path(desktop.env["TMPDIR"]) / "menu.txt"
    path.write_text("")
    # its own instance: another test's mousepad would take the file and this one exit
    editor = await start(desktop, "mousepad", "--disable-server", str(path))
    state = await window(computer, editor.pid)
    assert state.root.capabilities.geometry == "exact"
    menu = state.search("File", role="menu").first
    opened = await state.act(menu.click())
    assert opened.state is not None
    assert opened.state.search("Save As", role="menuitem").first.node.rect is not None
    shown = await computer.observe(state.root, mode="semantic")
    assert shown.root.capabilities.geometry == "approximate"
    assert "coordinates approximate" in shown.text
    closed = await shown.act(keypress("Escape"))
    assert closed.state is not None
    again = await computer.observe(state.root, mode="semantic")
    assert again.search("Save As", role="menuitem").first.node.rect is None  # closed
    assert again.root.capabilities.geometry == "exact"
    await survived(computer, editor.pid)
    editor.terminate()
    await editor.wait()


async def test_where_screencopy_cannot_serve_grim_reads_the_window(
    desktop: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on a sway with several outputs: the capture falls back to grim, same pixels' size."""

    def several_outputs(path: str) -> None:
        raise WaylandError("screencopy here reads a single output")

    monkeypatch.setattr(screen, "ScreenCopy", several_outputs)
    info = await start(desktop, "zenity", "--info", "--text=Captured by grim")
    backend = LinuxBackend(env=desktop.env)
    try:
        for _ in range(400):  # sway maps the window a moment after AT-SPI lists it
            roots = [r for r in await backend.list_roots(info.pid) if r.window_id]
            if roots:
                break
            await asyncio.sleep(0.05)
        (root,) = roots
        image = await backend.capture(root, max_dimension=4096)
        assert image is not None and root.frame is not None
        assert (image.width, image.height) == (root.frame.w, root.frame.h)
        assert PilImage.open(io.BytesIO(image.png)).getextrema() != ((0, 0), (0, 0), (0, 0))
    finally:
        await backend.close()
    assert_alive(info.pid)


async def test_headless_mode_sends_no_input_and_leaves_sways_focus_alone(
    desktop: Sandbox,
) -> None:
    target = await start(desktop, "zenity", "--entry", "--text=Target", stdout=-1)
    other = await start(desktop, "zenity", "--info", "--text=Focused one")
    async with Computer(env={**desktop.env, "ACTUI_HEADLESS": "1"}) as headless:
        await window(headless, other.pid)
        focus, devices = focused_pid(desktop), seat_devices(desktop)
        assert focus == other.pid
        state = await window(headless, target.pid)
        entry = state.search(role="textbox").first
        ok = state.search("OK", role="button").first
        done = await state.act(entry.set_text("headless ✓"), ok.press())
        assert [step.delivery for step in done.steps] == ["ax", "ax"], done.text
        assert await ended_with(target, 0) == "headless ✓\n"
        assert focused_pid(desktop) == focus  # sway's own view: focus never moved
        assert seat_devices(desktop) == devices  # no virtual device was even made
        await survived(headless, other.pid)


async def test_typing_into_a_read_only_view_escalates_to_the_foreground_with_its_trace(
    computer: Computer, desktop: Sandbox
) -> None:
    notes = Path(desktop.env["TMPDIR"]) / "read-only.txt"
    notes.write_text("read only text\n")
    viewer = await start(desktop, "zenity", "--text-info", f"--filename={notes}")
    state = await window(computer, viewer.pid)
    view = state.search(role="textbox").first
    elsewhere = await start(desktop, "zenity", "--info", "--text=Focus is here")
    await window(computer, elsewhere.pid)
    assert focused_pid(desktop) == elsewhere.pid
    done = await state.act(view.type_text("xyz"))
    (step,) = done.steps
    assert step.escalation_reason == "side_effect_free_didnt", done.text
    assert step.policy == "foreground" and step.delivery == "hid", step
    assert step.background_attempt is not None and step.background_attempt.outcome == "didnt"
    assert done.outcome == "didnt"
    assert done.state is not None
    assert await done.state.read_text(view) == "read only text\n"
    assert focused_pid(desktop) == viewer.pid  # the foreground path focused it, in sway
    await survived(computer, viewer.pid)
    assert_alive(elsewhere.pid)


async def test_a_session_whose_compositor_offers_nothing_keeps_the_semantic_path_only(
    desktop: Sandbox,
) -> None:
    """As on GNOME or KDE: no SWAYSOCK, so no listing, input or capture; steps that need them
    are refused before anything is sent, with the reason, and semantic steps still work."""
    entry = await start(desktop, "zenity", "--entry", "--text=Plain", stdout=-1)
    env = {k: v for k, v in desktop.env.items() if k != "SWAYSOCK"}
    devices = seat_devices(desktop)
    async with Computer(env={**env, "ACTUI_HEADLESS": "0"}) as plain:
        roots = await plain.find_roots(pid=entry.pid)
        assert "input: none" in roots.text and "capture: none" in roots.text, roots.text
        assert roots.first.root.frame is None and not roots.first.root.window_id
        assert roots.first.capabilities == SEMANTIC_ONLY
        assert roots.first.to_wire()["capabilities"] == {
            "input": "none",
            "capture": "none",
            "geometry": "none",
        }
        pictured = await plain.observe(roots.first, mode="visual")
        assert not pictured.images and "capture: none" in pictured.text, pictured.text
        state = await plain.observe(roots.first)
        with pytest.raises(InvalidParams, match="geometry: none"):
            await state.act(click_at(5, 5))
        field = state.search(role="textbox").first
        done = await state.act(field.set_text("kept"), type_text("never sent"))
        assert done.steps[0].outcome == "worked" and done.steps[0].delivery == "ax"
        refused = done.steps[1].error
        assert refused is not None and "root has input: none" in refused.message, done.text
        assert refused.code == "coordinate_blocked", done.text
        assert seat_devices(desktop) == devices
        ok = state.search("OK", role="button").first
        assert done.state is not None
        await done.state.act(ok.press())
        assert await ended_with(entry, 0) == "kept\n"


async def test_two_desktops_at_once_see_only_their_own_windows_and_leave_nothing(
    computer: Computer, desktop: Sandbox
) -> None:
    mine = await start(desktop, "zenity", "--info", "--text=first desktop")
    async with Sandbox(wayland=True) as second:
        theirs = await start(second, "zenity", "--info", "--text=second desktop")
        async with Computer(env=second.env) as other:
            assert [r.pid for r in await other.find_roots(pid=mine.pid)] == []
            assert [r.pid for r in await computer.find_roots(pid=theirs.pid)] == []
            assert (await other.find_roots(pid=theirs.pid)).first.root.window_id
        runtime = Path(second.env["SWAYSOCK"]).parent
        owner = os.stat(runtime)
        assert stat.S_IMODE(owner.st_mode) == 0o700
        assert owner.st_uid != os.stat(Path(desktop.env["SWAYSOCK"]).parent).st_uid
        first = os.stat(Path(desktop.env["SWAYSOCK"]).parent)
        reach = await asyncio.create_subprocess_exec(  # the first compositor's user knocks
            *("setpriv", f"--reuid={first.st_uid}", f"--regid={first.st_gid}", "--clear-groups"),
            *("swaymsg", "-s", second.env["SWAYSOCK"], "-t", "get_version"),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        assert await reach.wait() != 0, "one compositor's user reached another's socket"
        token = second.env["ACTUI_SANDBOX_ID"]
        rundir = Path(second.env["XDG_RUNTIME_DIR"])
        compositor_uid = owner.st_uid
    assert not await asyncio.to_thread(lambda: rundir.exists() or runtime.exists())
    assert tagged_pids(token) == set()
    assert compositor_uid not in _process_uids()
    assert_alive(mine.pid)


def _process_uids() -> set[int]:
    uids = set()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            uids.add(proc.stat().st_uid)
        except OSError:
            continue
    return uids


async def test_a_compositor_that_dies_is_named_as_the_cause() -> None:
    async with Sandbox(wayland=True) as doomed:
        app = await start(doomed, "zenity", "--info", "--text=short lived")
        async with Computer(env=doomed.env) as session:
            await window(session, app.pid)
            sway_pid = int(Path(doomed.env["SWAYSOCK"]).name.split(".")[2])
            await wayland_helpers.killed_compositor_is_named(
                session, sway_pid, doomed.env["WAYLAND_DISPLAY"]
            )


async def test_actui_sandbox_run_wayland_gives_the_command_a_wayland_desktop() -> None:
    # the app is up once AT-SPI lists its window; sway maps it a moment later
    script = (
        'test -z "$DISPLAY" && test -S "$WAYLAND_DISPLAY" && echo "$GDK_BACKEND" && '
        'for i in $(seq 100); do swaymsg -t get_tree | grep -q \'"app_id": "zenity"\' '
        '&& break; sleep 0.05; done; swaymsg -t get_tree | grep -c \'"app_id": "zenity"\''
    )
    actui = str(Path(sys.executable).with_name("actui"))
    app = ["--app", "zenity --info --text=hi"]
    ran = await asyncio.create_subprocess_exec(
        *(actui, "sandbox", "run", "--wayland", *app, "--", "sh", "-c", script),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(ran.communicate(), 60)
    assert ran.returncode == 0, (out + err).decode()
    assert out.decode().split() == ["wayland", "1"], out
