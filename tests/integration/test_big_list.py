"""A GTK 3 list of 100,000 rows (tests/apps/gtk3_big_list.py) is read as a window onto its
data: an observation returns, says how many rows exist and which are shown, a shown cell
can be acted on (the fixture prints what got selected), a search reads the last row on
demand into a successor state and select selects it, and scrolling moves the window."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from corpus_helpers import Driven

from actui import api
from actui.backends.linux.sandbox import Sandbox
from actui.tools import Computer

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
    return [m["ref"] for m in found["matches"] if m["matchReason"] == "exact"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def big(module_sandbox: Sandbox) -> AsyncIterator[BigList]:
    process = await module_sandbox.launch(
        ["/usr/bin/python3", str(APP), str(ROWS)], stdout=asyncio.subprocess.PIPE
    )
    await module_sandbox.wait_for_app(process.pid)
    computer = Computer(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        app = Driven(computer, process.pid)
        window = await app.window(f"Big list {ROWS}")
        yield BigList(app, process, str(window["windowRef"]))
    finally:
        await computer.close()
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_observing_says_how_many_rows_exist_and_which_are_shown(big: BigList) -> None:
    observed = await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    outline = big.app.texts[-1]
    (window,) = observed["windows"]
    assert (window["rows"], window["columns"]) == (ROWS, 3), window
    shown = window["shown"]
    assert shown["firstRow"] == 1 and 10 <= shown["lastRow"] < 100, shown
    last = shown["lastRow"]
    assert f"100,000 rows × 3 columns; showing rows 1–{last}" in outline, outline
    state = observed["stateId"]
    assert await exact(big.app, state, f"Row {last}"), outline
    assert f'cell "Row {last + 1}"' not in outline, "a row off screen was read"
    await big.app.answering()


async def test_a_shown_cell_can_be_selected(big: BigList) -> None:
    observed = await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    (cell,) = await exact(big.app, observed["stateId"], "Row 5")
    done = await big.app.ok(
        "act_ui",
        {"stateId": observed["stateId"], "actions": [{"action": "select", "ref": cell}]},
    )
    await big.selected("Row 5")
    assert done["outcome"] == "worked", done
    await big.app.answering()


async def test_searching_for_the_last_row_reads_it_on_demand_and_select_selects_it(
    big: BigList,
) -> None:
    observed = await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    base = observed["stateId"]
    wanted = f"Row {ROWS}"
    found = await big.app.ok("search_ui", {"stateId": base, "text": wanted, "role": "cell"})
    (cell,) = [m["ref"] for m in found["matches"] if m["label"] == wanted]
    successor = found["stateId"]
    assert successor != base and found["baseStateId"] == base, found
    (unread,) = found["unread"]
    assert unread["rows"] == ROWS and unread["notSearched"], unread
    assert "not searched" in big.app.texts[-1], big.app.texts[-1]
    before = await big.app.ok("search_ui", {"stateId": base, "text": wanted, "role": "cell"})
    assert before["stateId"] != successor, "the base state is left as it was"
    done = await big.app.ok(
        "act_ui", {"stateId": successor, "actions": [{"action": "select", "ref": cell}]}
    )
    await big.selected(wanted)
    assert done["outcome"] == "worked", done
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


async def test_scrolling_the_list_moves_the_window_the_next_state_shows(big: BigList) -> None:
    observed = await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    ((window, table),) = [(w, w["ref"]) for w in observed["windows"]]
    scrolled = await big.app.ok(
        "act_ui",
        {
            "stateId": observed["stateId"],
            "actions": [{"action": "scroll", "ref": table, "scrollY": 10}],
        },
    )
    again = await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    (moved,) = again["windows"]
    assert moved["shown"]["firstRow"] > window["shown"]["firstRow"], (scrolled, moved)
    first = moved["shown"]["firstRow"]
    assert await exact(big.app, again["stateId"], f"Row {first}"), big.app.texts[-1]
    await big.app.answering()


async def test_pressing_end_moves_the_window_to_the_last_rows_the_next_state_shows(
    big: BigList, module_sandbox: Sandbox
) -> None:
    keyboard = Computer(env=module_sandbox.env)  # keys go through the foreground path
    try:
        app = Driven(keyboard, big.app.pid)
        root = (await app.window(f"Big list {ROWS}"))["windowRef"]
        observed = await app.ok("observe_ui", {"root": root, "mode": "semantic"})
        first = observed["windows"][0]["shown"]["firstRow"]
        (cell,) = await exact(app, observed["stateId"], f"Row {first}")
        pressed = await app.ok(
            "act_ui",
            {
                "stateId": observed["stateId"],
                "actions": [{"action": "keypress", "ref": cell, "keys": ["End"]}],
            },
        )
        await big.selected(f"Row {ROWS}")
        again = await app.ok("observe_ui", {"root": root, "mode": "semantic"})
        (moved,) = again["windows"]
        assert moved["shown"]["lastRow"] == ROWS, (pressed, moved)
        assert await exact(app, again["stateId"], f"Row {ROWS}"), app.texts[-1]
        assert f"showing rows {moved['shown']['firstRow']:,}–{ROWS:,}" in app.texts[-2]
    finally:
        await keyboard.close()
    await big.app.answering()


async def test_wait_for_text_in_an_unread_row_finds_it_by_reading_on_demand(
    big: BigList,
) -> None:
    observed = await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    wanted = f"Item {ROWS - 200}"  # among the last rows, which a search reads first
    assert f'"{wanted}"' not in big.app.texts[-1], "the row is off screen, unread"
    waited = await big.app.ok(
        "wait_for", {"stateId": observed["stateId"], "text": wanted, "timeoutMs": 10_000}
    )
    assert waited["found"] and waited["matches"], big.app.texts[-1]
    assert "read on demand into stateId" in big.app.texts[-1], big.app.texts[-1]
    (unread,) = waited["unread"]
    assert unread["rows"] == ROWS and 0 < unread["searchedRows"] < ROWS, unread
    label = await big.app.ok(
        "inspect_ui", {"stateId": waited["stateId"], "ref": waited["matches"][0]}
    )
    assert wanted in big.app.texts[-1], label
    await big.app.answering()


async def test_a_require_on_an_unread_row_holds_by_reading_it_and_the_step_runs(
    big: BigList,
) -> None:
    observed = await big.app.ok("observe_ui", {"root": big.root, "mode": "semantic"})
    first = observed["windows"][0]["shown"]["firstRow"]
    (cell,) = await exact(big.app, observed["stateId"], f"Row {first + 1}")
    wanted = f"Item {ROWS - 150}"
    assert f'"{wanted}"' not in big.app.texts[-2], "the required row is off screen, unread"
    done = await big.app.ok(
        "act_ui",
        {
            "stateId": observed["stateId"],
            "require": {"text": wanted, "timeoutMs": 10_000},
            "actions": [{"action": "select", "ref": cell}],
        },
    )
    await big.selected(f"Row {first + 1}")
    assert done["outcome"] == "worked", done
    await big.app.answering()
