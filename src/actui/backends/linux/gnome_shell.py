"""The private desktop's other compositor: a headless gnome-shell (GNOME 43), run as root.

gnome-shell starts only when it can reach a *system* bus (its login manager
client gives up otherwise), so the sandbox gives it a second private
dbus-daemon and ``DBUS_SYSTEM_BUS_ADDRESS``; it never touches the host's. Its
Wayland socket is made in the sandbox's runtime directory (removed at teardown
with everything else), apps reach it by absolute path, and XWayland is off, so
every app is a native Wayland client. It is ready once ``org.gnome.Shell`` is
owned on the private session bus; it starts in the overview, which is closed
before any app starts so that a new window is shown and focused, not a grid of
thumbnails. The seat has no keyboard until a remote-desktop session sends a key,
and without one no window gets the keyboard, so the sandbox keeps such a
session open, as a real seat keeps its keyboard.

This module owns the command line and the environment marker that tells the
backend which compositor this is; the sandbox spawns, readies and stops the
process like every other.
"""

from __future__ import annotations

from actui.backends.linux.physical import COMPOSITOR_VAR, GNOME_SHELL

SHELL_NAME = "org.gnome.Shell"
SHELL_PATH = "/org/gnome/Shell"
REMOTE_DESKTOP = ("org.gnome.Mutter.RemoteDesktop", "/org/gnome/Mutter/RemoteDesktop")
REMOTE_SESSION = "org.gnome.Mutter.RemoteDesktop.Session"
SHIFT_KEYSYM = 0xFFE1
SOCKET_NAME = "wayland-gs"
"""gnome-shell's Wayland socket, made in ``XDG_RUNTIME_DIR`` (the sandbox's run dir)."""
MARKER = {COMPOSITOR_VAR: GNOME_SHELL}
"""Tells the backend in the sandbox that the compositor is this gnome-shell, whose
private bus grants the window list, screenshots and remote-desktop input."""


def argv(width: int, height: int) -> list[str]:
    return [
        "gnome-shell",
        "--headless",
        "--wayland",
        "--no-x11",
        "--virtual-monitor",
        f"{width}x{height}",
        f"--wayland-display={SOCKET_NAME}",
    ]
