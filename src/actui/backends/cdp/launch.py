"""Finding and spawning Chromium with a private profile and a debugging pipe.

This module owns the browser process: picking the executable, building the
command line, handing Chromium the two ends of its debugging pipe on fds 3
and 4 (``--remote-debugging-pipe``: no TCP port, so no other local process can
reach the browser), keeping its crash database inside the profile directory
and tearing it all down (process group, profile directory, the singleton
dir Chromium makes in the temp dir). It must not speak CDP; connections live
in ``connection.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from actui.backends.cdp.connection import PipeTransport
from actui.errors import BackendUnavailable

EXECUTABLE_VAR = "ACTUI_CHROME_EXECUTABLE"
HEADED_VAR = "ACTUI_BROWSER_HEADED"
READY_DEADLINE_S = 15.0
EXIT_GRACE_S = 3.0
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
    return bool(env.get("DISPLAY")) and flag in ("1", "true", "yes", "on")


def command_line(executable: str, profile: Path, *, headed: bool, as_root: bool) -> list[str]:
    args = [executable, *_COMMON_FLAGS, f"--user-data-dir={profile}"]
    args.append("--force-renderer-accessibility" if headed else "--headless=new")
    if as_root:
        args.append("--no-sandbox")
    args.append("about:blank")
    return args


@dataclass
class BrowserProcess:
    """A running browser: its process, its throwaway profile and its debugging pipe ends."""

    process: asyncio.subprocess.Process
    profile: Path
    pipe: PipeTransport
    """The parent's ends of the debugging pipe; the browser's connection owns it."""
    singleton_dir: Path | None = None
    """The temp dir holding Chromium's singleton socket, once it is known."""

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    @property
    def ending(self) -> str:
        """How the process ended (``signal SIGKILL``, ``code 1``); empty while it runs."""
        code = self.process.returncode
        if code is None:
            return ""
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"signal {signal.Signals(-code).name}"
            return f"signal {-code}"
        return f"code {code}"

    def note_singleton_dir(self) -> None:
        """Remember where the singleton socket lives; call once the browser answers.

        Chromium removes its profile's link to it on a clean close but leaves
        the ``org.chromium.Chromium.*`` dir itself when it is killed.
        """
        self.singleton_dir = _singleton_dir(self.profile) or self.singleton_dir

    async def terminate(self) -> None:
        """Let a closing browser exit, else kill the whole process group; delete its dirs.

        Renderers and zygotes share the group and may outlive the main process.
        """
        self.note_singleton_dir()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), EXIT_GRACE_S)
        await _kill_group(self.process)
        if self.singleton_dir is not None:
            shutil.rmtree(self.singleton_dir, ignore_errors=True)
        shutil.rmtree(self.profile, ignore_errors=True)


def _singleton_dir(profile: Path) -> Path | None:
    """The temp dir the profile's ``SingletonSocket`` link points into, if it is Chromium's."""
    try:
        target = Path(os.readlink(profile / "SingletonSocket")).parent
    except OSError:
        return None
    return target if target.name.startswith("org.chromium.Chromium.") else None


def child_env(env: Mapping[str, str], profile: Path) -> dict[str, str]:
    """The browser's environment: its config and cache homes inside the profile.

    Chromium keeps its crash database under ``$XDG_CONFIG_HOME/chromium``,
    outside ``--user-data-dir`` (``--crash-dumps-dir`` does not move it), and
    GLib's settings backend writes under ``$XDG_CACHE_HOME``.
    """
    homes = {"XDG_CONFIG_HOME": profile / "config", "XDG_CACHE_HOME": profile / "cache"}
    for path in homes.values():
        path.mkdir()
    return {**env, **{name: str(path) for name, path in homes.items()}}


async def spawn(env: Mapping[str, str], *, headed: bool) -> BrowserProcess:
    """Start the browser with its debugging pipe (whose first answer says it is ready)."""
    executable = find_executable(env)
    profile = Path(tempfile.mkdtemp(prefix="actui-chromium-", dir=env.get("TMPDIR") or None))
    args = command_line(executable, profile, headed=headed, as_root=os.geteuid() == 0)
    args.insert(-1, "--remote-debugging-pipe")
    child_reads, parent_writes = os.pipe()
    parent_reads, child_writes = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=child_env(env, profile),
            start_new_session=True,
            pass_fds=(_CHILD_READ_FD, _CHILD_WRITE_FD),
            preexec_fn=_place_pipe(child_reads, child_writes),
        )
    except OSError as exc:
        for fd in (parent_reads, parent_writes):
            os.close(fd)
        shutil.rmtree(profile, ignore_errors=True)
        raise BackendUnavailable(f"Could not start {executable}: {exc}.") from exc
    finally:
        os.close(child_reads)
        os.close(child_writes)
    return BrowserProcess(process, profile, await PipeTransport.open(parent_reads, parent_writes))


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
