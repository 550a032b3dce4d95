"""A GTK 3 list of 100,000 rows (tests/apps/gtk3_big_list.py) is read as a window onto its
data: an observation returns, says how many rows exist and which are shown, a shown cell
can be acted on (the fixture prints what got selected), a search reads the last row on
demand into a successor state and select selects it, and scrolling moves the window."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from computer_helpers import found_of, matches_of, observation_of, state_id_of, waited_of
from corpus_helpers import Driven

from actui import api
from actui.backends.atspi.bus import AtspiBus
from actui.backends.linux.sandbox import Sandbox
from actui.outline.windows import Windowed
from actui.runtime.reaching import Coverage
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

APP = Path(__file__).parents[1] / "apps" / "gtk3_big_list.py"
ROWS = 100_000


@dataclass
class BigList:
    app: Driven
    process: asyncio.subprocess.Process
    root: str

    async def selected(self, row: str, timeout_s: float = 10.0) -> None:
        """Wait for the fixture to print that ``row`` got selected."""
        assert self.process.stdout is not None
        wanted = f"selected={row}"
        async with asyncio.timeout(timeout_s):
            while (line := (await self.process.stdout.readline()).decode().strip()) != wanted:
                assert line or self.process.returncode is None, "the fixture exited"


async def exact(app: Driven, state: str, text: str) -> list[str]:
    """Refs of cells whose label is exactly ``text``."""
    found = await app.ok("search_ui", {"stateId": state, "text": text, "role": "cell"})
    return [m.ref for m in matches_of(found) if m.reason == "exact"]


def rows_shown(windowed: Windowed) -> tuple[int, int]:
    """The first and last rows on screen, 1-based as the outline counts them (the last
    on screen, not the last read, when a look read fewer)."""
    window = windowed.window
    assert window.shown, windowed
    last = window.screen_last_row if window.screen_last_row >= 0 else window.last_row
    return window.first_row + 1, last + 1


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def big(module_sandbox: Sandbox) -> AsyncIterator[BigList]:
    process = await module_sandbox.launch(
        ["/usr/bin/python3", str(APP), str(ROWS)], stdout=asyncio.subprocess.PIPE
    )
    await module_sandbox.wait_for_app(process.pid)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        app = Driven(computer, process.pid)
        window = await app.window(f"Big list {ROWS}")
        yield BigList(app, process, window.ref)
    finally:
        await computer.close()
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_observing_says_how_many_rows_exist_and_which_are_shown(big: BigList) -> None:
    observed = observation_of(
        await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    )
    outline = big.app.texts[-1]
    (window,) = observed.windows
    assert (window.window.rows, window.window.columns) == (ROWS, 3), window
    first, last = rows_shown(window)
    assert first == 1 and 10 <= last < 100, window
    assert f"100,000 rows × 3 columns; showing rows 1–{last}" in outline, outline
    state = observed.state_id
    assert await exact(big.app, state, f"Row {last}"), outline
    assert f'cell "Row {last + 1}"' not in outline, "a row off screen was read"
    await big.app.answering()


SHORT = 5
"""Rows of a list that does not fill its view."""


async def test_a_list_shorter_than_its_view_shows_all_its_rows(module_sandbox: Sandbox) -> None:
    """The probes from the bottom meet nothing under them: the data ends before that edge,
    so every row from the first shown to the last is shown, and read."""
    process = await module_sandbox.launch(["/usr/bin/python3", str(APP), str(SHORT)])
    await module_sandbox.wait_for_app(process.pid)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        app = Driven(computer, process.pid)
        window = await app.window(f"Big list {SHORT}")
        observed = observation_of(await app.ok("observe_ui", {"root": window.ref}))
        (shown,) = observed.windows
        assert (shown.window.rows, rows_shown(shown)) == (SHORT, (1, SHORT)), shown
        assert f"showing rows 1–{SHORT}" in app.texts[-1], app.texts[-1]
        for row in range(1, SHORT + 1):
            assert await exact(app, observed.state_id, f"Row {row}"), app.texts[-1]
        await app.answering()
    finally:
        await computer.close()
        process.kill()
        await process.wait()


async def test_a_shown_cell_can_be_selected(big: BigList) -> None:
    state = state_id_of(await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"}))
    (cell,) = await exact(big.app, state, "Row 5")
    done = await big.app.act({"stateId": state, "actions": [{"action": "select", "ref": cell}]})
    await big.selected("Row 5")
    assert done.outcome == "worked", done
    await big.app.answering()


async def test_searching_for_the_last_row_reads_it_on_demand_and_select_selects_it(
    big: BigList,
) -> None:
    base = state_id_of(await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"}))
    wanted = f"Row {ROWS}"
    found = found_of(
        await big.app.ok("search_ui", {"stateId": base, "text": wanted, "role": "cell"})
    )
    (cell,) = [m.ref for m in found.result.matches if m.label == wanted]
    successor = found.state_id
    assert successor != base and found.base_state_id == base, found
    (unread,) = found.unread
    assert isinstance(unread, Coverage), unread
    assert unread.total == ROWS and unread.missing, unread
    assert "not searched" in big.app.texts[-1], big.app.texts[-1]
    before = found_of(
        await big.app.ok("search_ui", {"stateId": base, "text": wanted, "role": "cell"})
    )
    assert before.state_id != successor, "the base state is left as it was"
    done = await big.app.act({"stateId": successor, "actions": [{"action": "select", "ref": cell}]})
    await big.selected(wanted)
    assert done.outcome == "worked", done
    await big.app.answering()


async def test_the_python_api_finds_a_row_not_shown_and_selects_it_through_the_successor(
    big: BigList, module_sandbox: Sandbox
) -> None:
    wanted = f"Row {ROWS - 1}"
    async with api.Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"}) as computer:
        state = await computer.observe(
            (await computer.find_roots(text=f"Big list {ROWS}")).first, mode="semantic"
        )
        assert wanted not in [m.label for m in state.search(wanted, role="cell")]
        found = await state.find(wanted, role="cell")
        (cell,) = [m for m in found if m.label == wanted]
        assert found.state.state_id != state.state_id, "read into a successor state"
        done = await found.state.act(cell.select())
        await big.selected(wanted)
        assert done.raise_for_outcome().outcome == "worked"
    await big.app.answering()


async def test_a_cold_look_asks_the_listing_at_once_and_the_cache_one_round_trip_later(
    big: BigList, module_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registry's list, the window's children and its frame leave together; the
    toolkit's cache and the frame the walk is placed by leave together right after. A
    call's wave is one more than the wave of the latest reply settled before it left:
    the round trips in series before it."""
    calls: list[tuple[str, int]] = []
    settled = [0]
    original = AtspiBus.request

    def request(bus: AtspiBus, *args: Any, **kwargs: Any) -> Any:
        future = original(bus, *args, **kwargs)
        wave = settled[0] + 1
        calls.append((str(args[3]), wave))
        future.add_done_callback(lambda _: settled.__setitem__(0, max(settled[0], wave)))
        return future

    async with api.Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"}) as computer:
        window = (await computer.find_roots(text=f"Big list {ROWS}")).first
        monkeypatch.setattr(AtspiBus, "request", request)
        state = await computer.observe(window, mode="semantic")
        monkeypatch.undo()
    assert [m for m, w in calls if w == 1] == ["GetChildren", "GetChildren", "GetExtents"], calls
    assert sorted(m for m, w in calls if w == 2) == ["GetExtents", "GetItems"], calls
    assert [m.label for m in state.search("Row 1", role="cell")][:1] == ["Row 1"], state.text
    await big.app.answering()


async def test_scrolling_the_list_moves_the_window_the_next_state_shows(big: BigList) -> None:
    observed = observation_of(
        await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    )
    (window,) = observed.windows
    scrolled = await big.app.act(
        {
            "stateId": observed.state_id,
            "actions": [{"action": "scroll", "ref": window.ref, "scrollY": 10}],
        },
    )
    again = observation_of(await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"}))
    (moved,) = again.windows
    first, _ = rows_shown(moved)
    assert first > rows_shown(window)[0], (scrolled, moved)
    assert await exact(big.app, again.state_id, f"Row {first}"), big.app.texts[-1]
    await big.app.answering()


async def test_pressing_end_moves_the_window_to_the_last_rows_the_next_state_shows(
    big: BigList, module_sandbox: Sandbox
) -> None:
    keyboard = ToolBox(env=module_sandbox.env)  # keys go through the foreground path
    try:
        app = Driven(keyboard, big.app.pid)
        root = (await app.window(f"Big list {ROWS}")).ref
        observed = observation_of(await app.ok("observe_ui", {"root": root, "mode": "semantic"}))
        first, _ = rows_shown(observed.windows[0])
        (cell,) = await exact(app, observed.state_id, f"Row {first}")
        pressed = await app.act(
            {
                "stateId": observed.state_id,
                "actions": [{"action": "keypress", "ref": cell, "keys": ["End"]}],
            },
        )
        await big.selected(f"Row {ROWS}")
        again = observation_of(await app.ok("observe_ui", {"root": root, "mode": "semantic"}))
        (moved,) = again.windows
        top, bottom = rows_shown(moved)
        assert bottom == ROWS, (pressed, moved)
        assert await exact(app, again.state_id, f"Row {ROWS}"), app.texts[-1]
        assert f"showing rows {top:,}–{ROWS:,}" in app.texts[-2]
    finally:
        await keyboard.close()
    await big.app.answering()


async def test_wait_for_text_in_an_unread_row_finds_it_by_reading_on_demand(
    big: BigList,
) -> None:
    state = state_id_of(await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"}))
    wanted = f"Item {ROWS - 200}"  # among the last rows, which a search reads first
    assert f'"{wanted}"' not in big.app.texts[-1], "the row is off screen, unread"
    waited = waited_of(
        await big.app.ok("wait_for", {"stateId": state, "text": wanted, "timeoutMs": 10_000})
    )
    assert waited.found and waited.matches, big.app.texts[-1]
    assert "read on demand into stateId" in big.app.texts[-1], big.app.texts[-1]
    (unread,) = waited.unread
    assert isinstance(unread, Coverage), unread
    assert unread.total == ROWS and 0 < unread.searched_rows < ROWS, unread
    await big.app.ok(
        "inspect_ui", {"stateId": waited.observation.state_id, "ref": waited.matches[0]}
    )
    assert wanted in big.app.texts[-1], big.app.texts[-1]
    await big.app.answering()


async def test_a_require_on_an_unread_row_holds_by_reading_it_and_the_step_runs(
    big: BigList,
) -> None:
    observed = observation_of(
        await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    )
    first, _ = rows_shown(observed.windows[0])
    (cell,) = await exact(big.app, observed.state_id, f"Row {first + 1}")
    wanted = f"Item {ROWS - 150}"
    assert f'"{wanted}"' not in big.app.texts[-2], "the required row is off screen, unread"
    done = await big.app.act(
        {
            "stateId": observed.state_id,
            "require": {"text": wanted, "timeoutMs": 10_000},
            "actions": [{"action": "select", "ref": cell}],
        },
    )
    await big.selected(f"Row {first + 1}")
    assert done.outcome == "worked", done
    await big.app.answering()
