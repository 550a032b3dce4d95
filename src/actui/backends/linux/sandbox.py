"""A private virtual desktop: its own X server, session bus, AT-SPI bus and registry, and WM.

This module owns starting those processes with readiness checks (deadlines, never fixed
sleeps), the environment that points child processes at them, launching apps inside, and
tearing every process down by PID. It must not observe or act on user interfaces: that is the
backends' job. It knows just enough AT-SPI to tell when the desktop, or an app in it, is ready.

Every process started for or inside a sandbox carries ``ACTUI_SANDBOX_ID=<token>`` in its
environment, so teardown can find what escaped its process group: daemons activated on the
private bus, grandchildren that left their group, commands the caller ran with ``Sandbox.env``;
and what a process that overwrote its environment (Chromium) started is found through its
ancestors and sessions (:func:`~actui.backends.linux.sandbox_reaper.members`).

Each app ``launch`` starts keeps its output in a log file under the runtime directory's
``apps/``, and gets an exit record there (:mod:`actui.backends.exit_records`, directory in
``ACTUI_SANDBOX_APPS``), so a tool in the sandbox can say how an app ended and where its
output is. If the owner dies without a teardown, a reaper process
(:mod:`actui.backends.linux.sandbox_reaper`) stops them and removes the run dir.

With ``wayland`` the display is a headless sway (:mod:`actui.backends.linux.compositor`)
instead of Xvfb and openbox, with a runtime directory of its own, removed with the run dir;
with ``wayland="gnome"`` it is a headless gnome-shell (:mod:`actui.backends.linux.gnome_shell`)
beside a second private bus daemon that stands in for the system bus it needs, and
PipeWire with WirePlumber, through which its pointer input must go.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import os
import secrets
import select
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from dbus_fast import Message, Variant
from dbus_fast.aio import MessageBus

from actui.backends import dbus_calls, exit_records, socket_paths
from actui.backends.exits import from_returncode
from actui.backends.linux import compositor, gnome_shell, sandbox_reaper
from actui.backends.linux.bridges import bridge_env
from actui.backends.linux.sandbox_reaper import TOKEN_VAR, members
from actui.backends.linux.sandbox_reaper import tagged_pids as tagged_pids
from actui.backends.wayland.devices import VirtualDevices
from actui.deadlines import Deadline

START_TIMEOUT_S = 30.0
STOP_GRACE_S = 2.0
CALL_TIMEOUT_S = 2.0
APP_POLL_S = 0.05
APP_TIMEOUT_S = 20.0
APP_LOG = -42
"""``launch``'s default for ``stdout`` and ``stderr``: the stream goes to the app's log file."""

_RUNDIR_PREFIX = "actui-sandbox-"
_SOCKET_ROOM = 64
"""Bytes of path below the run dir a socket may take: a browser's, in its temp dir under
``tmp/`` (``cdp/launch``), takes 64; the session bus's and the accessibility bus's less.
A temp dir too deep for that puts the run dir in /tmp (``socket_paths``), so that what the
browser leaves is inside the run dir, where the reaper removes it."""
_FIRST_DISPLAY = 100
_DISPLAY_ATTEMPTS = 20  # only lost lock races use more than one
_DBUS = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
_A11Y_BUS = ("org.a11y.Bus", "/org/a11y/bus")
_PROPERTIES = "org.freedesktop.DBus.Properties"
_FALSE = Variant("b", False)
_REGISTRY = "org.a11y.atspi.Registry"
_ACCESSIBLE_ROOT = "/org/a11y/atspi/accessible/root"

# Host variables that would leak the host session into the sandbox.
_HOST_ONLY = ("WAYLAND_DISPLAY", "GTK_MODULES", "AT_SPI_BUS_ADDRESS", "SESSION_MANAGER")
_TOOLKIT_ENV = {
    "NO_AT_BRIDGE": "0",
    "ACCESSIBILITY_ENABLED": "1",
    "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
    "QT_ACCESSIBILITY": "1",
    "GTK_A11Y": "atspi",
    "QT_QPA_PLATFORM": "xcb",
    # GTK4 on Xvfb otherwise renders on llvmpipe at high CPU and may never reach the bus.
    "GSK_RENDERER": "cairo",
    "XDG_SESSION_TYPE": "x11",
}

T = TypeVar("T")
Compositor = Literal["sway", "gnome"]


class SandboxError(RuntimeError):
    """The private desktop could not start, or an app in it died: says which step and why."""


@dataclass(frozen=True)
class _Child:
    name: str
    process: asyncio.subprocess.Process
    log: Path | None

    def tail(self) -> str:
        if self.log is None:
            return ""
        try:
            text = self.log.read_text(errors="replace").strip()
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-8:])


_LIVE: set[Sandbox] = set()


class Sandbox:
    """A private virtual desktop: Xvfb + private session bus + AT-SPI bus launcher + registryd
    + openbox.

    Several can run at once: each has its own display, buses, runtime directory and home
    directory, and the environment in ``env`` sends child processes to them and nowhere else.
    """

    def __init__(
        self,
        *,
        width: int = 1280,
        height: int = 800,
        window_manager: bool = True,
        accessibility_on: bool = True,
        wayland: bool | Compositor = False,
    ) -> None:
        self.width = width
        self.height = height
        self.window_manager = window_manager
        self.compositor: Compositor | None = (
            ("sway" if wayland is True else wayland) if wayland else None
        )
        """A headless sway (:mod:`~actui.backends.linux.compositor`, ``wayland=True``) or
        gnome-shell (:mod:`~actui.backends.linux.gnome_shell`) instead of Xvfb and openbox:
        apps are native Wayland clients."""
        self.wayland = self.compositor is not None
        self.accessibility_on = accessibility_on
        """Whether ``org.a11y.Status.IsEnabled`` starts true, as a screen reader would set it."""
        self.display = ""
        self.startup_s = 0.0
        self._token = secrets.token_hex(8)
        self._rundir: Path | None = None
        self._compositor_dir: Path | None = None
        self._lifeline: int | None = None
        self._reaper: asyncio.subprocess.Process | None = None
        self._children: list[_Child] = []
        self._session: MessageBus | None = None
        self._a11y: MessageBus | None = None
        self._ends: set[asyncio.Future[None]] = set()
        self._recorders: set[asyncio.Future[None]] = set()
        self._step = "not started"
        self._seat: VirtualDevices | None = None
        env = {k: v for k, v in os.environ.items() if k not in _HOST_ONLY}
        env.update(_TOOLKIT_ENV)
        env.update(bridge_env(env))
        if wayland:
            env.pop("DISPLAY", None)
            env.update(compositor.WAYLAND_ENV)
        if self.compositor == "gnome":
            env.update(gnome_shell.MARKER)
        env[TOKEN_VAR] = self._token
        self.env: dict[str, str] = env

    async def __aenter__(self) -> Sandbox:
        _LIVE.add(self)
        began = time.monotonic()
        try:
            async with asyncio.timeout(START_TIMEOUT_S):
                await self._start()
        except TimeoutError:
            await self._stop()
            raise SandboxError(
                f"the sandbox did not start within {START_TIMEOUT_S:.0f} s while {self._step}"
                + self._logs()
            ) from None
        except BaseException:
            await self._stop()
            raise
        self.startup_s = time.monotonic() - began
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stop()

    async def launch(
        self,
        argv: Sequence[str],
        *,
        stdout: int | None = APP_LOG,
        stderr: int | None = APP_LOG,
    ) -> asyncio.subprocess.Process:
        """Start an app on this desktop, in its own process group, killed at teardown.

        Streams left at :data:`APP_LOG` go to ``apps/<name>-<n>.log`` (see :meth:`log_of`).
        Raises OSError when the command cannot be run.
        """
        if self._a11y is None or self._rundir is None:
            raise SandboxError("launch() needs a running sandbox: use `async with Sandbox()`")
        name = Path(argv[0]).name
        log = self.apps_dir / f"{name}-{len(self._children)}.log"
        with log.open("ab") as out:
            process = await asyncio.create_subprocess_exec(
                *argv,
                env=app_env(self.env),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out if stdout == APP_LOG else stdout,
                stderr=out if stderr == APP_LOG else stderr,
                start_new_session=True,
            )
        self._children.append(_Child(name, process, log))
        exit_records.write(self.apps_dir, exit_records.AppRecord(process.pid, name, str(log)))
        recorder = asyncio.ensure_future(self._record_exit(process, name, log))
        self._recorders.add(recorder)
        recorder.add_done_callback(self._recorders.discard)
        return process

    @property
    def apps_dir(self) -> Path:
        """Where launched apps' logs and exit records are kept (inside the runtime dir)."""
        assert self._rundir is not None, "the sandbox is not running"
        return self._rundir / "apps"

    def log_of(self, process: asyncio.subprocess.Process) -> Path | None:
        """The log file of an app ``launch`` started (deleted at teardown)."""
        return next((c.log for c in self._children if c.process is process), None)

    async def _record_exit(self, process: asyncio.subprocess.Process, name: str, log: Path) -> None:
        code = await process.wait()
        with contextlib.suppress(OSError):  # the teardown may have removed the directory
            exit_records.write(
                self.apps_dir, exit_records.AppRecord(process.pid, name, str(log), code)
            )

    async def wait_for_app(
        self,
        pid: int,
        *,
        timeout: float = APP_TIMEOUT_S,  # noqa: ASYNC109 (the published API)
        x11: bool = False,
    ) -> None:
        """Return once an AT-SPI application of ``pid`` (or of a process it started) has a
        window, or with ``x11`` once an X11 window of one of them is managed (an app without
        accessibility: xmessage, xterm).

        Polls the registry every ``APP_POLL_S`` seconds instead of listening: the registry root
        announces new apps only to clients that called ``RegisterEvent``, and registering
        switches toolkit caches on for every app, which a readiness check must not do.
        Raises TimeoutError naming the pid, or SandboxError at once if a process started by
        ``launch`` exits first.
        """
        bus = self._a11y
        if bus is None:
            raise SandboxError("wait_for_app() needs a running sandbox")
        owners: dict[str, int] = {}
        try:
            async with asyncio.timeout(timeout):
                while True:
                    self._fail_if_exited(pid)
                    if x11 and any(
                        _descends_from(owner, pid) for owner in await self._window_pids()
                    ):
                        return
                    (apps,) = await _call(
                        bus, _REGISTRY, _ACCESSIBLE_ROOT, "org.a11y.atspi.Accessible", "GetChildren"
                    )
                    for name, path in apps:
                        if name not in owners:
                            owners[name] = await _connection_pid(bus, name)
                        if _descends_from(owners[name], pid) and await _child_count(
                            bus, name, path
                        ):
                            return
                    await asyncio.sleep(APP_POLL_S)
        except TimeoutError:
            seen = ", ".join(f"{name} (pid {p})" for name, p in owners.items()) or "none"
            raise TimeoutError(
                f"no AT-SPI application of pid {pid} showed a window within {timeout:g} s "
                f"on display {self.display}; applications seen: {seen}"
            ) from None

    async def _window_pids(self) -> set[int]:
        """The pids of the clients owning managed windows (X11's or the compositor's)."""
        if self.compositor == "gnome":
            raise SandboxError(
                "gnome-shell names no window's process, so only an app on the accessibility "
                "bus can be waited for here (leave x11 false)"
            )
        if self.wayland:
            return await compositor.window_pids(self.env["SWAYSOCK"])
        return await asyncio.to_thread(_x11_window_pids, self.display)

    # -- start -------------------------------------------------------------------------

    async def _start(self) -> None:
        base = socket_paths.roomy(tempfile.gettempdir(), len(_RUNDIR_PREFIX) + 9 + _SOCKET_ROOM)
        self._rundir = Path(tempfile.mkdtemp(prefix=_RUNDIR_PREFIX, dir=base))
        if self.compositor == "sway":
            self._compositor_dir = compositor.runtime_dir(self._rundir.parent)
        await self._start_reaper()
        self.env["XDG_RUNTIME_DIR"] = str(self._rundir)
        self.apps_dir.mkdir()
        self.env[exit_records.RECORDS_VAR] = str(self.apps_dir)
        # Temp files (a browser profile, stored output) go where teardown, or the reaper after
        # a killed owner, deletes them, even when the process that made them was killed.
        (self._rundir / "tmp").mkdir()
        self.env["TMPDIR"] = str(self._rundir / "tmp")
        # A private home: apps keep settings, recent files and session state there, so one
        # run (or a killed app's leftovers) never changes how the next run's apps start.
        home = self._rundir / "home"
        for sub in (".config", ".local/share", ".cache", ".local/state"):
            (home / sub).mkdir(parents=True)
        self.env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_CACHE_HOME=str(home / ".cache"),
            XDG_STATE_HOME=str(home / ".local/state"),
        )
        if self.compositor == "sway":
            await self._start_sway()
        elif self.compositor is None:
            await self._start_x()
        else:  # gnome-shell needs a system bus; so does what the session bus activates
            self.env["DBUS_SYSTEM_BUS_ADDRESS"] = await self._start_bus(
                "system-bus", f"unix:path={self._rundir / 'system_bus_socket'}", "system bus"
            )
        await self._start_session_bus()
        wm = (
            await self._spawn("openbox", ["openbox", "--sm-disable"])
            if self.window_manager and not self.wayland
            else None
        )
        await self._start_a11y()
        if self.compositor == "gnome":
            await self._start_gnome_shell()
        if wm is not None:
            self._step = "waiting for openbox to manage the screen"
            await self._ready(wm, asyncio.to_thread(_wait_for_wm, self.display, START_TIMEOUT_S))

    async def _start_reaper(self) -> None:
        """The process that finishes the teardown if this one dies first (sandbox_reaper)."""
        assert self._rundir is not None
        reads, self._lifeline = os.pipe()
        try:
            self._reaper = await asyncio.create_subprocess_exec(
                sys.executable,
                "-I",
                sandbox_reaper.__file__,
                self._token,
                str(self._rundir),
                *([str(self._compositor_dir)] if self._compositor_dir else []),
                stdin=reads,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            os.close(reads)

    async def _start_x(self) -> None:
        """Claim a display race-free: Xvfb's own lock file decides, ``-displayfd`` says ready."""
        failed: _Child | None = None
        for number in _free_displays(_FIRST_DISPLAY, _DISPLAY_ATTEMPTS):
            self._step = f"starting Xvfb on :{number}"
            read_fd, write_fd = os.pipe()
            try:
                xvfb = await self._spawn(
                    "Xvfb",
                    [
                        "Xvfb",
                        f":{number}",
                        "-displayfd",
                        str(write_fd),
                        "-screen",
                        "0",
                        f"{self.width}x{self.height}x24",
                        "-nolisten",
                        "tcp",
                        "-noreset",
                        "+extension",
                        "Composite",
                        "+extension",
                        "RANDR",
                    ],
                    pass_fds=(write_fd,),
                    server=True,
                )
            finally:
                os.close(write_fd)
            if await _read_pipe_line(read_fd):
                self.display = f":{number}"
                self.env["DISPLAY"] = self.display
                return
            await xvfb.process.wait()  # another server won the lock: try the next number
            self._children.remove(xvfb)
            failed = xvfb
        raise SandboxError("no display could be claimed for Xvfb" + _tail_of(failed))

    async def _start_sway(self) -> None:
        """A headless sway as a user of its own; ready once its IPC answers."""
        runtime = self._compositor_dir
        assert runtime is not None
        self._step = "starting sway"
        ident, conf = compositor.prepare(runtime, self.width, self.height)
        sway = await self._spawn(
            "sway",
            compositor.argv(ident, conf),
            env=compositor.environment(runtime, {TOKEN_VAR: self._token}),
            server=True,
        )
        display, swaysock = await self._ready(sway, compositor.ready(runtime))
        self.display = display
        self.env.update(WAYLAND_DISPLAY=display, SWAYSOCK=swaysock)
        # A seat without a keyboard gives no window keyboard focus (GTK then focuses no
        # widget), and one whose keyboard appears only with the first key loses that key:
        # the desktop keeps an idle virtual keyboard and pointer, as a real seat has.
        self._seat = await asyncio.to_thread(VirtualDevices, display)

    async def _start_gnome_shell(self) -> None:
        """A headless gnome-shell on the private buses, its overview closed; ready once
        ``org.gnome.Shell`` is owned."""
        assert self._session is not None and self._rundir is not None
        if shutil.which("pipewire") and shutil.which("wireplumber"):
            # mutter takes absolute pointer motion only relative to a screen cast, which
            # streams through PipeWire (its session manager links the stream)
            self._step = "starting PipeWire"
            pipewire = await self._spawn("pipewire", ["pipewire"])
            await self._ready(pipewire, _appears(self._rundir / "pipewire-0"))
            await self._spawn("wireplumber", ["wireplumber"])
        self._step = "starting gnome-shell"
        shell = await self._spawn(
            "gnome-shell", gnome_shell.argv(self.width, self.height), server=True
        )
        await self._ready(shell, _name_owned(self._session, gnome_shell.SHELL_NAME))
        self._step = "waiting for gnome-shell's start-up overview, to close it"
        properties = (gnome_shell.SHELL_NAME, gnome_shell.SHELL_PATH, _PROPERTIES)
        overview = [gnome_shell.SHELL_NAME, "OverviewActive"]
        closed = False
        while True:  # it opens the overview as its start-up ends, after owning its name
            try:
                (active,) = await _call(self._session, *properties, "Get", "ss", overview)
                if not active.value and closed:
                    break
                if active.value:
                    self._step = "closing gnome-shell's overview"
                    await _call(self._session, *properties, "Set", "ssv", [*overview, _FALSE])
                    closed = True
                    continue
            except SandboxError:  # its object is exported a moment after its name
                if shell.process.returncode is not None:
                    raise
            await asyncio.sleep(APP_POLL_S)
        # A seat without a keyboard gives no window the keyboard (GTK then focuses no
        # widget), and mutter adds a session's keyboard and pointer only at their first
        # event: the desktop keeps an idle remote-desktop session that pressed Shift and
        # moved by nothing once, as on sway it keeps idle virtual devices.
        self._step = "opening gnome-shell's remote-desktop keyboard"
        service, path = gnome_shell.REMOTE_DESKTOP
        (session,) = await _call(self._session, service, path, service, "CreateSession")
        remote = (service, session, gnome_shell.REMOTE_SESSION)
        await _call(self._session, *remote, "Start")
        for down in (True, False):
            shift = [gnome_shell.SHIFT_KEYSYM, down]
            await _call(self._session, *remote, "NotifyKeyboardKeysym", "ub", shift)
        await _call(self._session, *remote, "NotifyPointerMotionRelative", "dd", [0.0, 0.0])
        self.display = str(self._rundir / gnome_shell.SOCKET_NAME)
        self.env["WAYLAND_DISPLAY"] = self.display

    async def _start_session_bus(self) -> None:
        assert self._rundir is not None
        address = await self._start_bus("dbus-daemon", f"unix:dir={self._rundir}", "session bus")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address
        self._session = await self._connect(address)

    async def _start_bus(self, name: str, where: str, what: str) -> str:
        """A private bus daemon (session policy) listening at ``where``; its address."""
        self._step = f"starting the {what}"
        daemon = await self._spawn(
            name,
            [
                "dbus-daemon",
                "--session",
                "--nofork",
                "--nosyslog",
                "--print-address=1",
                f"--address={where}",
            ],
            stdout=asyncio.subprocess.PIPE,
            server=True,
        )
        assert daemon.process.stdout is not None
        address = (await self._ready(daemon, daemon.process.stdout.readline())).decode().strip()
        if not address:
            raise SandboxError(f"{name} printed no address" + _tail_of(daemon))
        return address

    async def _start_a11y(self) -> None:
        assert self._session is not None
        self._step = "starting the AT-SPI bus launcher"
        launcher = await self._spawn(
            "at-spi-bus-launcher", ["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"]
        )
        # Never call org.a11y.Bus before it is owned: the bus would activate a second launcher.
        await self._ready(launcher, _name_owned(self._session, _A11Y_BUS[0]))
        (address,) = await _call(self._session, *_A11Y_BUS, "org.a11y.Bus", "GetAddress")
        await _call(
            self._session,
            *_A11Y_BUS,
            "org.freedesktop.DBus.Properties",
            "Set",
            "ssv",
            ["org.a11y.Status", "IsEnabled", Variant("b", self.accessibility_on)],
        )
        self.env["AT_SPI_BUS_ADDRESS"] = address
        self._a11y = await self._connect(address)
        self._step = "starting the AT-SPI registry"
        registry = await self._spawn("at-spi2-registryd", ["/usr/libexec/at-spi2-registryd"])
        await self._ready(registry, _name_owned(self._a11y, _REGISTRY))

    async def _connect(self, address: str) -> MessageBus:
        """A connection whose end is always taken note of.

        A daemon that dies (a test kills the accessibility bus) leaves its end
        as an unread error, which a finalizer then logs in the middle of
        whatever Python is doing, and in CPython 3.11 that can break an
        ``ast.parse`` running at that moment.
        """
        bus = await MessageBus(bus_address=address).connect()
        ended = asyncio.ensure_future(bus.wait_for_disconnect())  # type: ignore[no-untyped-call]
        ended.add_done_callback(_taken_note_of)
        self._ends.add(ended)
        return bus

    async def _spawn(
        self,
        name: str,
        argv: list[str],
        *,
        stdout: int | None = None,
        pass_fds: Sequence[int] = (),
        server: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> _Child:
        """Start a desktop process in its own process group, logging to the runtime dir.

        A ``server`` (X, session bus) runs under ``setpriv --pdeathsig``: the kernel sends it
        SIGTERM (so it removes its socket and lock) if the thread that started it dies without
        a teardown (SIGKILL, os._exit), and every other process exits when its server goes.
        The launcher must not be killed that way: only a launcher that sees its bus go stops
        its own a11y bus daemon.
        """
        assert self._rundir is not None
        log = self._rundir / f"{name}.log"
        guard = ["setpriv", "--pdeathsig", "TERM", "--"] if server else []
        with log.open("ab") as err:
            process = await asyncio.create_subprocess_exec(
                *guard,
                *argv,
                env=self.env if env is None else env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=stdout if stdout is not None else err,
                stderr=err,
                pass_fds=pass_fds,
                start_new_session=True,
            )
        child = _Child(name, process, log)
        self._children.append(child)
        return child

    async def _ready(self, child: _Child, signal_: Awaitable[T]) -> T:
        """Await a readiness signal, failing at once if the process it waits for exits."""
        ready = asyncio.ensure_future(signal_)
        died = asyncio.ensure_future(child.process.wait())
        try:
            await asyncio.wait({ready, died}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (ready, died):
                task.cancel()
        if ready.done() and not ready.cancelled():
            return ready.result()
        raise SandboxError(
            f"{child.name} exited with code {child.process.returncode} while {self._step}"
            + _tail_of(child)
        )

    def _fail_if_exited(self, pid: int) -> None:
        for child in self._children:
            code = child.process.returncode
            if child.process.pid == pid and code is not None:
                ended = from_returncode(pid, code).describe()
                raise SandboxError(
                    f"pid {pid} ({child.name}) {ended} before showing a window" + _tail_of(child)
                )

    def _logs(self) -> str:
        return "".join(_tail_of(child) for child in self._children if child.log)

    # -- stop --------------------------------------------------------------------------

    async def _stop(self) -> None:
        """Stop everything: grandchildren first, then SIGTERM, a grace period, SIGKILL.

        Grandchildren go first so their parents, still alive, reap them: on machines whose
        PID 1 does not reap orphans they would otherwise stay as zombies. If anything
        interrupts this (a second cancellation), the ``finally`` sends SIGKILL to everything
        at once, so no process outlives the sandbox either way.
        """
        done = False
        try:
            for bus in (self._a11y, self._session):
                if bus is not None:
                    bus.disconnect()
            if self._seat is not None:
                self._seat.close()
                self._seat = None
            self._a11y = self._session = None
            for ended in self._ends:
                ended.cancel()
            self._ends.clear()
            direct = {child.process.pid for child in self._children}
            sessions: set[int] = set()
            strays = self._live_pids(sessions) - direct
            self._signal(strays, signal.SIGTERM)
            await _wait_gone(strays)
            for sig in (signal.SIGTERM, signal.SIGKILL, signal.SIGKILL):
                pids = self._live_pids(sessions)
                if not pids:
                    break
                self._signal(pids, sig, groups=True)
                await _wait_gone(pids)
            if self._children:  # let asyncio reap its children before the loop may close
                await asyncio.wait(
                    [asyncio.ensure_future(c.process.wait()) for c in self._children],
                    timeout=STOP_GRACE_S,
                )
            done = True
        finally:
            for recorder in self._recorders:
                recorder.cancel()
            if not done:
                self._signal(self._live_pids(), signal.SIGKILL, groups=True)
            for made in (self._rundir, self._compositor_dir):
                if made is not None:
                    shutil.rmtree(made, ignore_errors=True)
            _LIVE.discard(self)
            await self._release_reaper()

    async def _release_reaper(self) -> None:
        """Close the lifeline: with nothing left to reap, the reaper exits at once."""
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None
        if self._reaper is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._reaper.wait(), STOP_GRACE_S)
            self._reaper = None

    def _live_pids(self, sessions: set[int] | None = None) -> set[int]:
        """Every live process of this sandbox (``members``), and its children.

        ``sessions`` carries the sessions found from one round of signals to the next.
        """
        pids = members(self._token, set() if sessions is None else sessions)
        pids.update(c.process.pid for c in self._children if c.process.returncode is None)
        pids.discard(os.getpid())
        return pids

    def _signal(self, pids: set[int], sig: signal.Signals, *, groups: bool = False) -> None:
        """Signal ``pids``, and with ``groups`` the process group of every child not yet reaped.

        A reaped leader's number may already belong to someone else's new group; members it
        left behind still carry the token.
        """
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        for child in self._children if groups else ():
            if child.process.returncode is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(child.process.pid, sig)


def app_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment an app is started with: the sandbox's, less ``AT_SPI_BUS_ADDRESS``.

    Qt 6.4 (Debian 12's Qt Designer, Linguist) never exports its accessibility tree
    when that variable is set: its bridge connects to the bus and registers nothing
    (measured: no application after 40 s, versus about 1 s without it). Apps find the
    same private bus through the sandbox's session bus or the X root window instead.
    """
    return {k: v for k, v in env.items() if k != "AT_SPI_BUS_ADDRESS"}


@atexit.register
def _kill_leftovers() -> None:
    """A sandbox never exited (loop torn down, interpreter exiting): kill its processes now."""
    for sandbox in list(_LIVE):
        sandbox._signal(sandbox._live_pids(), signal.SIGKILL, groups=True)


# -- helpers -------------------------------------------------------------------------------


def _taken_note_of(ended: asyncio.Future[None]) -> None:
    if not ended.cancelled():
        ended.exception()


def _free_displays(first: int, count: int) -> Iterator[int]:
    """Display numbers with neither a lock file nor a socket; Xvfb's lock settles any race."""
    free = (
        number
        for number in range(first, first + 1000)
        if not Path(f"/tmp/.X{number}-lock").exists()
        and not Path(f"/tmp/.X11-unix/X{number}").exists()
    )
    return itertools.islice(free, count)


async def _read_pipe_line(fd: int) -> bytes:
    """The first line written to a pipe; b'' when the writer closed it without one."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
    )
    try:
        return await reader.readline()
    finally:
        transport.close()


def _tail_of(child: _Child | None) -> str:
    tail = child.tail() if child else ""
    return f"\n--- {child.name} log ---\n{tail}" if child and tail else ""


def _wait_for_wm(display: str, timeout: float) -> None:
    """Block until the root window has _NET_SUPPORTING_WM_CHECK, waking on PropertyNotify."""
    from Xlib import X
    from Xlib.display import Display

    conn = Display(display)
    try:
        root = conn.screen().root
        check = conn.intern_atom("_NET_SUPPORTING_WM_CHECK")
        root.change_attributes(event_mask=X.PropertyChangeMask)
        conn.sync()
        deadline = Deadline(timeout)
        while root.get_full_property(check, X.AnyPropertyType) is None:
            left = deadline.left()
            if left <= 0:
                raise TimeoutError(f"no window manager on {display}")
            select.select([conn], [], [], left)
            while conn.pending_events():
                conn.next_event()
    finally:
        conn.close()


def _x11_window_pids(display: str) -> set[int]:
    """The pids of the clients owning managed windows (``_NET_CLIENT_LIST``), by X-Resource."""
    from Xlib import X
    from Xlib.display import Display
    from Xlib.ext import res

    conn = Display(display)
    try:
        clients = conn.screen().root.get_full_property(
            conn.intern_atom("_NET_CLIENT_LIST"), X.AnyPropertyType
        )
        if clients is None or not conn.has_extension("X-Resource"):
            return set()
        specs = [{"client": int(w), "mask": res.LocalClientPIDMask} for w in clients.value]
        reply = conn.res_query_client_ids(specs)
        return {int(item.value[0]) for item in reply.ids if item.value}
    finally:
        conn.close()


async def _call(
    bus: MessageBus,
    destination: str,
    path: str,
    interface: str,
    member: str,
    signature: str = "",
    body: Sequence[Any] = (),
) -> list[Any]:
    """One D-Bus method call with a deadline; errors and silence become SandboxError."""
    message = Message(destination, path, interface, member, signature=signature, body=list(body))

    def refused(detail: str) -> SandboxError:
        return SandboxError(f"{destination} {member} failed: {detail}")

    reply = await dbus_calls.call(
        bus, message, CALL_TIMEOUT_S, silent=SandboxError, refused=refused
    )
    return list(reply.body)


async def _name_owned(bus: MessageBus, name: str) -> None:
    """Return once ``name`` has an owner on ``bus``, woken by NameOwnerChanged."""
    owned: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_message(message: Message) -> None:
        if (
            message.member == "NameOwnerChanged"
            and message.body[0] == name
            and message.body[2]
            and not owned.done()
        ):
            owned.set_result(None)

    bus.add_message_handler(on_message)
    try:
        rule = (
            f"type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='{name}'"
        )
        await _call(bus, *_DBUS, "AddMatch", "s", [rule])
        (has_owner,) = await _call(bus, *_DBUS, "NameHasOwner", "s", [name])
        if not has_owner:
            await owned
    finally:
        bus.remove_message_handler(on_message)


async def _appears(path: Path) -> None:
    """Return once ``path`` exists (a socket a daemon makes when it listens)."""
    while True:
        if await asyncio.to_thread(path.exists):
            return
        await asyncio.sleep(APP_POLL_S)


async def _connection_pid(bus: MessageBus, name: str) -> int:
    try:
        (pid,) = await _call(bus, *_DBUS, "GetConnectionUnixProcessID", "s", [name])
    except SandboxError:
        return -1
    return int(pid)


async def _child_count(bus: MessageBus, name: str, path: str) -> int:
    try:
        (count,) = await _call(
            bus,
            name,
            path,
            "org.freedesktop.DBus.Properties",
            "Get",
            "ss",
            ["org.a11y.atspi.Accessible", "ChildCount"],
        )
    except SandboxError:
        return 0
    return int(count.value)


def _descends_from(pid: int, ancestor: int) -> bool:
    """Whether ``pid`` is ``ancestor`` or one of its descendants (wrappers that fork)."""
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


async def _wait_gone(pids: set[int]) -> None:
    """Wait (by pidfd, not polling) until every pid has exited, or the grace period passes."""
    loop = asyncio.get_running_loop()
    watches: list[tuple[int, asyncio.Future[None]]] = []
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            continue
        gone: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, _resolve, gone)
        watches.append((fd, gone))
    try:
        if watches:
            await asyncio.wait([gone for _, gone in watches], timeout=STOP_GRACE_S)
    finally:
        for fd, _ in watches:
            loop.remove_reader(fd)
            os.close(fd)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
