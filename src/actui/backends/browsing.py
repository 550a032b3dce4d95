"""The browser seam: what the browser tools need of a browser beyond a ``Backend``.

A browser backend is a ``Backend`` whose roots are pages, plus the three
things only a browser does (open a page, go to a URL, run script) and the
console it collects. The browser tools see this class, never the protocol
that reaches the browser, so a second browser protocol is one more subclass.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

from actui.backends.base import Backend, RootInfo


@dataclass(frozen=True)
class EvalResult:
    """What an evaluation returned: JSON text, the thrown message, console lines."""

    value_json: str
    exception: str | None
    console: tuple[str, ...]


class BrowserBackend(Backend):
    """A browser whose pages are roots (``kind == "browser_page"``)."""

    @abc.abstractmethod
    async def launch(self, url: str = "about:blank", *, headed: bool | None = None) -> RootInfo:
        """Start a fresh browser and open ``url`` (which passed ``actui.urls``) in its page."""

    @abc.abstractmethod
    async def navigate(self, root: RootInfo, url: str) -> RootInfo:
        """Go to ``url`` in the page and return the page's record once it has loaded."""

    @abc.abstractmethod
    async def evaluate(self, root: RootInfo, expression: str) -> EvalResult:
        """Run ``expression`` in the page: its JSON value or its exception, and console lines."""

    @abc.abstractmethod
    def console(self, root: RootInfo) -> tuple[str, ...]:
        """The page's console messages and exceptions since the last drain."""
