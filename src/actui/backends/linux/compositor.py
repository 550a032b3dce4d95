"""The private desktop's Wayland compositor: a headless sway, run as a user of its own.

sway refuses to start as root, so the sandbox runs it under ``setpriv`` as a
user and group id no one else has (picked at random from a range above any
real account; no account needs to exist), while the buses, AT-SPI and the
apps stay the sandbox's own. That id owns the compositor's runtime directory
(0700, removed at teardown like the sandbox's run dir), so two sandboxes'
compositors cannot reach each other's sockets. Clients reach it by absolute
paths: ``WAYLAND_DISPLAY`` and ``SWAYSOCK``. New windows float, centred at the
size they ask for, as on a desktop; XWayland is off, so every app is a native
Wayland client.

This module owns the configuration, the ids, the environment of the
compositor and of the apps, and the readiness check; the sandbox spawns and
stops the process like every other.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import stat
import tempfile
from pathlib import Path

from actui.backends.wayland.sway import GET_TREE, SwayIpc
from actui.errors import ActuiError

ID_BASE = 1_900_000_000
ID_SPAN = 100_000_000
"""User and group ids for compositors are drawn from here: far above real accounts (and
above the ranges container tools hand out to user namespaces)."""
READY_POLL_S = 0.02
WAYLAND_ENV = {
    "GDK_BACKEND": "wayland",
    "QT_QPA_PLATFORM": "wayland",
    "XDG_SESSION_TYPE": "wayland",
    "SDL_VIDEODRIVER": "wayland",
    "MOZ_ENABLE_WAYLAND": "1",
}
"""What sends toolkits to the compositor rather than to an X server."""


REFRESH_HZ = 240
"""The headless output's refresh: a screencopy waits for the next frame (at 60 Hz up to
17 ms, at 240 Hz about 4), and sway draws only what changed, so an idle desktop costs
nothing more (gtk4-widget-factory animating: 23–24% CPU at 60 and at 240 Hz)."""


def config(width: int, height: int) -> str:
    """sway's configuration: one headless output, floating windows, no XWayland."""
    return (
        "xwayland disable\n"
        f"output HEADLESS-1 mode --custom {width}x{height}@{REFRESH_HZ}Hz position 0 0\n"
        'for_window [app_id=".*"] floating enable\n'
    )


def pick_id() -> int:
    """A user and group id that no running process has (random in the reserved range)."""
    while True:
        candidate = ID_BASE + secrets.randbelow(ID_SPAN)
        if not _in_use(candidate):
            return candidate


def _in_use(uid: int) -> bool:
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            if line.startswith("Uid:") and str(uid) in line.split()[1:]:
                return True
    return False


def runtime_dir(near: Path) -> Path:
    """A new, empty directory for the compositor, beside ``near`` when its user can get
    there (every ancestor searchable by others), else in ``/tmp``.

    sway resolves its configuration's real path, so the directory must be reachable by
    path for its user, unlike the sandbox's own run dir (0700, root's)."""
    base = near if _searchable(near) else Path("/tmp")
    return Path(tempfile.mkdtemp(prefix="actui-sway-", dir=base))


def _searchable(path: Path) -> bool:
    try:
        return all(p.stat().st_mode & stat.S_IXOTH for p in (path, *path.parents))
    except OSError:
        return False


def prepare(runtime: Path, width: int, height: int) -> tuple[int, Path]:
    """Give ``runtime`` to a new compositor id (0700) with the configuration inside.

    Returns (the id, the configuration file).
    """
    ident = pick_id()
    conf = runtime / "sway.conf"
    conf.write_text(config(width, height))
    conf.chmod(0o644)
    runtime.chmod(0o700)
    os.chown(runtime, ident, ident)
    return ident, conf


def argv(ident: int, conf: Path) -> list[str]:
    return [
        "setpriv",
        f"--reuid={ident}",
        f"--regid={ident}",
        "--clear-groups",
        "--",
        "sway",
        "-c",
        str(conf),
    ]


def environment(runtime: Path, extra: dict[str, str]) -> dict[str, str]:
    """sway's own environment: nothing of the host's session, its runtime dir, headless."""
    return {
        "HOME": "/nonexistent",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "XDG_RUNTIME_DIR": str(runtime),
        "WLR_BACKENDS": "headless",
        "WLR_RENDERER": "pixman",
        "WLR_LIBINPUT_NO_DEVICES": "1",
        **extra,
    }


async def ready(runtime: Path) -> tuple[str, str]:
    """Wait until sway answers on its IPC socket; its (WAYLAND_DISPLAY, SWAYSOCK) paths.

    Bounded by the caller's deadline (the sandbox's start timeout).
    """
    while True:
        sockets, displays = _sockets(runtime)
        if sockets and displays:
            display = displays[0]
            ipc = SwayIpc(str(sockets[0]))
            try:
                await ipc.request(GET_TREE)
                return str(display), str(sockets[0])
            except ActuiError:
                pass
            finally:
                await ipc.close()
        await asyncio.sleep(READY_POLL_S)


def _sockets(runtime: Path) -> tuple[list[Path], list[Path]]:
    """sway's IPC sockets and Wayland sockets in its runtime directory (a few entries)."""
    names = sorted(runtime.iterdir())
    ipc = [p for p in names if p.name.startswith("sway-ipc.") and p.suffix == ".sock"]
    return ipc, [p for p in names if p.name.startswith("wayland-") and p.suffix != ".lock"]


async def window_pids(swaysock: str) -> set[int]:
    """The pids of the clients with a window (an app without accessibility is up then)."""
    from actui.backends.wayland.tree import windows_of

    ipc = SwayIpc(swaysock)
    try:
        return {w.pid for w in windows_of(await ipc.tree())}
    finally:
        await ipc.close()
