"""What works on a private headless gnome-shell (GNOME 43), through the Python API.

One GNOME sandbox serves the module; zenity (GTK 3) runs as a native Wayland
client. Each effect is read back from the application itself (zenity's stdout,
the field's text through AT-SPI) or from the desktop's own pixels (OCR), and
each test ends with its app alive and answering, or exited by the button it
meant. Focus is judged from gnome-shell's own view (its window list, asked on a
connection of the test's), not actui's.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
import wayland_helpers
from dbus_fast import Message, MessageType, RequestNameReply
from dbus_fast.aio import MessageBus
from PIL import Image as PilImage
from wayland_helpers import ended_with, start, survived, window

from actui.api import Computer, Expect, click_at, type_text
from actui.backends import arrival
from actui.backends.linux.sandbox import Sandbox, SandboxError
from actui.backends.linux.sandbox_reaper import tagged_pids

pytestmark = pytest.mark.asyncio(loop_scope="module")

UNICODE = "Ωmega – 42 ✓ é ß 中"


desktop, computer = wayland_helpers.module_desktop("gnome")


async def shell_windows(desktop: Sandbox) -> dict[str, bool]:
    """gnome-shell's own view, independent of actui: title -> has-focus, asked on a
    connection of the test's owning the *other* name the shell lets list windows."""
    bus = await MessageBus(bus_address=desktop.env["DBUS_SESSION_BUS_ADDRESS"]).connect()
    try:
        owned = await bus.request_name("org.freedesktop.impl.portal.desktop.gtk")
        assert owned == RequestNameReply.PRIMARY_OWNER
        reply = await bus.call(
            Message(
                destination="org.gnome.Shell",
                path="/org/gnome/Shell/Introspect",
                interface="org.gnome.Shell.Introspect",
                member="GetWindows",
            )
        )
        assert reply is not None and reply.message_type == MessageType.METHOD_RETURN, reply
        (found,) = reply.body
        return {w["title"].value: w["has-focus"].value for w in found.values()}
    finally:
        bus.disconnect()


async def test_a_zenity_form_is_filled_semantically_and_prints_its_values(
    computer: Computer, desktop: Sandbox
) -> None:
    await wayland_helpers.fill_a_zenity_form(computer, desktop)


async def test_find_roots_lists_gnome_shells_windows_with_title_focus_and_a_found_place(
    computer: Computer, desktop: Sandbox
) -> None:
    first = await start(desktop, "zenity", "--info", "--title=First window", "--text=one")
    await window(computer, first.pid, focused=True)
    second = await start(desktop, "zenity", "--entry", "--title=Second window", "--text=two")
    await window(computer, second.pid, focused=True)
    shell = await shell_windows(desktop)
    assert shell["Second window"] and not shell["First window"], shell
    listed = {r.root.pid: r.root for r in await computer.find_roots()}
    assert listed[first.pid].title == "First window" and not listed[first.pid].is_focused
    assert listed[second.pid].title == "Second window"
    assert listed[first.pid].window_id != listed[second.pid].window_id
    # gnome-shell tells sizes, not positions: the focused window's place was found from its
    # picture, the size of its surface, which AT-SPI's root spans
    frame = listed[second.pid].frame
    assert frame is not None, listed[second.pid]
    dialog = (await window(computer, second.pid)).search(role="dialog").first
    assert dialog.node.rect is not None  # the whole surface AT-SPI's root spans was found
    assert (dialog.node.rect.w, dialog.node.rect.h) == (frame.w, frame.h)
    await survived(computer, first.pid)
    await survived(computer, second.pid)


async def test_text_is_typed_by_keys_and_unicode_through_the_clipboard_and_read_back(
    computer: Computer, desktop: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arrival, "SEMANTIC_TYPING_CHARS", 10**9)  # physical, all of it
    entry = await start(desktop, "zenity", "--entry", "--title=Typing", "--text=Say", stdout=-1)
    state = await window(computer, entry.pid, focused=True)
    field = state.search(role="textbox").first
    keys = await state.act(type_text("Hello World 42 "))
    assert keys.steps[0].delivery == "hid" and keys.steps[0].outcome == "worked", keys.text
    assert keys.state is not None
    pasted = await keys.state.act(field.focus(), type_text(UNICODE))
    assert pasted.steps[1].delivery == "hid" and pasted.steps[1].outcome == "worked", pasted.text
    assert pasted.state is not None
    assert await pasted.state.read_text(field) == f"Hello World 42 {UNICODE}"
    await survived(computer, entry.pid)
    ok = pasted.state.search("OK", role="button").first
    await pasted.state.act(ok.press())
    assert await ended_with(entry, 0) == f"Hello World 42 {UNICODE}\n"


async def test_a_password_goes_by_keys_only_never_through_the_clipboard(
    computer: Computer, desktop: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arrival, "SEMANTIC_TYPING_CHARS", 10**9)
    secret = await start(desktop, "zenity", "--password", "--title=Secret", stdout=-1)
    state = await window(computer, secret.pid, focused=True)
    field = state.search(role="password").first
    refused = await state.act(field.focus(), type_text("pässword"))
    step = refused.steps[1]
    assert step.delivery != "hid" and step.outcome != "worked", refused.text
    assert "clipboard" in refused.text, refused.text
    assert refused.state is not None
    typed = await refused.state.act(type_text("s3cret!"))
    assert typed.steps[0].delivery == "hid", typed.text
    assert typed.state is not None
    await survived(computer, secret.pid)
    ok = typed.state.search("OK", role="button").first
    await typed.state.act(ok.press())
    assert await ended_with(secret, 0) == "s3cret!\n"


async def test_a_click_at_the_pixels_of_a_visual_look_answers_yes(
    computer: Computer, desktop: Sandbox
) -> None:
    question = await start(
        desktop, "zenity", "--question", "--title=Pointer", "--text=Click?", stdout=-1
    )
    await window(computer, question.pid, focused=True)
    root = (await computer.find_roots(pid=question.pid)).first
    visual = await computer.observe(root, mode="visual")  # its pixels, to aim at
    yes = visual.search("Yes", role="button").first
    assert yes.node.rect is not None
    done = await visual.act(click_at(*yes.node.rect.center))
    assert done.steps[0].delivery == "hid", done.text
    assert await ended_with(question, 0) == ""  # zenity --question exits 0 for Yes only


async def test_the_gtk4_calculator_takes_a_click_at_its_pixels_and_shows_the_digit(
    computer: Computer, desktop: Sandbox
) -> None:
    calc = await start(desktop, "gnome-calculator")
    await window(computer, calc.pid, focused=True)
    root = (await computer.find_roots(pid=calc.pid)).first
    visual = await computer.observe(root, mode="visual")
    five = visual.search("5", role="button").first
    assert five.node.rect is not None
    done = await visual.act(
        click_at(*five.node.rect.center), expect=Expect(text="5", role="textbox")
    )
    assert done.steps[0].delivery == "hid", done.text
    assert done.raise_for_outcome().check == "verified", done.text  # the display reads 5
    await survived(computer, calc.pid)
    calc.terminate()  # leave the focus to the next test's window
    await calc.wait()


async def test_a_screenshot_of_the_focused_window_is_read_by_ocr(
    computer: Computer, desktop: Sandbox
) -> None:
    question = await start(
        desktop, "zenity", "--question", "--title=Shot", "--text=Proceed with the plan?"
    )
    await window(computer, question.pid, focused=True)
    visual = await computer.observe(
        (await computer.find_roots(pid=question.pid)).first, mode="visual"
    )
    assert visual.images, visual.text
    image = PilImage.open(io.BytesIO(visual.images[0]))
    assert image.getextrema() != ((0, 0), (0, 0), (0, 0))
    assert image.size[0] < desktop.width  # the window alone, not the whole screen
    label = visual.search("Proceed with the plan?", role="label").first
    assert any("Proceed" in line for line in label.node.ocr_text), label.node
    await survived(computer, question.pid)


async def test_a_dying_shell_is_named_and_teardown_leaves_no_process_or_file() -> None:
    async with Sandbox(wayland="gnome") as doomed:
        app = await start(doomed, "zenity", "--info", "--text=short lived")
        token = doomed.env["ACTUI_SANDBOX_ID"]
        rundir = Path(doomed.env["XDG_RUNTIME_DIR"])
        system_bus = doomed.env["DBUS_SYSTEM_BUS_ADDRESS"]
        assert system_bus.startswith(f"unix:path={rundir}/")  # never the host's system bus
        assert _socket_in(doomed.display, rundir)
        with pytest.raises(SandboxError, match="names no window's process"):
            await doomed.wait_for_app(app.pid, x11=True)  # said at once, not after a timeout
        tagged = {pid: _name(pid) for pid in tagged_pids(token)}
        assert {"gnome-shell", "zenity", "dconf-service"} <= set(tagged.values()), tagged
        async with Computer(env=doomed.env) as session:
            await window(session, app.pid)
            shell = next(pid for pid, name in tagged.items() if name == "gnome-shell")
            await wayland_helpers.killed_compositor_is_named(session, shell, doomed.display)
    assert tagged_pids(token) == set()  # D-Bus-activated helpers included
    assert not await asyncio.to_thread(rundir.exists)


def _socket_in(path: str, directory: Path) -> bool:
    return Path(path).is_socket() and Path(path).parent == directory


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
