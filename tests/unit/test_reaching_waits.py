"""Waits whose condition a look does not show met read on demand what it left unread.

The backend is a small model of an app, not a mock of AT-SPI: a window with a
shown page, a hidden page whose content it lists only when asked
(``read_below``), and a list of rows it shows a window of (``find_in_rows``
reads the others). The label on the hidden page can change, as an app would.
"""

from __future__ import annotations

import time

from actui.backends.base import (
    ActionRequest,
    ActionResult,
    Backend,
    RawNode,
    Rect,
    RootInfo,
    RowQuery,
    Snapshot,
    TextSlice,
    Window,
)
from actui.outline.conditions import UiCondition
from actui.outline.model import Outline
from actui.outline.search import node_filter
from actui.runtime.reaching import MAX_CELLS, READ_AFTER_S, ConditionReach, search_unread
from actui.runtime.store import State
from actui.runtime.waiting import WaitResult, observed_outline, wait_until

ROOT = RootInfo("app/1", 7, "model", "Model", "window", "frame", frame=Rect(0, 0, 300, 200))
ROWS = 50_000
SHOWN = range(0, 20)


class PagedApp(Backend):
    """A window with two pages (one shown), a hidden page with a status label, and a list
    of ``ROWS`` rows of which the first 20 are shown."""

    def __init__(self) -> None:
        self.status = "Working"
        self.shown = "Shown"
        self.opened: list[str] = []
        self.rows_asked: list[int] = []

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        return [ROOT]

    def _row(self, index: int) -> RawNode:
        return RawNode(f"row/{index}", "list item", name=f"Row {index + 1}", rect=None)

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        shown = RawNode("page/shown", "panel", name=self.shown, states=frozenset({"showing"}))
        hidden = (
            RawNode("page/hidden", "panel", name="Status page", unread=1),
            RawNode("page/other", "panel", name="Other page", unread=1),
        )
        rows = tuple(self._row(i) for i in SHOWN)
        window = Window(ROWS, first_row=SHOWN.start, last_row=SHOWN.stop - 1)
        big = RawNode("list", "list", name="Entries", window=window, children=rows)
        tree = RawNode("win", "frame", name="Model", children=(shown, *hidden, big))
        return Snapshot(root=ROOT, tree=tree, captured_at=time.time(), node_count=5 + len(rows))

    async def read_below(self, root: RootInfo, node_id: str, budget_s: float) -> RawNode:
        self.opened.append(node_id)
        label = RawNode(f"{node_id}/label", "label", name=self.status)
        return RawNode(node_id, "panel", children=(label,))

    async def find_in_rows(self, root: RootInfo, query: RowQuery) -> list[RawNode]:
        self.rows_asked += list(query.rows)
        found = [self._row(i) for i in query.rows if query.accepts(f"Row {i + 1}")]
        return found[: query.limit]

    async def act(self, request: ActionRequest) -> ActionResult:
        raise AssertionError("nothing is acted on")

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        return TextSlice("", 0, 0)

    async def close(self) -> None:
        return None


async def _base(app: PagedApp) -> Outline:
    return observed_outline(await app.snapshot(ROOT, max_nodes=4096, max_depth=64), None)


async def _wait(app: PagedApp, cond: UiCondition, base: Outline) -> tuple[bool, Outline, int]:
    async def take() -> tuple[Snapshot, int]:
        return await app.snapshot(ROOT, max_nodes=4096, max_depth=64), 1

    reach = ConditionReach(app, cond, base, 1.0)
    waited = await wait_until(app, ROOT, cond, base, take, reach=reach)
    return waited.satisfied, waited.outline, len(waited.reached)


def _names(outline: Outline) -> set[str]:
    return {n.name for n in outline}


async def test_text_on_an_unread_hidden_page_is_found_by_reading_it_and_the_base_is_untouched() -> (
    None
):
    app = PagedApp()
    app.status = "Saved"
    base = await _base(app)
    assert "Saved" not in _names(base)
    met, outline, reached = await _wait(app, UiCondition(text="saved", timeout_ms=200), base)
    assert met and "Saved" in _names(outline) and reached
    assert app.opened == ["page/hidden"], "it stops at the page that meets the condition"
    assert "Saved" not in _names(base), "the base outline stays as it was"


async def _changing(app: PagedApp, cond: UiCondition, at_check: int, change: str) -> WaitResult:
    """Wait for ``cond`` while ``change`` ("status": the hidden page's label, "shown": the
    shown page's name) becomes "Saved" at the ``at_check``-th look."""
    base = await _base(app)
    looks = 0

    async def take() -> tuple[Snapshot, int]:
        nonlocal looks
        looks += 1
        if looks == at_check:
            setattr(app, change, "Saved")
        return await app.snapshot(ROOT, max_nodes=4096, max_depth=64), 1

    return await wait_until(app, ROOT, cond, base, take, reach=ConditionReach(app, cond, base, 1.0))


async def test_a_wait_sees_text_appear_on_a_hidden_page_after_it_began() -> None:
    app = PagedApp()
    waited = await _changing(app, UiCondition(text="Saved", timeout_ms=3_000), 3, "status")
    assert waited.satisfied and waited.reached
    assert app.opened == ["page/hidden"], "read once it was due, and it met the condition"


async def test_a_wait_met_by_what_is_shown_soon_reads_nothing_on_demand() -> None:
    app = PagedApp()
    waited = await _changing(app, UiCondition(text="Saved", timeout_ms=3_000), 2, "shown")
    assert waited.satisfied and not waited.reached
    assert not app.opened and not app.rows_asked
    assert waited.elapsed_ms < READ_AFTER_S * 1000


async def test_text_in_an_unread_row_is_found_by_reading_rows_on_demand() -> None:
    app = PagedApp()
    base = await _base(app)
    met, outline, _ = await _wait(app, UiCondition(text=f"Row {ROWS}", timeout_ms=500), base)
    assert met and f"Row {ROWS}" in _names(outline)
    assert set(app.rows_asked).isdisjoint(SHOWN), "the shown rows are not asked again"


async def test_rows_are_read_once_per_wait_and_never_more_than_the_cell_budget() -> None:
    app = PagedApp()
    base = await _base(app)
    met, _, _ = await _wait(app, UiCondition(text="Row 0 nowhere", timeout_ms=400), base)
    assert not met
    assert 0 < len(app.rows_asked) <= MAX_CELLS
    assert len(app.rows_asked) == len(set(app.rows_asked)), "no row is read twice in one wait"


async def test_an_absent_condition_is_decided_on_what_was_read_without_reading_more() -> None:
    app = PagedApp()
    app.status = "Saved"
    base = await _base(app)
    met, _, reached = await _wait(
        app, UiCondition(text="Saved", until="absent", timeout_ms=100), base
    )
    assert met and not reached and not app.opened and not app.rows_asked


async def test_an_anchored_condition_reads_only_inside_its_anchor() -> None:
    app = PagedApp()
    app.status = "Saved"
    base = await _base(app)
    other = next(n for n in base if n.name == "Other page")
    cond = UiCondition(scope_ref=other.ref, text="nothing like it", timeout_ms=200)
    met, _, _ = await _wait(app, cond, base)
    assert not met
    assert set(app.opened) == {"page/other"} and not app.rows_asked
    one = next(n for n in base if n.name == "Status page")
    exact = UiCondition(ref=one.ref, text="Saved", timeout_ms=100)
    assert not ConditionReach(app, exact, base, 1.0).wanted(base), "a ref is one read element"


async def _search(app: PagedApp, text: str, role: str | None) -> list[str]:
    """The pages a search for ``text`` (of ``role``) read on demand."""
    state = State("s1", "model", 1, "@r1", ROOT, await _base(app), time.time())
    await search_unread(app, state, text, 1, 1.0, node_filter(role))
    return app.opened


async def test_a_searchs_early_stop_at_an_exact_match_applies_its_role_filter() -> None:
    # both hidden pages hold a label "Working": an exact match, but not a button
    assert await _search(PagedApp(), "Working", None) == ["page/hidden"]
    assert await _search(PagedApp(), "Working", "button") == ["page/hidden", "page/other"]
