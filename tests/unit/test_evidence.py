"""The one evidence judge: read before, act, read after (pure logic, no platform)."""

from __future__ import annotations

import asyncio
import time

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.evidence import SETTLE_S, judge, read_back, settle, settle_window, verdict

readings = st.one_of(st.integers(-3, 3), st.text(max_size=3), st.frozensets(st.sampled_from("ab")))


@given(st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_worked_needs_the_effect_read_back_and_didnt_needs_nothing_changed(
    effect: bool, unchanged: bool, readable: bool, named: bool
) -> None:
    outcome = verdict(effect=effect, unchanged=unchanged, readable=readable, effect_named=named)
    assert (outcome == "worked") == (readable and effect)
    if outcome == "didnt":
        assert readable and unchanged and not effect and named
    if not readable:
        assert outcome == "unknown", "an unreadable effect is never vouched for"


@given(st.booleans(), st.booleans())
def test_a_step_whose_effect_is_not_named_is_never_judged_didnt(effect: bool, same: bool) -> None:
    assert verdict(effect=effect, unchanged=same, effect_named=False) != "didnt"


@given(readings, readings, st.booleans())
def test_judge_compares_the_two_readings_with_the_wanted_effect(
    before: object, after: object, flip: bool
) -> None:
    def wanted(now: object) -> bool:
        return (now == after) != flip

    outcome = judge(before, after, wanted)
    if outcome == "worked":
        assert wanted(after)
    elif outcome == "didnt":
        assert after == before and not wanted(after)
    else:
        assert after != before and not wanted(after)


@given(readings)
def test_an_effect_already_there_before_the_step_is_worked(reading: object) -> None:
    assert judge(reading, reading, lambda now: now == reading) == "worked"


@given(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=1, max_size=8), st.integers(0, 3))
def test_read_back_stops_at_the_first_reading_with_the_effect(
    before: int, later: list[int], target: int
) -> None:
    """Each wake is one event: the readings after it are taken until the effect shows."""
    sequence = iter(later)
    taken: list[int] = []
    woken: list[float] = []

    async def read() -> int:
        value = next(sequence, later[-1])
        taken.append(value)
        return value

    async def wake(left: float) -> None:
        woken.append(left)
        if len(taken) >= len(later):  # no more events: let the window run out
            await asyncio.sleep(left)

    outcome, last = asyncio.run(read_back(before, read, target.__eq__, wake, budget_s=0.05))
    assert last == taken[-1]
    assert outcome == judge(before, last, target.__eq__)
    if target in later:
        assert taken == later[: later.index(target) + 1], "nothing is read after the effect shows"
    assert all(0 < left <= 0.05 for left in woken)


def test_settle_gives_up_when_the_window_has_passed() -> None:
    calls: list[float] = []

    async def never() -> bool:
        return False

    async def wake(left: float) -> None:
        calls.append(left)
        await asyncio.sleep(min(left, 0.01))

    started = time.monotonic()
    assert asyncio.run(settle(never, wake, 0.05)) is False
    assert 0.05 <= time.monotonic() - started < 0.5
    assert calls and all(0 < left <= 0.05 for left in calls)


@given(st.floats(-1.0, 1.0))
def test_a_lagging_platform_waits_longer_never_shorter(lag: float) -> None:
    assert settle_window(lag) >= SETTLE_S
    assert settle_window(lag) == SETTLE_S + max(0.0, lag)
