"""A document's pages, the pure parts: the page count read from a page's attributes, how
it reads on the document's line and in a diff, and the one line a look that found nothing
adds about a document that exposes only what is on screen."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from strategies import outline_of, raw

from actui.backends.atspi.page_count import counts_pages, pages_of
from actui.backends.base import Pages, PageScan, RawNode
from actui.errors import PreconditionFailed
from actui.outline.conditions import UiCondition
from actui.outline.diff import compute_changes, render_changes, stabilize
from actui.outline.documents import pages_may_hold, pages_text, partly_shown, unmatched_in
from actui.outline.fold import label_line, node_line
from actui.results.views import node_json
from actui.runtime.reaching import PagesScanned

WRITER = {
    "total-columns": "1",
    "column-number": "1",
    "line-number": "1",
    "total-pages": "193",
    "page-number": "1",
    "page-name": "1",
}
"""Writer 7.4's page attributes on a 5,001-paragraph document, as measured."""


def _window(pages: Pages | None, *, in_frame: bool = False) -> RawNode:
    page = raw(
        "document text",
        "long - LibreOffice Document",
        raw("paragraph", "Paragraph 0", wire="/p0"),
        wire="/doc",
        pages=pages,
    )
    body = raw("panel", "", raw("internal frame", "", page, wire="/if"), wire="/pn")
    return raw("frame", "long.fodt", body if in_frame else page, wire="/f")


def test_writers_page_attributes_give_the_caret_page_and_the_total() -> None:
    assert pages_of(WRITER) == Pages(1, 193)
    assert pages_of({**WRITER, "page-number": "193"}) == Pages(193, 193)


def test_a_page_without_a_total_has_no_page_count() -> None:
    assert pages_of({}) is None
    assert pages_of({"page-number": "3"}) is None
    assert pages_of({"total-pages": "0", "page-number": "0"}) is None
    assert pages_of({"total-pages": "many"}) is None


@given(st.dictionaries(st.sampled_from(["page-number", "total-pages", "x"]), st.text(max_size=6)))
def test_any_attributes_give_no_count_or_a_caret_page_within_it(attrs: dict[str, str]) -> None:
    pages = pages_of(attrs)
    if pages is not None:
        assert pages.total >= 1 and 0 <= pages.caret <= pages.total


def test_the_documents_line_says_where_the_caret_is_among_its_pages() -> None:
    outline = outline_of(_window(Pages(1, 193)))
    (page,) = [n for n in outline if n.raw_role == "document text"]
    assert node_line(page).startswith(
        '@e2 document text "long - LibreOffice Document" (caret on page 1 of 193)'
    )
    assert "(caret on page 1 of 193)" in label_line(page)
    assert node_json(page)["pages"] == {"caretPage": 1, "total": 193}
    assert pages_text(Pages(0, 12)) == "12 pages"


def test_a_page_without_a_count_reads_as_before() -> None:
    outline = outline_of(_window(None))
    (page,) = [n for n in outline if n.raw_role == "document text"]
    assert "page" not in node_line(page).replace("long - LibreOffice Document", "")
    assert "pages" not in node_json(page)


def test_the_caret_moving_to_the_last_page_shows_in_the_diff() -> None:
    base = outline_of(_window(Pages(1, 193)))
    successor = stabilize(base, outline_of(_window(Pages(193, 193))))
    text = render_changes(compute_changes(base, successor), successor, "s1", "s2")
    assert 'pages="caret on page 193 of 193"' in text, text


def test_a_document_of_more_than_one_page_is_partly_shown_inside_its_scope() -> None:
    outline = outline_of(_window(Pages(1, 193), in_frame=True))
    (part,) = partly_shown(outline)
    assert (part.ref, part.role, part.pages) == ("@e4", "document text", Pages(1, 193))
    frame = outline.nodes["@e3"]
    assert partly_shown(outline, frame) == (part,)
    paragraph = next(n for n in outline if n.raw_role == "paragraph")
    assert partly_shown(outline, paragraph) == ()
    assert partly_shown(outline_of(_window(Pages(1, 1)))) == ()
    assert partly_shown(outline_of(_window(None))) == ()


@given(st.integers(0, 500), st.integers(2, 500), st.sampled_from(["searched", "checked", "read"]))
def test_the_note_says_what_was_not_looked_at_and_never_that_the_text_is_absent(
    caret: int, total: int, looked: str
) -> None:
    (part,) = partly_shown(outline_of(_window(Pages(min(caret, total), total))))
    note = part.note(looked)
    assert "\n" not in note
    assert f"exposes only what is on screen ({pages_text(part.pages)})" in note
    assert f"text on its other pages was not {looked}" in note
    assert "ctrl+End" in note and "Page Down" in note and "Find" in note
    assert "absent" not in note and "no such" not in note and "does not contain" not in note


def test_a_condition_that_found_nothing_names_the_partly_shown_documents_in_its_scope() -> None:
    outline = outline_of(_window(Pages(1, 193), in_frame=True))
    text = UiCondition(text="purple elephants")
    assert [p.ref for p in unmatched_in(text, outline)] == ["@e4"]
    assert [p.ref for p in unmatched_in(replace(text, scope_ref="@e3"), outline)] == ["@e4"]
    assert [p.ref for p in unmatched_in(replace(text, until="absent"), outline)] == ["@e4"]
    # one element decides a condition on it; a scope beside the document holds none of it
    assert unmatched_in(replace(text, ref="@e4"), outline) == ()
    assert unmatched_in(replace(text, scope_ref="@e4", scope_exact=True), outline) == ()
    assert unmatched_in(replace(text, scope_ref="@e5"), outline) == ()
    assert unmatched_in(replace(text, scope_ref="@e99"), outline) == ()


def test_a_precondition_that_failed_carries_the_documents_note() -> None:
    (part,) = partly_shown(outline_of(_window(Pages(2, 9))))
    failed = PreconditionFailed(
        'text "x" to be present', 500, ["@e9 label"], [part.note("checked")]
    )
    assert failed.message.endswith(part.note("checked")), failed.message
    assert "Closest: @e9 label." in failed.message


def _scanned(
    matched: int, screens: int, at_end: bool, slow: bool, place: float, up: int = 0
) -> PagesScanned:
    scan = PageScan(matched, screens, at_end, slow, place, up, False)
    return PagesScanned("@e4", "document text", Pages(1, 193), scan)


@given(st.floats(0, 1), st.integers(1, 500))
def test_the_page_a_scan_stopped_at_is_within_the_document(place: float, total: int) -> None:
    scanned = PagesScanned(
        "@e4", "document text", Pages(1, total), PageScan(0, 3, False, True, place, 0, False)
    )
    assert 1 <= scanned.page <= total
    if place == 1:
        assert scanned.page == total


def test_a_scans_note_says_how_far_the_view_went_and_that_the_caret_stayed() -> None:
    found = _scanned(1, 452, False, False, 0.999).note("s3")
    assert found.startswith("@e4 document text: scrolled its view down 452 screen(s)")
    assert "the caret left where it was" in found and "about page 193 of 193" in found
    assert "1 paragraph(s) match; stateId s3 is a fresh look" in found
    up = _scanned(0, 12, True, True, 0.4, 60).note("s3")
    assert up.startswith("@e4 document text: scrolled its view down 12 screen(s) to its end")
    assert "then up 60 screen(s), the caret left where it was, to about page 78 of 193" in up
    assert "before the time ran out: no paragraph from there to its end matches" in up
    assert "Pages above it were not searched" in up and "ctrl+Home" in up
    whole = PageScan(0, 0, True, False, 0.0, 448, True)
    end = PagesScanned("@e4", "document text", Pages(193, 193), whole).note("s3")
    assert end.startswith("@e4 document text: scrolled its view up 448 screen(s) from its end")
    assert end.endswith("no paragraph from its top to its end matches.")
    slow = _scanned(0, 380, False, True, 0.84).note("s3")
    assert "about page 163 of 193, before the time ran out" in slow
    assert "search_ui again on stateId s3 goes on from there" in slow
    for note in (found, up, end, slow):
        assert "\n" not in note and "absent" not in note
    assert _scanned(0, 380, False, True, 0.84).json() == {
        "ref": "@e4",
        "screensScrolled": 380,
        "screensScrolledUp": 0,
        "matched": 0,
        "reachedEnd": False,
        "reachedTop": False,
        "stoppedSlow": True,
        "aboutPage": 163,
    }


def test_only_a_text_documents_page_is_asked_its_page_count() -> None:
    assert counts_pages("document text")
    assert not counts_pages("document presentation") and not counts_pages("document frame")


def test_only_a_search_a_documents_text_could_meet_scrolls_its_pages() -> None:
    assert pages_may_hold(None, None) and pages_may_hold("paragraph", None)
    assert pages_may_hold("Heading", None) and pages_may_hold("  ", "")
    assert not pages_may_hold("button", None), "a search for a button moves no page"
    assert not pages_may_hold(None, "press") and not pages_may_hold("paragraph", "typeText")
