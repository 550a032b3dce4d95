"""The backend registry: which platform backends a session drives, picked from its environment.

The one module above the platform packages that names them and reads the
process environment: the desktop backend (AT-SPI with X11 on Linux, started
only inside a desktop session's D-Bus), the browser backend (Chromium over
CDP, started on first use, or attached to the port the configuration names)
and the configuration itself, re-read once per tool call. Everything above
asks it for "the backend of this root" and never learns which platform
answered.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from actui.backends.base import Backend, ProcessExit, RootInfo
from actui.backends.browsing import BrowserBackend
from actui.backends.linux.sandbox import Compositor as WaylandKind
from actui.backends.linux.sandbox import Sandbox as PrivateDesktop
from actui.config import Config, load_config
from actui.errors import ActuiError, BackendUnavailable

if TYPE_CHECKING:
    from actui.backends.cdp import CdpBackend

__all__ = ["Backends", "PrivateDesktop", "WaylandKind"]
"""``PrivateDesktop`` is the platform's private desktop (X server, D-Bus, AT-SPI), named
here so the demo and the HTTP server start one without naming the platform;
``WaylandKind`` the compositors it can run instead of an X server."""

DESKTOP_BUS = "DBUS_SESSION_BUS_ADDRESS"
"""A desktop session's D-Bus: without it there is no accessibility bus to reach."""
CHROME_EXECUTABLE = "ACTUI_CHROME_EXECUTABLE"
"""How the configured Chromium executable reaches the browser launcher."""


class Backends:
    """The backends of one session and the configuration that chose them.

    ``env`` is the environment to read (the process's when None); ``desktop``
    replaces the platform's desktop backend (a model application in tests).
    """

    def __init__(
        self, *, env: Mapping[str, str] | None = None, desktop: Backend | None = None
    ) -> None:
        self._env: Mapping[str, str] = dict(os.environ if env is None else env)
        self._desktop = desktop
        self._browser: CdpBackend | None = None
        self._browser_problem = ""
        self._config = load_config(self._env)

    def config(self) -> Config:
        """The configuration as read at the start of the current tool call."""
        return self._config

    def reload_config(self) -> None:
        """Re-read files and environment: once per tool call, not once per use."""
        self._config = load_config(self._env)

    @property
    def desktop(self) -> Backend:
        """The desktop's backend, started on first use; unavailable outside a desktop session."""
        if self._desktop is None:
            if not self._env.get(DESKTOP_BUS):
                raise BackendUnavailable(
                    f"no desktop session: {DESKTOP_BUS} is not set. Run inside a "
                    "desktop session, or start one with `actui sandbox run -- <command>`."
                )
            from actui.backends.linux.backend import LinuxBackend

            self._desktop = LinuxBackend(env=self._env)
        return self._desktop

    def has_desktop(self) -> bool:
        """Whether a desktop can be listed (without starting its backend)."""
        return self._desktop is not None or bool(self._env.get(DESKTOP_BUS))

    @property
    def browser(self) -> BrowserBackend:
        """The browser's backend, created on first use (it starts no browser by itself)."""
        return self._cdp()

    @property
    def started_browser(self) -> BrowserBackend | None:
        """The browser's backend if something already used it; None before."""
        return self._browser

    def _cdp(self) -> CdpBackend:
        if self._browser is None:
            from actui.backends.cdp import CdpBackend

            executable = self._config.chrome_executable
            env = {**self._env, CHROME_EXECUTABLE: executable} if executable else self._env
            self._browser = CdpBackend(env=env)
        return self._browser

    async def attach_configured_browser(self) -> None:
        """Attach to the browser ``cdp_port`` names, unless actui already drives a browser.

        A browser that is not there is a notice for the listing, not a failure
        of it: the desktop's windows are still listed.
        """
        cfg = self._config
        launched = self._browser is not None and self._browser.browser_process is not None
        if not cfg.cdp_port or not cfg.browser_use or launched:
            return
        try:
            await self._cdp().attach(cfg.cdp_host, int(cfg.cdp_port))
            self._browser_problem = ""
        except ActuiError as exc:
            self._browser_problem = exc.message

    def backend_for(self, root: RootInfo) -> Backend:
        """The backend that owns ``root``: pages are the browser's, the rest the desktop's."""
        return self.browser if root.kind == "browser_page" else self.desktop

    def console(self, root: RootInfo) -> tuple[str, ...]:
        """A page's console messages since the last drain (nothing for desktop roots)."""
        if root.kind != "browser_page" or self._browser is None:
            return ()
        return self._browser.console(root)

    def notices(self) -> list[str]:
        """What the backends in use say about their health (see ``Backend.notices``)."""
        backends = [b for b in (self._desktop, self._browser) if b is not None]
        notices = [notice for backend in backends for notice in backend.notices()]
        return [*notices, self._browser_problem] if self._browser_problem else notices

    async def exit_of(self, pid: int) -> ProcessExit | None:
        """How ``pid``'s process ended, once one of its roots vanished; None while it runs."""
        if pid <= 0 or self._desktop is None:
            return None
        try:
            return await self._desktop.process_exit(pid)
        except ActuiError:
            return None

    async def close(self) -> None:
        if self._desktop is not None:
            await self._desktop.close()
        if self._browser is not None:
            await self._browser.close()
