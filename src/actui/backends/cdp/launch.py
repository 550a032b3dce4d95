"""Finding and spawning Chromium with a private profile and a debugging pipe.

This module owns the browser process: picking the executable, building the
command line, handing Chromium the two ends of its debugging pipe on fds 3
and 4 (``--remote-debugging-pipe``: no TCP port, so no other local process can
reach the browser), keeping its crash database inside the profile directory and its singleton
socket in a private temp dir whose path fits a socket address, reading its
stderr for the sentence of a browser that fails, and tearing it all down
(process group, profile directory, temp dir). It must not speak CDP;
connections live in ``connection.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import signal
import tempfile
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from actui.backends import socket_paths
from actui.backends.cdp.connection import PipeTransport
from actui.errors import BackendUnavailable

EXECUTABLE_VAR = "ACTUI_CHROME_EXECUTABLE"
HEADED_VAR = "ACTUI_BROWSER_HEADED"
READY_DEADLINE_S = 15.0
EXIT_GRACE_S = 3.0
LAST_LINES = 20
"""Lines of the browser's stderr kept for the sentence of a browser that failed."""
LINE_CAP = 1000
SINGLETON_ROOM = len("/org.chromium.Chromium.XXXXXX/SingletonSocket")
"""Bytes Chromium adds to ``TMPDIR`` for its singleton socket's path."""
_TEMP_PREFIX = "actui-"
_DESKTOP_VARS = ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS")
"""What a headless browser is not given: it draws on no display and joins no desktop bus."""
_CHILD_READ_FD = 3
_CHILD_WRITE_FD = 4
_CANDIDATE_PATHS = (
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/snap/bin/chromium",
)
_CANDIDATE_NAMES = ("google-chrome", "google-chrome-stable", "chromium", "chromium-browser")
_COMMON_FLAGS = (
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def find_executable(env: Mapping[str, str]) -> str:
    """The browser to run: the override variable is authoritative, then known places."""
    override = env.get(EXECUTABLE_VAR, "").strip()
    if override:
        path = Path(override).expanduser()
        if not path.is_absolute():
            resolved = shutil.which(override, path=env.get("PATH"))
            path = Path(resolved) if resolved else path.resolve()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise BackendUnavailable(
                f"{EXECUTABLE_VAR}={override!r} is not an executable file. Point it at a "
                "Chromium or Chrome binary (absolute path), or unset it to use the default."
            )
        return str(path)
    for candidate in _CANDIDATE_PATHS:
        if os.access(candidate, os.X_OK):
            return candidate
    for name in _CANDIDATE_NAMES:
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            return found
    raise BackendUnavailable(
        "No Chromium or Chrome executable was found. Install chromium, or set "
        f"{EXECUTABLE_VAR} to the absolute path of a Chrome-family browser."
    )


def wants_headed(env: Mapping[str, str], headed: bool | None) -> bool:
    """Headless unless asked for, or unless a display is present and the variable says so."""
    if headed is not None:
        return headed
    flag = env.get(HEADED_VAR, "").strip().lower()
    shown = env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")
    return bool(shown) and flag in ("1", "true", "yes", "on")


def command_line(
    executable: str, profile: Path, *, headed: bool, as_root: bool, wayland: bool = False
) -> list[str]:
    """``wayland``: a headed browser draws as a native Wayland client (the session's input
    and pixels are the compositor's; under XWayland they would be out of its reach)."""
    args = [executable, *_COMMON_FLAGS, f"--user-data-dir={profile}"]
    args.append("--force-renderer-accessibility" if headed else "--headless=new")
    if headed and wayland:
        args.append("--ozone-platform=wayland")
    if as_root:
        args.append("--no-sandbox")
    args.append("about:blank")
    return args


class LastWords:
    """The browser's stderr, read as it comes (so the pipe never fills), its last lines kept.

    A browser that aborts says why there (``…:FATAL:…] Socket path too long: …``)
    and nowhere else.
    """

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._lines: deque[str] = deque(maxlen=LAST_LINES)
        self._reading = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        while True:
            try:
                line = await stream.readline()
            except ValueError:  # a line over the reader's limit: its rest is dropped
                continue
            if not line:
                return
            self._lines.append(line.decode("utf-8", "replace").strip()[:LINE_CAP])

    async def fatal(self, within_s: float) -> str:
        """The fatal line once stderr ends (or ``within_s`` passes), else the last line."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._reading), within_s)
        lines = [line for line in self._lines if line]
        fatal = [line for line in lines if ":FATAL:" in line]
        if fatal:
            return fatal[-1].split("] ", 1)[-1]
        return lines[-1] if lines else ""

    def close(self) -> None:
        self._reading.cancel()


@dataclass
class BrowserProcess:
    """A running browser: its process, its throwaway profile and its debugging pipe ends."""

    process: asyncio.subprocess.Process
    profile: Path
    pipe: PipeTransport
    """The parent's ends of the debugging pipe; the browser's connection owns it."""
    stderr: LastWords
    temp: Path
    """Its private ``TMPDIR``, where it makes its singleton socket: a killed or aborted
    browser leaves that behind."""
    started: float = field(default_factory=time.monotonic)
    """When it was spawned (``time.monotonic``)."""

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    @property
    def ending(self) -> str:
        """How the process ended (``was killed by signal SIGKILL``, ``exited with code 1``);
        empty while it runs."""
        code = self.process.returncode
        if code is None:
            return ""
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"was killed by signal {signal.Signals(-code).name}"
            return f"was killed by signal {-code}"
        return f"exited with code {code}"

    async def terminate(self) -> None:
        """Let a closing browser exit, else kill the whole process group; delete its dirs.

        Renderers and zygotes share the group and may outlive the main process.
        """
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), EXIT_GRACE_S)
        await _kill_group(self.process)
        self.stderr.close()
        for made in (self.temp, self.profile):
            shutil.rmtree(made, ignore_errors=True)


def child_env(env: Mapping[str, str], profile: Path, temp: Path, *, headed: bool) -> dict[str, str]:
    """The browser's environment: its config and cache homes inside the profile, its
    private temp dir, and, headless, none of the desktop.

    Chromium keeps its crash database under ``$XDG_CONFIG_HOME/chromium``,
    outside ``--user-data-dir`` (``--crash-dumps-dir`` does not move it), and
    GLib's settings backend writes under ``$XDG_CACHE_HOME``. A headless
    Chromium that finds the desktop's buses registers accessibility windows of
    its own there, which would list its page a second time.
    """
    homes = {"XDG_CONFIG_HOME": profile / "config", "XDG_CACHE_HOME": profile / "cache"}
    for path in homes.values():
        path.mkdir()
    ours = {**{name: str(path) for name, path in homes.items()}, "TMPDIR": str(temp)}
    kept = {k: v for k, v in env.items() if headed or k not in _DESKTOP_VARS}
    return {**kept, **ours}


async def spawn(env: Mapping[str, str], *, headed: bool) -> BrowserProcess:
    """Start the browser with its debugging pipe (whose first answer says it is ready)."""
    executable = find_executable(env)
    base = env.get("TMPDIR") or tempfile.gettempdir()
    profile = Path(tempfile.mkdtemp(prefix="actui-chromium-", dir=base))
    room = len(_TEMP_PREFIX) + 9 + SINGLETON_ROOM  # "/", the prefix, 8 random characters
    temp = Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX, dir=socket_paths.roomy(base, room)))
    wayland = bool(env.get("WAYLAND_DISPLAY"))
    args = command_line(
        executable, profile, headed=headed, as_root=os.geteuid() == 0, wayland=wayland
    )
    args.insert(-1, "--remote-debugging-pipe")
    child_reads, parent_writes = os.pipe()
    parent_reads, child_writes = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=child_env(env, profile, temp, headed=headed),
            start_new_session=True,
            pass_fds=(_CHILD_READ_FD, _CHILD_WRITE_FD),
            preexec_fn=_place_pipe(child_reads, child_writes),
        )
    except OSError as exc:
        for fd in (parent_reads, parent_writes):
            os.close(fd)
        for made in (temp, profile):
            shutil.rmtree(made, ignore_errors=True)
        raise BackendUnavailable(f"Could not start {executable}: {exc}.") from exc
    finally:
        os.close(child_reads)
        os.close(child_writes)
    assert process.stderr is not None
    pipe = await PipeTransport.open(parent_reads, parent_writes)
    return BrowserProcess(process, profile, pipe, LastWords(process.stderr), temp)


def _place_pipe(child_reads: int, child_writes: int) -> Callable[[], None]:
    """Runs in the child before exec: the pipe ends onto fds 3 and 4, where Chromium looks.

    Both are first copied above the standard numbers so that placing one can
    never overwrite the other; ``pass_fds`` keeps 3 and 4 open through exec.
    """

    def place() -> None:
        reads = fcntl.fcntl(child_reads, fcntl.F_DUPFD, 10)
        writes = fcntl.fcntl(child_writes, fcntl.F_DUPFD, 10)
        os.dup2(reads, _CHILD_READ_FD)
        os.dup2(writes, _CHILD_WRITE_FD)

    return place


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, give it a moment, then SIGKILL; always reap the child."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 2.0)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
