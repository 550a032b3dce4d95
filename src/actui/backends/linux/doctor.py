"""``actui doctor``: the effective configuration and a check of the session.

Each setting is printed with where it came from; each check says what is
wrong and how to fix it, and each toolkit whose apps would show no tree says why
(``bridges``). It only reads and probes; it changes nothing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from actui.backends.linux.bridges import unreadable_toolkits
from actui.config import load_config
from actui.quoting import quote


async def _check_status() -> None:
    """Report ``IsEnabled``: browsers and Qt build trees only with it on (actui turns it on)."""
    from dbus_fast.aio import MessageBus

    from actui.backends.atspi.status import read_enabled

    try:
        session = await MessageBus(bus_address=os.environ["DBUS_SESSION_BUS_ADDRESS"]).connect()
    except (OSError, ValueError) as exc:
        print(f"  note org.a11y.Status.IsEnabled unreadable ({exc})")
        return
    try:
        enabled = await read_enabled(session)
    finally:
        session.disconnect()
    if enabled:
        print("  ok   org.a11y.Status.IsEnabled is true")
    else:
        print(
            "  note org.a11y.Status.IsEnabled is "
            + ("false" if enabled is False else "not answered")
            + ": Chromium, Electron and Firefox build no accessibility tree until a client asks;"
            " actui mcp switches it on while it runs"
        )


async def _check_atspi() -> str | None:
    """The desktop's roots, and the windows whose apps expose no accessibility tree."""
    from actui.backends.linux.backend import LinuxBackend

    backend = LinuxBackend(env=os.environ, switch_on=False)
    try:
        roots = await backend.list_roots()
    except Exception as exc:  # the check reports any failure as text
        return f"AT-SPI not reachable ({exc}); start the at-spi bus launcher or use actui sandbox"
    finally:
        await backend.close()
    readable = [r for r in roots if r.accessibility == "full"]
    print(f"  ok   AT-SPI: {len(readable)} roots")
    for root in roots:
        if root.accessibility != "full":
            why = "exposes no tree" if root.accessibility == "none" else "does not answer"
            print(
                f"  note {root.app_name or 'a window'} (pid {root.pid}) {quote(root.title)} "
                f"{why}: only visual mode (screenshot, OCR, x/y) reaches it"
            )
    return None


def _check_x11(display: str) -> list[str]:
    """The X extensions the physical path and captures need."""
    from Xlib import display as xdisplay
    from Xlib.error import DisplayError

    try:
        connection = xdisplay.Display(display)
    except DisplayError as exc:
        return [f"cannot connect to X display {display} ({exc})"]
    try:
        missing = [e for e in ("XTEST", "Composite", "RECORD") if not connection.has_extension(e)]
    finally:
        connection.close()
    if missing:
        return [f"X server lacks {', '.join(missing)}: coordinate input or capture won't work"]
    print("  ok   X11 extensions XTEST, Composite, RECORD")
    return []


async def _check_wayland() -> list[str]:
    """Which compositor this Wayland session has, and what actui can do on it."""
    from actui.backends.linux.physical import (
        compositor_name,
        desktop_kind,
        sway_socket,
        wayland_socket,
    )

    kind = desktop_kind(os.environ)
    name = compositor_name(os.environ)
    print(f"  ok   Wayland session ({wayland_socket(os.environ)}), compositor: {name}")
    if kind == "gnome":
        return await _check_gnome_shell()
    if kind != "sway":
        print(
            f"  note {name} lets no ordinary client list windows, send input or read the "
            "screen: accessibility actions work; input: none, capture: none, geometry: none "
            "(sway, or `actui sandbox run --wayland`, gives all of it)"
        )
        return []
    from actui.backends.wayland.screen import SwaySession

    ipc = sway_socket(os.environ)
    sway = SwaySession(ipc, wayland_socket(os.environ), dict(os.environ))
    try:
        windows = await sway.windows()
    except Exception as exc:  # the check reports any failure as text
        return [f"sway IPC at {ipc} does not answer ({exc})"]
    finally:
        await sway.close()
    print(f"  ok   sway IPC: {len(windows)} windows (listing, focus, geometry)")
    print("  ok   input: virtual pointer and keyboard; capture: wlr-screencopy")
    if shutil.which("grim") is None:
        print("  note grim is not installed: with several outputs there is no capture")
    return []


async def _check_gnome_shell() -> list[str]:
    """actui's own headless gnome-shell: its window list answers on the private bus."""
    from actui.backends.linux.physical import wayland_socket
    from actui.backends.wayland.gnome import GnomeSession, ShellBus

    bus = ShellBus(os.environ.get("DBUS_SESSION_BUS_ADDRESS", ""), wayland_socket(os.environ))
    shell = GnomeSession(bus, dict(os.environ))
    try:
        windows = await shell.windows()
    except Exception as exc:  # the check reports any failure as text
        return [f"gnome-shell's window list does not answer ({exc})"]
    finally:
        await shell.close()
    placed = sum(not w.frame.empty for w in windows)
    print(f"  ok   gnome-shell: {len(windows)} windows (titles, focus, sizes), {placed} placed")
    pipewire = Path(os.environ.get("XDG_RUNTIME_DIR", "")) / "pipewire-0"
    pointer = "through a screen cast" if pipewire.exists() else "none (no PipeWire runs)"
    print(
        f"  ok   input: RemoteDesktop keyboard, Unicode through its clipboard; pointer: {pointer}"
    )
    print("  ok   capture: gnome-shell's Screenshot")
    return []


async def doctor() -> int:
    cfg = load_config()
    print("configuration:")
    for key, source in cfg.sources.items():
        print(f"  {key} = {getattr(cfg, key)!r}  ({source})")
    for label, status in cfg.files.items():
        print(f"  {label} file: {status}")
    print("session:")
    problems: list[str] = []
    if os.environ.get("WAYLAND_DISPLAY") or os.environ.get("XDG_SESSION_TYPE") == "wayland":
        problems += await _check_wayland()
    elif not os.environ.get("DISPLAY"):
        problems.append(
            "neither DISPLAY nor WAYLAND_DISPLAY is set: no desktop session; run inside "
            "`actui sandbox run --` (or `--wayland`)"
        )
    else:
        print(f"  ok   DISPLAY={os.environ['DISPLAY']}")
        problems += _check_x11(os.environ["DISPLAY"])
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        problems.append("DBUS_SESSION_BUS_ADDRESS is not set: no session bus")
    else:
        await _check_status()
        problem = await _check_atspi()
        if problem:
            problems.append(problem)
    for gap in unreadable_toolkits(os.environ):
        print(f"  note {gap}")
    browser = cfg.chrome_executable or shutil.which("chromium") or shutil.which("google-chrome")
    if browser:
        print(f"  ok   browser: {browser}")
    else:
        problems.append(
            "no Chromium found: apt-get install chromium or set ACTUI_CHROME_EXECUTABLE"
        )
    for problem in problems:
        print(f"  FAIL {problem}")
    return 1 if problems else 0
