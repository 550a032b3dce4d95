"""The one way to wait: a deadline, the time between looks, and what was last seen."""

from __future__ import annotations

import time

from actui.deadlines import Deadline, poll


async def test_poll_returns_the_first_look_that_finds_something() -> None:
    looks: list[int] = []

    async def look() -> str | None:
        looks.append(1)
        return "found" if len(looks) == 3 else None

    started = time.monotonic()
    assert await poll(look, Deadline(5), 0.01) == "found"
    assert len(looks) == 3 and time.monotonic() - started < 1


async def test_poll_looks_once_without_time_and_gives_up_at_the_deadline() -> None:
    looks: list[float] = []

    async def never() -> None:
        looks.append(time.monotonic())

    assert await poll(never, Deadline(0), 0.01) is None
    assert len(looks) == 1
    started = time.monotonic()
    assert await poll(never, Deadline(0.2), 0.05) is None
    spent = time.monotonic() - started
    assert 0.2 <= spent < 0.6 and 3 <= len(looks) - 1 <= 6, (spent, len(looks))


async def test_an_event_wait_is_given_the_time_left_and_never_more() -> None:
    given: list[float] = []

    async def wake(left: float) -> None:
        given.append(left)

    async def look() -> bool | None:
        return True if len(given) == 2 else None

    assert await poll(look, Deadline(1), wake) is True
    assert len(given) == 2 and all(0 < left <= 1 for left in given)
    assert given[1] <= given[0]


async def test_a_pause_stops_at_the_deadline_and_says_whether_time_is_left() -> None:
    deadline = Deadline(0.1)
    assert await deadline.pause(0.01) is True
    started = time.monotonic()
    assert await deadline.pause(5) is False
    assert time.monotonic() - started < 0.5 and deadline.expired and deadline.left() == 0


def test_a_timeout_says_what_did_not_happen_and_what_was_seen_last() -> None:
    deadline = Deadline(2.5, start=time.monotonic() - 3)
    assert deadline.expired and deadline.elapsed_ms() >= 3000
    assert deadline.timed_out("the dialog did not open") == "the dialog did not open within 2.5 s"
    deadline.seen = "a window titled 'Save As'"
    assert deadline.timed_out("the dialog did not open").endswith(
        "; last seen: a window titled 'Save As'"
    )
