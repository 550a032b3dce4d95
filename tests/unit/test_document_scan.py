"""Waits and searches reaching a document's pages off screen by scrolling its view.

The backend is a small model of a word processor, not a mock of AT-SPI: a document of
many paragraphs of which one screen is listed, a caret page it reports, and a view whose
scroll bar's block actions move it a screen at a time. ``scan_pages`` walks that view
with ``backends/atspi/page_scan.py``'s own ``scan`` (as it walks Writer's scroll bar):
down until a paragraph's text is accepted or the end, then up from the end until one is,
the top, or the budget.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from model_app import ROOT, ModelApp

from actui.backends.atspi.page_scan import INCREMENT_BLOCK, scan
from actui.backends.base import Pages, PageScan, RawNode, RootInfo, Snapshot
from actui.deadlines import Deadline
from actui.outline.conditions import UiCondition
from actui.outline.documents import condition_notes, partly_shown, unmatched_in
from actui.outline.model import Outline
from actui.runtime.reaching import ConditionReach, PagesScanned, accepting, scan_documents
from actui.runtime.waiting import WaitResult, observed_outline, wait_until

SCREEN = 10
"""Paragraphs a screen shows."""


class Writer(ModelApp):
    """``count`` paragraphs, ``SCREEN`` of them on screen from ``top``; the caret on page 1."""

    def __init__(
        self,
        count: int = 200,
        last: str = "The last phrase: purple elephants.",
        screen_s: float = 0.0,
    ) -> None:
        super().__init__()
        self.texts = [f"Paragraph {i} of the sample." for i in range(count - 1)] + [last]
        self.top = 0
        self.scans = 0
        self.budgets: list[float] = []
        self.screen_s = screen_s
        """How long a block action takes."""

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        shown = tuple(
            RawNode(f"p/{i}", "paragraph", value=self.texts[i], value_length=len(self.texts[i]))
            for i in range(self.top, min(self.top + SCREEN, len(self.texts)))
        )
        pages = Pages(1, len(self.texts) // 25 + 1)
        page = RawNode("doc", "document text", name="long", pages=pages, children=shown)
        tree = RawNode("win", "frame", name="long.fodt", children=(page,))
        return Snapshot(root=ROOT, tree=tree, captured_at=time.time(), node_count=2 + len(shown))

    async def scan_pages(
        self, root: RootInfo, node_id: str, accepts: Callable[[str], bool], budget_s: float
    ) -> PageScan | None:
        self.scans += 1
        self.budgets.append(budget_s)
        return await scan(Bar(self), accepts, Deadline(budget_s))


class Bar:
    """The view ``page_scan.scan`` walks: the bar's value is the top paragraph's index."""

    def __init__(self, app: Writer) -> None:
        self.app = app

    async def place(self) -> tuple[float, float, float]:
        return self.app.top, 0, len(self.app.texts)

    async def shown(self) -> list[int]:
        return list(range(self.app.top, min(self.app.top + SCREEN, len(self.app.texts))))

    async def move(self, action: int) -> tuple[float, list[int]]:
        await asyncio.sleep(self.app.screen_s)
        step = SCREEN if action == INCREMENT_BLOCK else -SCREEN
        self.app.top = min(len(self.app.texts) - SCREEN, max(0, self.app.top + step))
        return self.app.top, await self.shown()

    async def text(self, item: int) -> str:
        return self.app.texts[item]


async def _look(app: Writer) -> Outline:
    return observed_outline(await app.snapshot(ROOT, max_nodes=4096, max_depth=64), None)


async def test_a_scan_moves_the_view_to_the_matching_screen_and_says_so() -> None:
    app = Writer()
    outline = await _look(app)
    parts = partly_shown(outline)
    (scanned,) = await scan_documents(app, ROOT, outline, parts, accepting("purple elephants"))
    assert isinstance(scanned, PagesScanned) and scanned.scan.matched == 1
    assert app.top == 190 and scanned.scan.screens == 19, "the screen holding the phrase"
    assert scanned.ref == "@e2" and "1 paragraph(s) match" in scanned.note("s2")


async def test_a_scan_that_finds_nothing_stops_at_the_end() -> None:
    app = Writer()
    outline = await _look(app)
    (scanned,) = await scan_documents(
        app, ROOT, outline, partly_shown(outline), accepting("zebra quartz")
    )
    assert scanned.scan.at_end and not scanned.scan.matched and app.top == 190
    # the view started at the top: all of it was read, nothing scrolled back up
    assert scanned.scan.at_top and scanned.scan.screens_up == 0
    assert "no paragraph from its top to its end matches" in scanned.note("s2")


async def test_from_the_end_a_scan_goes_up_to_a_match_above_the_screen() -> None:
    app = Writer()
    app.top = 190  # ctrl+End
    outline = await _look(app)
    (scanned,) = await scan_documents(
        app, ROOT, outline, partly_shown(outline), accepting("Paragraph 3 of the sample")
    )
    assert scanned.scan.matched == 1 and app.top == 0, "the screen holding paragraph 3"
    assert scanned.scan.screens == 0 and scanned.scan.screens_up == 19
    note = scanned.note("s2")
    assert note.startswith("@e2 document text: scrolled its view up 19 screen(s) from its end")
    assert "1 paragraph(s) match; stateId s2 is a fresh look" in note


async def test_a_scan_from_the_middle_goes_down_then_up_past_where_it_started() -> None:
    app = Writer()
    app.top = 100
    outline = await _look(app)
    (scanned,) = await scan_documents(
        app, ROOT, outline, partly_shown(outline), accepting("Paragraph 42 of the sample")
    )
    assert scanned.scan.matched == 1 and app.top == 40
    assert (scanned.scan.screens, scanned.scan.screens_up) == (9, 15)
    assert "down 9 screen(s) to its end, then up 15 screen(s)" in scanned.note("s2")


async def test_the_budget_stops_a_scan_up_and_it_says_what_was_not_searched() -> None:
    app = Writer(count=2_000, screen_s=0.01)
    app.top = 1_990
    outline = await _look(app)
    parts = partly_shown(outline)
    (scanned,) = await scan_documents(
        app, ROOT, outline, parts, accepting("Paragraph 0 of the sample"), budget_s=0.3
    )
    scan_ = scanned.scan
    assert scan_.slow and scan_.at_end and not scan_.at_top and not scan_.matched
    assert 0 < scan_.screens_up < 199 and app.top == 1_990 - 10 * scan_.screens_up
    note = scanned.note("s2")
    assert "before the time ran out: no paragraph from there to its end matches" in note
    assert "Pages above it were not searched (ctrl+Home" in note


async def _waited(app: Writer, cond: UiCondition) -> WaitResult:
    base = await _look(app)

    async def take() -> tuple[Snapshot, int]:
        return await app.snapshot(ROOT, max_nodes=4096, max_depth=64), 1

    return await wait_until(app, ROOT, cond, base, take, reach=ConditionReach(app, cond, base, 1.0))


async def test_a_wait_for_text_on_a_later_page_is_met_once_the_view_reached_it() -> None:
    app = Writer()
    cond = UiCondition(text="purple elephants", scope_ref="@e2", timeout_ms=3_000)
    waited = await _waited(app, cond)
    assert waited.satisfied and app.top == 190
    (note,) = waited.reached  # the met look read nothing; the scroll is still said
    assert isinstance(note, PagesScanned) and note.scan.screens == 19


async def test_a_wait_for_text_above_the_screen_is_met_once_the_view_went_up_to_it() -> None:
    app = Writer()
    app.top = 190
    cond = UiCondition(text="Paragraph 7 of the sample", scope_ref="@e2", timeout_ms=3_000)
    waited = await _waited(app, cond)
    assert waited.satisfied and app.top == 0
    (note,) = waited.reached
    assert isinstance(note, PagesScanned) and note.scan.screens_up == 19


async def test_a_wait_for_text_to_be_gone_or_on_one_element_never_scrolls() -> None:
    app = Writer()
    gone = await _waited(app, UiCondition(text="purple", scope_ref="@e2", until="absent"))
    assert gone.satisfied and app.scans == 0 and app.top == 0
    one = await _waited(app, UiCondition(ref="@e3", text="purple", timeout_ms=600))
    assert not one.satisfied and app.scans == 0 and app.top == 0


async def test_a_wait_scrolls_for_at_most_half_its_time_left_so_looks_still_follow() -> None:
    app = Writer()
    waited = await _waited(app, UiCondition(text="zebra", scope_ref="@e2", timeout_ms=2_000))
    assert not waited.satisfied and waited.checks >= 2
    assert app.budgets and max(app.budgets) <= 1.0, app.budgets


async def test_a_wait_not_scoped_to_the_document_leaves_its_view_and_says_how_to_scroll() -> None:
    app = Writer()
    cond = UiCondition(text="purple elephants", timeout_ms=600)
    waited = await _waited(app, cond)
    assert not waited.satisfied and app.scans == 0 and app.top == 0
    (note,) = condition_notes(cond, unmatched_in(cond, waited.outline))
    assert "was not checked" in note and "give the condition scopeRef @e2" in note
    scoped = UiCondition(text="purple elephants", scope_ref="@e2", timeout_ms=600)
    (plain,) = condition_notes(scoped, unmatched_in(scoped, waited.outline))
    assert "scopeRef" not in plain, "a condition scoped to it is told nothing about scoping"
