"""Waits and searches reaching a document's pages below the screen by scrolling its view.

The backend is a small model of a word processor, not a mock of AT-SPI: a document of
many paragraphs of which one screen is listed, a caret page it reports, and a view that
``scan_pages`` moves down a screen at a time until a paragraph's text is accepted, the
end, or the budget (as ``backends/atspi/page_scan.py`` does with Writer's scroll bar).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from model_app import ROOT, ModelApp

from actui.backends.base import Pages, PageScan, RawNode, RootInfo, Snapshot
from actui.outline.conditions import UiCondition
from actui.outline.documents import condition_notes, partly_shown, unmatched_in
from actui.outline.model import Outline
from actui.runtime.reaching import ConditionReach, PagesScanned, accepting, scan_documents
from actui.runtime.waiting import WaitResult, observed_outline, wait_until

SCREEN = 10
"""Paragraphs a screen shows."""


class Writer(ModelApp):
    """``count`` paragraphs, ``SCREEN`` of them on screen from ``top``; the caret on page 1."""

    def __init__(self, count: int = 200, last: str = "The last phrase: purple elephants.") -> None:
        super().__init__()
        self.texts = [f"Paragraph {i} of the sample." for i in range(count - 1)] + [last]
        self.top = 0
        self.scans = 0
        self.budgets: list[float] = []

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
        screens = 0
        while self.top + SCREEN < len(self.texts):
            self.top, screens = self.top + SCREEN, screens + 1
            shown = self.texts[self.top : self.top + SCREEN]
            if matched := sum(1 for text in shown if accepts(text)):
                return PageScan(matched, screens, False, False, self.top / len(self.texts))
        return PageScan(0, screens, True, False, 1.0)


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
