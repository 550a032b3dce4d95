"""The backend registry picks each root's backend from the session's environment alone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from model_app import ROOT, ModelApp

from actui.backends.browsing import BrowserBackend
from actui.backends.registry import Backends
from actui.errors import BackendUnavailable
from actui.runtime.deltas import Announced
from actui.runtime.observer import Observer
from actui.runtime.roots import RootRegistry
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import StateStore

PAGE = replace(ROOT, native_id="page/1", kind="browser_page", resource_key="page:1")
NO_FILES = {"XDG_CONFIG_HOME": "/nonexistent"}


async def test_pages_go_to_the_browser_and_windows_to_the_desktop() -> None:
    app = ModelApp()
    backends = Backends(env=NO_FILES, desktop=app)
    try:
        assert backends.backend_for(ROOT) is app
        assert backends.started_browser is None, "no browser before a page needs one"
        browser = backends.backend_for(PAGE)
        assert isinstance(browser, BrowserBackend)
        assert backends.started_browser is browser and backends.browser is browser
        assert backends.console(ROOT) == (), "a desktop window has no console"
    finally:
        await backends.close()


async def test_outside_a_desktop_session_the_desktop_is_unavailable_and_says_why() -> None:
    backends = Backends(env=NO_FILES)
    assert not backends.has_desktop()
    with pytest.raises(BackendUnavailable, match="DBUS_SESSION_BUS_ADDRESS is not set"):
        _ = backends.desktop
    assert await backends.exit_of(ROOT.pid) is None, "no desktop: no process to ask about"
    await backends.close()


def test_the_configuration_comes_from_the_given_environment_and_is_reread_on_reload(
    tmp_path: Path,
) -> None:
    settings = tmp_path / "actui" / "config.toml"
    settings.parent.mkdir()
    settings.write_text("headless = true\n")
    backends = Backends(env={"XDG_CONFIG_HOME": str(tmp_path), "ACTUI_BROWSER_USE": "0"})
    assert backends.config().headless and not backends.config().browser_use
    settings.write_text("headless = false\n")
    assert backends.config().headless, "read once per call, not once per use"
    backends.reload_config()
    assert not backends.config().headless
    assert backends.config().sources["browser_use"] == "env ACTUI_BROWSER_USE"


def _observer(backends: Backends) -> Observer:
    return Observer(
        backends,
        store=StateStore(),
        lanes=Scheduler(),
        roots=RootRegistry(),
        announced=Announced(),
    )


async def test_with_browser_use_off_a_page_is_refused_and_a_window_is_not() -> None:
    app = ModelApp()
    backends = Backends(env={**NO_FILES, "ACTUI_BROWSER_USE": "0"}, desktop=app)
    observer = _observer(backends)
    with pytest.raises(BackendUnavailable, match="browser_use = false"):
        observer.backend_for(PAGE)
    assert backends.started_browser is None, "a refused page starts no browser backend"
    assert observer.backend_for(ROOT) is app
    await backends.close()
