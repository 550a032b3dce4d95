"""Fixtures for integration tests: a private desktop per test or per module.

Every test under tests/integration is marked ``integration`` here, so ``-m "not integration"``
selects the fast suite; where the desktop stack is missing, collecting them fails loudly.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from actui.backends.cdp import CdpBackend
from actui.backends.linux.sandbox import Sandbox
from actui.backends.x11.session import X11Session

_STACK = (
    "Xvfb",
    "dbus-daemon",
    "openbox",
    "sway",
    "swaymsg",
    "grim",
    "setpriv",
    "chromium",
    "tesseract",
    "/usr/libexec/at-spi-bus-launcher",
)
_MISSING = [tool for tool in _STACK if shutil.which(tool) is None]
_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    selected = [item for item in items if _HERE in Path(item.path).parents]
    if selected and _MISSING:
        # Missing prerequisites fail loudly: a skipped desktop suite would hide a broken setup.
        raise pytest.UsageError(
            f"the desktop stack is missing {_MISSING}; `make test` installs it "
            "(scripts/bootstrap.sh), or deselect with -m 'not integration'."
        )
    for item in selected:
        item.add_marker(pytest.mark.integration)


@pytest_asyncio.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    """A fresh private desktop for one test."""
    async with Sandbox() as desktop:
        yield desktop


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def module_sandbox() -> AsyncIterator[Sandbox]:
    """One private desktop shared by a module's tests; they need
    ``pytestmark = pytest.mark.asyncio(loop_scope="module")`` (or the same mark per test)."""
    async with Sandbox() as desktop:
        yield desktop


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def screen(module_sandbox: Sandbox) -> AsyncIterator[X11Session]:
    """One started X11 session on the module's private desktop."""
    x11 = X11Session(module_sandbox.display)
    await x11.start()
    yield x11
    await x11.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[CdpBackend]:
    """One private headless Chromium for a module's page tests."""
    cdp = CdpBackend()
    await cdp.launch()
    yield cdp
    await cdp.close()
