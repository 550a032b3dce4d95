"""The physical side of the Linux desktop: which one a session has, and what each provides.

AT-SPI carries the semantics on X11 and Wayland alike; windows, pixels,
liveness and pointer and keyboard input are the display server's. On X11 that
is EWMH, XTEST and the X server's pixels; on sway it is sway's IPC, the
wlroots virtual pointer and keyboard, and grim; on actui's own headless
gnome-shell it is the shell's D-Bus window list, screenshots and
remote-desktop keyboard (no window positions, no pointer). Other Wayland compositors
(GNOME Shell, KWin) let no ordinary client list windows, inject input or read
the screen, so a session there has no physical side at all: the semantic path
still works, and a step that needs the rest is refused before anything is
sent, with the reason and what would enable it. XTEST is never used in a
Wayland session: it can only reach XWayland, never a native window.

This module owns the choice (from the environment the backend was given) and
the shapes the backend relies on; each platform package owns its half.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from actui.backends.atspi.window_origin import WindowSource
from actui.backends.base import ActionRequest, ActionResult
from actui.backends.gestures import Consumed
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.session import Capture
from actui.errors import DisplayGone
from actui.refusals import Refused

DesktopKind = Literal["x11", "sway", "gnome", "wayland", "none"]
COMPOSITOR_VAR = "ACTUI_COMPOSITOR"
"""Set by actui's own sandbox when its compositor is :data:`GNOME_SHELL`: a gnome-shell
whose private session bus lets actui own the names that open its window list,
screenshots and remote-desktop input (never so on a user's own GNOME session)."""
GNOME_SHELL = "gnome-shell"


class Lifeline(Protocol):
    def when_gone(self, callback: Callable[[DisplayGone], None]) -> None: ...

    def gone(self) -> DisplayGone | None: ...


class Screen(Protocol):
    """Windows, activation and pixels of one display (X11Session, SwaySession)."""

    @property
    def lifeline(self) -> Lifeline: ...

    async def start(self) -> None: ...

    async def windows(self) -> list[XWindow]: ...

    async def activate(self, window_id: int, *, timeout_s: float = 0.2) -> bool: ...

    async def capture(self, window_id: int, *, max_dimension: int) -> Capture: ...

    async def close(self) -> None: ...


class PhysicalInput(Protocol):
    """Pointer and keyboard input under the delivery policy (X11Input, WaylandInput)."""

    async def refusal(self, request: ActionRequest, window_id: int) -> Refused | None: ...

    async def deliver(
        self, request: ActionRequest, window_id: int, consumed: Consumed | None = None
    ) -> ActionResult: ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class Desktop:
    """A session's physical side: what it is, and its parts (None where it has none)."""

    kind: DesktopKind
    compositor: str
    screen: Screen | None = None
    input: PhysicalInput | None = None
    origins: WindowSource | None = None
    secret_refusal: Callable[[ActionRequest], Refused | None] | None = None
    """Why text cannot be typed into a password field on this display, if it ever cannot
    (gnome-shell: only by keys, never through the clipboard)."""

    @property
    def positions(self) -> bool:
        """Whether the display tells where every window is: X11 and sway do; gnome-shell
        only where actui found a window (its frame is empty elsewhere), and a Wayland
        session without sway nothing."""
        return self.kind in ("x11", "sway")

    @property
    def pids(self) -> bool:
        """Whether the display names each window's process (gnome-shell does not)."""
        return self.kind != "gnome"

    def notice(self) -> str:
        """What this session's physical side cannot do, for the listing's notices ("" when
        it can do all of it)."""
        if self.kind == "gnome":
            return (
                "gnome-shell tells no window's position: actui finds a window's place from "
                "its picture while it has the focus, and a window never placed has no frame "
                "(geometry: none for it); no client can focus a window here"
            )
        return self.missing()

    def missing(self) -> str:
        """Why this Wayland session gives no windows, input or pixels, and what would ("" on
        X11, on sway, and without a display, where a step finds out for itself)."""
        if self.kind != "wayland":
            return ""
        return (
            f"this Wayland session's compositor ({self.compositor}) lets no ordinary client "
            "list windows, send pointer or keyboard input or read the screen, so only "
            "accessibility actions work here (input: none, capture: none, geometry: none); "
            "run the app under sway, or in `actui sandbox run --wayland`, for the rest"
        )


def desktop_kind(env: Mapping[str, str]) -> DesktopKind:
    """Wayland when the session says so (its socket or its type), X11 when only DISPLAY."""
    if env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE") == "wayland":
        if env.get(COMPOSITOR_VAR) == GNOME_SHELL:
            return "gnome"
        return "sway" if sway_socket(env) else "wayland"
    return "x11" if env.get("DISPLAY") else "none"


def sway_socket(env: Mapping[str, str]) -> str:
    """sway's IPC socket: ``SWAYSOCK``, else the newest one sway made for this user in the
    session's runtime directory ("" when there is none)."""
    if env.get("SWAYSOCK"):
        return env["SWAYSOCK"]
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if not runtime or not env.get("WAYLAND_DISPLAY"):
        return ""
    found = Path(runtime).glob(f"sway-ipc.{os.getuid()}.*.sock")
    newest = max(found, key=_mtime, default=None)
    return str(newest) if newest is not None else ""


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def compositor_name(env: Mapping[str, str]) -> str:
    """The Wayland compositor as the session names it, for messages (best effort)."""
    if env.get(COMPOSITOR_VAR) == GNOME_SHELL:
        return GNOME_SHELL
    if sway_socket(env):
        return "sway"
    desktop = env.get("XDG_CURRENT_DESKTOP") or env.get("DESKTOP_SESSION") or ""
    return desktop or "unknown"


def wayland_socket(env: Mapping[str, str]) -> str:
    """The compositor's socket path (``WAYLAND_DISPLAY`` is a name in the runtime dir or a path)."""
    name = env.get("WAYLAND_DISPLAY", "wayland-0")
    if name.startswith("/"):
        return name
    return f"{env.get('XDG_RUNTIME_DIR', '')}/{name}"


def open_desktop(env: Mapping[str, str]) -> Desktop:
    """The physical side of the session ``env`` describes (connections open lazily)."""
    kind = desktop_kind(env)
    if kind == "x11":
        from actui.backends.x11.input import X11Input
        from actui.backends.x11.session import X11Session

        x11 = X11Session(env["DISPLAY"])
        return Desktop(kind, "x11", x11, X11Input(x11))
    if kind == "sway":
        from actui.backends.wayland.input import WaylandInput
        from actui.backends.wayland.screen import SwaySession

        ipc = sway_socket(env)
        sway = SwaySession(ipc, wayland_socket(env), dict(env))
        placing = SwaySession(ipc, wayland_socket(env), dict(env))
        return Desktop(kind, "sway", sway, WaylandInput(sway), placing)
    if kind == "gnome":
        from actui.backends.wayland.gnome import GnomeSession, ShellBus
        from actui.backends.wayland.gnome_input import GnomeInput, secret_refusal

        shell = ShellBus(env.get("DBUS_SESSION_BUS_ADDRESS", ""), wayland_socket(env))
        session = GnomeSession(shell, dict(env))
        return Desktop(
            kind,
            GNOME_SHELL,
            session,
            GnomeInput(session, env.get("XDG_RUNTIME_DIR", "")),
            session,
            secret_refusal,
        )
    return Desktop(kind, compositor_name(env))
