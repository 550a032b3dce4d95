"""Root deltas and settling after a transaction."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from actui.backends.base import RootInfo
from actui.runtime.deltas import MAX_PROCESSES, Announced, root_deltas, settle
from actui.runtime.roots import promote_modal

MAIN = RootInfo("a/1", 10, "app", "Main", "window", "frame", is_focused=True)
DIALOG = RootInfo("a/2", 10, "app", "Save as", "dialog", "dialog", is_modal=True)


def _ref(root: RootInfo) -> str:
    return {"a/1": "@r1", "a/2": "@r2"}[root.native_id]


def test_a_new_focused_dialog_appears_and_nothing_else_is_reported() -> None:
    after = [replace(MAIN, is_focused=False), replace(DIALOG, is_focused=True)]
    deltas = root_deltas([MAIN], after, _ref)
    assert [(d.change, d.ref) for d in deltas] == [("appeared", "@r2")]
    assert deltas[0].is_modal is True


def test_a_closed_dialog_and_refocused_main_window() -> None:
    before = [replace(MAIN, is_focused=False), replace(DIALOG, is_focused=True)]
    deltas = root_deltas(before, [MAIN], _ref)
    assert [(d.change, d.ref) for d in deltas] == [("closed", "@r2"), ("focused", "@r1")]


async def test_settle_waits_for_a_late_window_within_the_window() -> None:
    listings = [[MAIN], [MAIN], [MAIN, DIALOG], [MAIN, DIALOG]]
    calls = 0

    async def list_roots() -> list[RootInfo]:
        nonlocal calls
        calls += 1
        return listings[min(calls - 1, len(listings) - 1)]

    after, how = await settle([MAIN], list_roots, window_s=1.0)
    assert {r.native_id for r in after} == {"a/1", "a/2"} and how == "window"


async def test_settle_returns_after_the_window_when_nothing_changes() -> None:
    async def list_roots() -> list[RootInfo]:
        return [MAIN]

    assert await settle([MAIN], list_roots, window_s=0.05) == ([MAIN], "window")
    assert await settle([MAIN], list_roots, window_s=0.0) == ([MAIN], "none")


async def test_the_window_runs_from_when_the_last_step_was_sent() -> None:
    listed = 0

    async def list_roots() -> list[RootInfo]:
        nonlocal listed
        listed += 1
        return [MAIN]

    async def never_quiet(limit_s: float) -> bool:
        await asyncio.sleep(limit_s)
        return False

    spent = time.monotonic() - 0.5  # a press that waited half a second for its evidence
    started = time.monotonic()
    assert await settle([MAIN], list_roots, window_s=0.3, since=spent) == ([MAIN], "window")
    assert await settle([MAIN], list_roots, since=spent, went_quiet=never_quiet) == (
        [MAIN],
        "window",
    )
    assert listed == 2 and time.monotonic() - started < 0.1, "listed once each, no wait"


async def test_settling_by_events_lists_once_the_app_went_quiet_and_rediffs_a_change() -> None:
    """A dialog built in a burst of events: listed once the burst is over."""
    quiet_after = 3
    waits: list[float] = []
    listed = 0

    async def went_quiet(limit_s: float) -> bool:
        waits.append(limit_s)
        return len(waits) >= quiet_after

    async def list_roots() -> list[RootInfo]:
        nonlocal listed
        listed += 1
        return [MAIN, DIALOG] if len(waits) >= quiet_after else [MAIN]

    after, how = await settle([MAIN], list_roots, window_s=1.0, went_quiet=went_quiet)
    assert how == "events" and {r.native_id for r in after} == {"a/1", "a/2"}
    assert len(waits) == quiet_after and listed == 2, "listed once, then one re-diff agreed"


async def test_an_app_that_never_goes_quiet_settles_by_the_window() -> None:
    async def went_quiet(limit_s: float) -> bool:
        await asyncio.sleep(min(0.01, limit_s))
        return False

    async def list_roots() -> list[RootInfo]:
        return [MAIN]

    assert await settle([MAIN], list_roots, window_s=0.05, went_quiet=went_quiet) == (
        [MAIN],
        "window",
    )


def test_a_modal_in_front_is_promoted_and_one_behind_is_not() -> None:
    main = replace(MAIN, z_order=1, is_focused=False)
    in_front = replace(DIALOG, z_order=0, is_focused=True)
    assert promote_modal(main, [main, in_front]) == in_front
    behind = replace(DIALOG, z_order=2)
    front_main = replace(MAIN, z_order=0)
    assert promote_modal(front_main, [front_main, behind]) == front_main
    other_app = replace(DIALOG, pid=99, z_order=0, is_focused=True)
    assert promote_modal(main, [main, other_app]) == main


async def test_a_launched_process_window_is_waited_for_and_reported() -> None:
    """A launcher's press: it closes its own window, the new process's comes later."""
    editor = RootInfo("b/1", 77, "mousepad", "Untitled 1", "window", "frame")
    listings = [[], [], [editor], [editor]]
    calls = 0

    async def list_roots() -> list[RootInfo]:
        nonlocal calls
        calls += 1
        return listings[min(calls - 1, len(listings) - 1)]

    after, how = await settle([MAIN], list_roots, window_s=0.05, launched=lambda: [77])
    assert how == "launch" and after == [editor]
    _, how = await settle([MAIN], list_roots, window_s=0.0, launched=lambda: [])
    assert how == "none", "no process started: no waiting"


def test_window_changes_the_agent_was_not_shown_are_reported_once() -> None:
    announced = Announced()
    other = replace(DIALOG, native_id="b/1", pid=11)
    announced.listed(10, [MAIN], _ref)
    assert announced.take(10) == [], "nothing was shown before: no news"
    announced.shown([MAIN, other], {10, 11})
    focus_moved = replace(MAIN, is_focused=False)
    announced.listed(10, [focus_moved, other], _ref)
    assert announced.take(10) == [], "focus is not news; another process is not this one's"
    announced.listed(10, [focus_moved, DIALOG], _ref)
    announced.listed(10, [focus_moved, DIALOG], _ref)
    news = announced.take(10)
    assert [(d.change, d.ref) for d in news] == [("appeared", "@r2")]
    assert announced.take(10) == [], "reported once"
    announced.listed(10, [focus_moved], _ref)
    announced.shown([focus_moved], {10})
    assert announced.take(10) == [], "shown (a find_roots, root deltas) is told"


def test_only_the_most_recent_processes_are_remembered() -> None:
    announced = Announced()
    for pid in range(MAX_PROCESSES + 1):
        announced.shown([replace(MAIN, pid=pid)], {pid})
    announced.listed(1, [replace(MAIN, pid=1), replace(DIALOG, pid=1)], _ref)
    assert [d.change for d in announced.take(1)] == ["appeared"]
    announced.listed(0, [replace(MAIN, pid=0), replace(DIALOG, pid=0)], _ref)
    assert announced.take(0) == [], "the oldest process was forgotten"
