"""Driving a LibreOffice application as a person does, for the office corpus tests.

One ``Office`` per test module: LibreOffice starts once (:func:`start`), every call is
followed by the check that it still runs, menus and submenus are run by clicks on the
refs each click leaves, and a saved file is waited for (:func:`written`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from computer_helpers import assert_alive

from actui import api
from actui.api import Element, Expect, Observation
from actui.backends.base import TextFormat
from actui.backends.linux.sandbox import Sandbox
from actui.results.observations import Inspected


@dataclass
class Office:
    computer: api.Computer
    pid: int
    folder: Path
    title: str
    """The document window's title as it opened (its file's name)."""

    async def look(self, title: str | None = None) -> Observation:
        """A fresh state of the window titled ``title`` (the app still runs after it)."""
        window = await office_window(self.computer, title or self.title, 30)
        observed = await self.computer.observe(window)
        assert_alive(self.pid)
        return observed

    async def run(
        self, look: Observation, *steps: api.Step, expect: Expect | None = None
    ) -> Observation:
        """Steps that must work; the successor state."""
        done = await look.act(*steps, expect=expect)
        assert_alive(self.pid)
        assert done.outcome != "didnt", done.text
        if expect is not None:
            assert done.check == "verified", done.text
        assert done.state is not None, done.text
        return done.state

    async def last(self, look: Observation, *steps: api.Step) -> None:
        """Steps that must work and close the window they act in (a dialog's OK)."""
        done = await look.act(*steps)
        assert_alive(self.pid)
        assert done.outcome == "worked", done.text

    async def inspect(self, look: Observation, element: Element) -> TextFormat:
        """The element's live text format, as ``inspect_ui`` reads it."""
        found = await self.computer.call(
            "inspect_ui", {"stateId": look.state_id, "ref": element.ref}
        )
        assert_alive(self.pid)
        assert isinstance(found.value, Inspected) and found.value.text_format, found.text
        assert "text format: " in found.text, found.text
        return found.value.text_format

    async def menu(self, look: Observation, *path: str) -> Observation:
        """Open the menu bar's menu ``path[0]``, then each submenu, then run the last item,
        each with a click on its ref found in the state the click before left."""
        for name in path:
            found = await look.find(name)
            exact = sorted(
                (e for e in found if e.name == name and runs(e)),
                key=lambda e: "press" not in e.capabilities,  # the menu bar's, not its copy
            )
            assert exact, f"{name!r} not found: {found}"
            look = await self.run(found.state, exact[0].click())
        return look

    async def tree_page(self, title: str, *path: str) -> Observation:
        """In the tree-switched dialog titled ``title``, expand each cell of ``path`` but
        the last, select the last; the dialog once its title names that page
        (``title - path[0] - path[-1]``: "Options - LibreOffice Calc - View")."""
        dialog = await self.look(title)
        for index, name in enumerate(path):
            (cell, *_) = [e for e in reversed(dialog.search(name, role="cell")) if e.name == name]
            last = index == len(path) - 1
            dialog = await self.run(dialog, cell.select() if last else cell.expand())
        return await self.look(f"{title} - {path[0]} - {path[-1]}")

    async def clear_option(self, branch: str, page: str, box: str) -> None:
        """Tools › Options..., its tree switched to ``branch`` › ``page``, the checkbox
        ``box`` (checked before) cleared, then OK."""
        await self.menu(await self.look(), "Tools", "Options...")
        options = await self.tree_page("Options", branch, page)
        (checkbox,) = options.search(box, role="checkbox")
        assert "checked" in checkbox.states, options.text
        options = await self.run(options, checkbox.click())
        (ok,) = options.search("OK", role="button")
        await self.last(options, ok.press())


def runs(element: Element) -> bool:
    """A menu or menu item that a click runs (the menu bar's copy, not the hidden one)."""
    return element.role in ("menu", "menuitem", "checkbox", "radio") and bool(
        element.capabilities & {"press", "select"}
    )


@asynccontextmanager
async def start(sandbox: Sandbox, kind: str, document: Path) -> AsyncIterator[Office]:
    """LibreOffice's ``kind`` (``writer``, ``calc``, ``impress``) on ``document``."""
    await sandbox.launch(["soffice", f"--{kind}", "--norestore", "--nologo", str(document)])
    computer = api.Computer(env={**sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        window = await office_window(computer, document.name, 90)  # a cold start takes seconds
        yield Office(computer, window.root.pid, document.parent, document.name)
    finally:
        await computer.close()


async def office_window(computer: api.Computer, title: str, timeout_s: float) -> api.Root:
    """The window titled ``title`` once it has its X window."""
    async with asyncio.timeout(timeout_s):
        while True:
            found = [r for r in await computer.find_roots(title) if title in r.title]
            if found and found[0].root.window_id:
                return found[0]
            await asyncio.sleep(0.2)


async def written(done: Callable[[], bool]) -> None:
    """Until ``done`` (a file LibreOffice writes after the dialog closed), 30 s at most."""
    for _ in range(150):
        if done():
            return
        await asyncio.sleep(0.2)
    raise AssertionError("the file was not written within 30 s")
