"""Finding and spawning Chromium with a private profile and a loopback debugging port.

This module owns the browser process: picking the executable, building the
command line, reading the port Chromium chose from ``DevToolsActivePort`` and
tearing everything down (process group, profile directory). It must not speak
CDP beyond reading the port file; connections live in ``connection.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from actui.errors import BackendUnavailable

EXECUTABLE_VAR = "ACTUI_CHROME_EXECUTABLE"
HEADED_VAR = "ACTUI_BROWSER_HEADED"
READY_DEADLINE_S = 15.0
_PORT_POLL_S = 0.05
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
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
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
    """A running browser: its process, its throwaway profile and its browser endpoint."""

    process: asyncio.subprocess.Process
    profile: Path
    port: int
    browser_path: str

    @property
    def browser_ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{self.browser_path}"

    def page_ws_url(self, target_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/devtools/page/{target_id}"

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def terminate(self) -> None:
        """Kill the whole process group (renderers included) and delete the profile."""
        await _kill_group(self.process)
        shutil.rmtree(self.profile, ignore_errors=True)


async def spawn(
    env: Mapping[str, str], *, headed: bool, deadline_s: float = READY_DEADLINE_S
) -> BrowserProcess:
    """Start the browser and wait until its debugging endpoint is announced."""
    executable = find_executable(env)
    profile = Path(tempfile.mkdtemp(prefix="actui-chromium-"))
    args = command_line(executable, profile, headed=headed, as_root=os.geteuid() == 0)
    try:
        process = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(env),
            start_new_session=True,
        )
    except OSError as exc:
        shutil.rmtree(profile, ignore_errors=True)
        raise BackendUnavailable(f"Could not start {executable}: {exc}.") from exc
    try:
        port, path = await asyncio.wait_for(
            _read_port_file(process, profile / "DevToolsActivePort"), deadline_s
        )
    except TimeoutError:
        await _kill_group(process)
        shutil.rmtree(profile, ignore_errors=True)
        raise BackendUnavailable(
            f"Chromium did not open its debugging port within {deadline_s:.0f} s; it was stopped."
        ) from None
    except BaseException:
        await _kill_group(process)
        shutil.rmtree(profile, ignore_errors=True)
        raise
    return BrowserProcess(process=process, profile=profile, port=port, browser_path=path)


async def _read_port_file(process: asyncio.subprocess.Process, port_file: Path) -> tuple[int, str]:
    """Chromium writes ``<port>\\n<browser ws path>`` once it listens; poll for it."""
    while True:
        if process.returncode is not None:
            raise BackendUnavailable(
                f"Chromium exited with status {process.returncode} before opening its "
                "debugging port. Check that the executable runs (try it with --headless=new)."
            )
        lines = await asyncio.to_thread(_read_lines, port_file)
        if len(lines) >= 2 and lines[0].isdigit():
            return int(lines[0]), lines[1].strip()
        await asyncio.sleep(_PORT_POLL_S)


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text().splitlines()
    except (OSError, ValueError):
        return []


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, give it a moment, then SIGKILL; always reap the child."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 2.0)
    # Renderers and zygotes share the group and may outlive the main process.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
