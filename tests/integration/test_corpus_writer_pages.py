"""LibreOffice Writer on a 200-page document: a look says where the caret is among the
pages, and the pages off screen are reached without moving the caret.

Writer lists only the paragraphs on screen. Its page says which page holds the caret
and how many there are; a condition that finds nothing in what is shown says the other
pages were not checked (never that the text is absent); a search for the phrase ending
the last page scrolls the view down a screen at a time and finds it, the caret still on
page 1; after ctrl+End the phrase is on screen and found with no scrolling, in bounded
calls, and a search for the first paragraph scrolls the view up to it, the caret still
on the last page. The oracles are the app's own reads: the page's attributes (the caret's page),
the paragraph's text read back, the calls counted on the bus. LibreOffice starts once
for the module; every call is followed by the check that it still runs.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from computer_helpers import assert_alive
from office import Office, start

from actui.api import Expect, Observation, keypress, wait
from actui.backends.atspi.bus import AtspiBus
from actui.backends.base import Pages
from actui.backends.linux.sandbox import Sandbox
from actui.errors import CallTimeout
from actui.results.observations import ElementText
from actui.results.typed import Found

pytestmark = pytest.mark.asyncio(loop_scope="module")

PHRASE = "purple elephants dance at dawn"
EARLIER = "Paragraph 3000 of the sample"
"""How paragraph 3,000 of 5,000 starts, and no other (``long_document.py``): about 180
screens above the end. A walk up the whole document (about 450 screens) took 7.8 s at
load 3, near the search's 15 s at CI's heaviest loads; the bench measures that one."""
WRITER = Path(__file__).parents[1] / "apps" / "long_document.py"
PARAGRAPHS = 5_000
"""Paragraphs of about two lines each: about 193 pages of A4."""
AFTER_END_CALLS = 10_000
"""AT-SPI calls a search for the phrase on screen makes at most: 7,189 measured, most of
them the 23 closed menus read for an exact match (1 page or 200 alike)."""
SCAN_CALLS = 40_000
"""At most, for a search from page 1 that scrolls down to the last page: 15,302
measured (452 screens, at load 1)."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def writer(
    module_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Office]:
    document = tmp_path_factory.mktemp("pages") / "pages.fodt"
    argv = ["/usr/bin/python3", str(WRITER), str(document), str(PARAGRAPHS), PHRASE]
    await asyncio.to_thread(subprocess.run, argv, check=True)
    async with start(module_sandbox, "writer", document) as office:
        yield office


def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The AT-SPI calls actui sends from now to the test's end, by member."""
    members: Counter[str] = Counter()
    original = AtspiBus.request

    def request(self: AtspiBus, *args: Any, **kwargs: Any) -> Any:
        members[str(args[3])] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(AtspiBus, "request", request)
    return members


async def _loaded(writer: Office) -> tuple[Observation, Pages]:
    """A look once the document has loaded and its page says how many pages it has (a look
    that timed out while soffice lays the document out is taken again)."""
    for _ in range(300):  # the window shows before the document is laid out
        try:
            look = await writer.look()
        except CallTimeout:
            # laying out 193 pages keeps soffice from answering for seconds at a time
            # (a CI run at load 4 met one 3 s timeout); it must come back, alive
            assert_alive(writer.pid)
            continue
        pages = [e.node.pages for e in look.search(role="document text")]
        if pages and pages[0] is not None and pages[0].total > 100:
            return look, pages[0]
        await asyncio.sleep(0.2)
    raise AssertionError(f"the document never said its pages: {look.text[:2000]}")


def _page_line(look: Observation) -> str:
    (page,) = look.search(role="document text")
    (line,) = [x for x in look.text.splitlines() if f"{page.ref} document text" in x]
    return line


async def _search(writer: Office, look: Observation, text: str) -> tuple[str, Found]:
    result = await writer.computer.run("search_ui", {"stateId": look.state_id, "text": text})
    assert_alive(writer.pid)
    assert isinstance(result.value, Found), result.text
    return result.text, result.value


async def test_the_page_says_where_the_caret_is_and_a_check_of_what_shows_says_what_it_missed(
    writer: Office,
) -> None:
    look, pages = await _loaded(writer)
    assert pages.caret == 1, pages
    assert f"(caret on page 1 of {pages.total:,})" in _page_line(look), look.text
    (page,) = look.search(role="document text")
    # the phrase is on the last page, not on screen: "gone" holds for what is shown only
    gone = await look.wait_for(Expect(text=PHRASE, gone=True, timeout_ms=1_000))
    assert_alive(writer.pid)
    assert gone.found, gone.text
    part = f"{page.ref} document text exposes only what is on screen (caret on page 1 of "
    assert part in gone.text and "text on its other pages was not checked" in gone.text
    assert "ctrl+End" in gone.text, gone.text
    # the page itself has no text of its own: its read says the same
    read = await writer.computer.run("read_text", {"stateId": look.state_id, "ref": page.ref})
    assert_alive(writer.pid)
    assert isinstance(read.value, ElementText) and read.value.partly, read.text
    assert "text on its other pages was not read" in read.text, read.text
    # a search no paragraph could meet (a button) scrolls no page
    buttons = await writer.computer.run(
        "search_ui", {"stateId": look.state_id, "text": PHRASE, "role": "button"}
    )
    assert_alive(writer.pid)
    assert isinstance(buttons.value, Found) and not buttons.value.result.matches, buttons.text
    assert "scrolled its view" not in buttons.text, buttons.text
    assert not (await writer.look()).search(PHRASE, role="paragraph"), "the view stayed"


async def test_a_search_from_page_1_scrolls_to_the_last_phrase_and_leaves_the_caret(
    writer: Office, monkeypatch: pytest.MonkeyPatch
) -> None:
    look, pages = await _loaded(writer)
    look = await writer.run(look, keypress("ctrl", "Home"))
    texts: list[str] = []
    calls = counted(monkeypatch)
    for _ in range(4):  # a loaded machine may need the search to go on
        text, found = await _search(writer, look, PHRASE)
        texts.append(text)
        look = await writer.look()
        if found.result.matches:
            break
        assert "search_ui again on stateId" in text, text  # it stopped for time
    assert found.result.matches, texts
    assert "scrolled its view down" in texts[-1] and "the caret left where it was" in texts[-1]
    assert calls["DoAction"] >= 100 and sum(calls.values()) <= SCAN_CALLS * len(texts), calls
    (match,) = [m for m in found.result.matches if m.role == "paragraph"]
    later = await writer.computer.run("read_text", {"stateId": found.state_id, "ref": match.ref})
    assert_alive(writer.pid)
    assert isinstance(later.value, ElementText) and PHRASE in later.value.text, later.text
    # the caret stayed on page 1 (the page's own attributes), the last page is on screen
    assert f"(caret on page 1 of {pages.total:,})" in _page_line(look), look.text
    assert look.search(PHRASE, role="paragraph"), look.text


async def test_an_expectation_on_the_last_phrase_is_verified_by_scrolling_to_it(
    writer: Office,
) -> None:
    look, pages = await _loaded(writer)
    look = await writer.run(look, keypress("ctrl", "Home"))
    (page,) = look.search(role="document text")
    # a condition not scoped to the document leaves its view where it is and says how
    unscoped = await look.act(wait(10), expect=Expect(text=PHRASE, timeout_ms=1_500))
    assert_alive(writer.pid)
    assert unscoped.check == "failed" and "scrolled its view" not in unscoped.text
    assert f"give the condition scopeRef {page.ref}" in unscoped.text, unscoped.text
    look = await writer.look()
    assert not look.search(PHRASE, role="paragraph"), "the view stayed on page 1"
    done = await look.act(wait(10), expect=Expect(text=PHRASE, scope=page, timeout_ms=30_000))
    assert_alive(writer.pid)
    assert done.check == "verified", done.text
    assert "scrolled its view down" in done.text and "caret left where it was" in done.text
    look = await writer.look()
    assert f"(caret on page 1 of {pages.total:,})" in _page_line(look), look.text
    assert look.search(PHRASE, role="paragraph"), look.text


async def test_after_ctrl_end_the_phrase_is_found_on_screen_in_bounded_calls(
    writer: Office, monkeypatch: pytest.MonkeyPatch
) -> None:
    look, pages = await _loaded(writer)
    look = await writer.run(look, keypress("ctrl", "Home"))
    look = await writer.run(look, keypress("ctrl", "End"))
    calls = counted(monkeypatch)
    text, found = await _search(writer, look, PHRASE)
    (match,) = [m for m in found.result.matches if m.role == "paragraph"]
    assert calls["DoAction"] == 0 and "scrolled" not in text, (calls, text)
    assert sum(calls.values()) <= AFTER_END_CALLS, calls
    read = await writer.computer.run("read_text", {"stateId": found.state_id, "ref": match.ref})
    assert_alive(writer.pid)
    assert isinstance(read.value, ElementText), read.text
    assert read.value.text == f"The last phrase: {PHRASE}.", read.text
    look = await writer.look()
    last = re.search(r"\(caret on page ([\d,]+) of ([\d,]+)\)", _page_line(look))
    assert last is not None and last.group(1) == last.group(2) == f"{pages.total:,}", look.text


async def test_after_ctrl_end_a_search_scrolls_up_to_an_earlier_page_and_leaves_the_caret(
    writer: Office,
) -> None:
    look, pages = await _loaded(writer)
    look = await writer.run(look, keypress("ctrl", "End"))
    text, found = await _search(writer, look, EARLIER)
    matches = [m for m in found.result.matches if m.role == "paragraph"]
    assert len(matches) == 1, text
    (match,) = matches
    assert re.search(r"up [\d,]+ screen\(s\)", text) and "the caret left where it was" in text, text
    read = await writer.computer.run("read_text", {"stateId": found.state_id, "ref": match.ref})
    assert_alive(writer.pid)
    assert isinstance(read.value, ElementText) and read.value.text.startswith(EARLIER), read.text
    # the caret stayed on the last page (the page's own attributes), the match is on screen
    look = await writer.look()
    last = re.search(r"\(caret on page ([\d,]+) of ([\d,]+)\)", _page_line(look))
    assert last is not None and last.group(1) == last.group(2) == f"{pages.total:,}", look.text
    assert look.search(EARLIER, role="paragraph"), look.text
