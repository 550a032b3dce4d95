"""Evince shows a generated PDF: a phrase on its last page is found and read back.

Evince lists every page as a ``page`` with the page's text; a page whose text it has
not loaded yet crashed it when asked for that text (the look now asks its count
first). The phrase sits at the end of the last of 12 pages, past the screen: a
condition waits for it, a search finds it on that page (its text is searched whole,
not its first 512 characters), and read_text reads it back. Evince is started once;
it is asserted to run after every call and to answer at the end.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import assert_alive

from actui import api
from actui.api import Expect
from actui.backends.linux.sandbox import Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

PHRASE = "purple elephants dance at dawn"
WRITER = Path(__file__).parents[1] / "apps" / "long_document.py"
PARAGRAPHS = 300
"""Paragraphs of about two lines each: 12 pages of A4."""


def _generated_pdf(folder: Path) -> tuple[Path, int]:
    """The PDF of :func:`_flat_text` (converted by a headless soffice with a profile of
    its own) and its page count; its last page holds the phrase (pdftotext says so)."""
    source = folder / "long.fodt"
    subprocess.run(
        ["/usr/bin/python3", str(WRITER), str(source), str(PARAGRAPHS), PHRASE], check=True
    )
    profile = (folder / "profile").as_uri()
    subprocess.run(
        ["soffice", f"-env:UserInstallation={profile}", "--headless", "--convert-to", "pdf",
         "--outdir", str(folder), str(source)],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    pdf = folder / "long.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    pages = int(next(line.split()[1] for line in info.stdout.splitlines() if "Pages:" in line))
    last = subprocess.run(
        ["pdftotext", "-f", str(pages), "-l", str(pages), str(pdf), "-"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert pages >= 10 and PHRASE in last.stdout, (pages, last.stdout[-200:])
    return pdf, pages


@dataclass
class Viewer:
    computer: api.Computer
    pid: int
    root: api.Root
    pages: int


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def viewer(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Viewer]:
    folder = tmp_path_factory.mktemp("pdf")
    pdf, pages = _generated_pdf(folder)
    app = await module_sandbox.launch(["evince", str(pdf)])
    await module_sandbox.wait_for_app(app.pid)
    computer = api.Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        async with asyncio.timeout(30):
            while True:
                found = [r for r in await computer.find_roots(pid=app.pid) if r.root.window_id]
                if found:
                    break
                await asyncio.sleep(0.1)
        yield Viewer(computer, app.pid, found[0], pages)
    finally:
        await computer.close()


async def test_a_phrase_on_the_last_page_is_found_and_read_back(viewer: Viewer) -> None:
    look = await viewer.computer.observe(viewer.root)
    assert_alive(viewer.pid)
    waited = await look.wait_for(Expect(text=PHRASE, timeout_ms=20_000))
    assert_alive(viewer.pid)
    assert waited.found and waited.state is not None, waited.text
    found = await waited.state.find(PHRASE)
    assert_alive(viewer.pid)
    pages = [e for e in found if e.role == "page"]
    assert pages, found
    listed = found.state.search(role="page")
    assert len(listed) == viewer.pages, [p.ref for p in listed]
    assert pages[0].ref == listed[-1].ref, "the phrase is on the last page"
    text = await found.state.read_text(pages[0])
    assert_alive(viewer.pid)
    assert f"The last phrase: {PHRASE}." in text, text[-300:]
    again = await viewer.computer.observe(viewer.root)
    assert again.search(role="page"), again.text
    assert_alive(viewer.pid)
