"""Launching and closing Chromium: clear failures, no leftover processes or profiles."""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
import time
from pathlib import Path

import pytest

from actui.backends.base import RootInfo
from actui.backends.cdp import CdpBackend, launch
from actui.errors import BackendUnavailable, BrowserSilent, TargetGone


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def _profiles() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("actui-chromium-*"))


def _group_members(pgid: int) -> list[int]:
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


async def test_bogus_executable_override_is_named_in_the_error(tmp_path: Path) -> None:
    env = {**os.environ, "ACTUI_CHROME_EXECUTABLE": str(tmp_path / "no-such-chrome")}
    backend = CdpBackend(env=env)
    with pytest.raises(BackendUnavailable, match="ACTUI_CHROME_EXECUTABLE"):
        await backend.launch()
    assert backend.browser_process is None
    assert await backend.list_roots() == []


async def test_a_browser_that_dies_at_start_leaves_nothing_behind(tmp_path: Path) -> None:
    fake = tmp_path / "fake-chrome"
    fake.write_text("#!/bin/sh\nsleep 0.2\nexit 3\n")
    fake.chmod(0o755)
    backend = CdpBackend(env={**os.environ, "ACTUI_CHROME_EXECUTABLE": str(fake)})
    profiles = _profiles()
    with pytest.raises(BackendUnavailable, match="exited with code 3"):
        await backend.launch()
    assert _profiles() <= profiles
    assert backend.browser_process is None


def _empty(directory: Path) -> bool:
    return not any(directory.iterdir())


def _deep_dir(base: Path, length: int) -> Path:
    """A directory under ``base`` whose path is ``length`` characters long."""
    deep = base / ("d" * (length - len(str(base)) - 1))
    deep.mkdir()
    return deep


async def test_a_browser_that_aborts_is_reported_with_its_fatal_line_in_the_time_it_took(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chromium aborts when its singleton socket's path is too long; handing it its TMPDIR
    as it is (as actui did before it chose a shorter one) makes a real abort to report."""
    monkeypatch.setattr(launch.socket_paths, "roomy", lambda preferred, room: preferred)
    deep = _deep_dir(tmp_path, 120)
    backend = CdpBackend(env={**os.environ, "TMPDIR": str(deep)})
    began = time.monotonic()
    with pytest.raises(BrowserSilent) as raised:
        await backend.launch()
    took = time.monotonic() - began
    silent = raised.value
    assert silent.exit_status == -signal.SIGABRT
    assert silent.last_words == f"Socket path too long: {silent.last_words.split(': ', 1)[1]}"
    assert str(deep) in silent.last_words and silent.last_words.endswith("/SingletonSocket.")
    assert silent.within_s < took < launch.READY_DEADLINE_S / 2, (silent.within_s, took)
    assert silent.message == (
        f"Chromium was killed by signal SIGABRT {silent.within_s:.1f} s after it started, "
        f"before answering on its debugging pipe; its last words: "
        f'"{silent.last_words}". Check that the executable runs (try it with --headless=new).'
    )
    assert backend.browser_process is None
    assert _empty(deep)


async def test_a_browser_under_a_temp_dir_too_deep_for_sockets_still_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = _deep_dir(tmp_path, 120)
    short = Path(tempfile.mkdtemp(prefix="s-", dir="/tmp"))  # instead of /tmp, to check it
    monkeypatch.setattr(launch.socket_paths, "SHORT_DIR", str(short))
    backend = CdpBackend(env={**os.environ, "TMPDIR": str(deep)})
    try:
        root = await backend.launch("data:text/html,<title>deep</title><button>Go</button>")
        browser = backend.browser_process
        assert browser is not None and browser.profile.parent == deep
        assert browser.temp.parent == short and any(browser.temp.iterdir())
        snapshot = await backend.snapshot(root, max_nodes=100, max_depth=10)
        assert "Go" in repr(snapshot.tree) and browser.alive
    finally:
        await backend.close()
    assert _empty(deep) and _empty(short)
    short.rmdir()  # noqa: ASYNC240 (a local dir)


async def test_headless_launch_needs_no_display_and_close_cleans_up() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    backend = CdpBackend(env=env)
    root = await backend.launch("data:text/html,<title>hello</title><button>Go</button>")
    assert root.title == "hello" and root.kind == "browser_page"
    browser = backend.browser_process
    assert browser is not None and browser.profile.is_dir()
    pgid = browser.process.pid
    assert _alive(pgid)
    snapshot = await backend.snapshot(root, max_nodes=100, max_depth=10)
    assert "Go" in repr(snapshot.tree)
    await backend.close()
    assert not _alive(pgid) and _group_members(pgid) == []
    assert not browser.profile.exists()
    with pytest.raises(TargetGone):
        await backend.snapshot(root, max_nodes=100, max_depth=10)


async def test_a_closed_page_is_target_gone() -> None:
    backend = CdpBackend()
    try:
        opener = await backend.launch("data:text/html,<title>one</title>")
        await backend.evaluate(opener, "window.open('data:text/html,<title>two</title>'); 1")
        others: list[RootInfo] = []
        for _ in range(100):
            others = [r for r in await backend.list_roots() if r.native_id != opener.native_id]
            if others:
                break
            await asyncio.sleep(0.02)
        popup = others[0]
        await backend.snapshot(popup, max_nodes=50, max_depth=5)
        await backend.evaluate(popup, "setTimeout(() => window.close(), 50); 1")
        with pytest.raises(TargetGone):
            for _ in range(50):
                await backend.snapshot(popup, max_nodes=50, max_depth=5)
        assert [r.native_id for r in await backend.list_roots()] == [opener.native_id]
    finally:
        await backend.close()
