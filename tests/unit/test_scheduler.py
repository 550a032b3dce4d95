"""Per-resource lanes serialize work on one app, run apps in parallel, and refuse stale writes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actui.errors import SchedulerClosed, StaleResourceStateError
from actui.runtime.scheduler import Scheduler

pytestmark = pytest.mark.timeout(10)


async def noop(epoch: int) -> None:
    return None


class Peak:
    """Counts how many jobs run at once."""

    def __init__(self) -> None:
        self.running = 0
        self.peak = 0

    async def job(self, epoch: int) -> int:
        self.running += 1
        self.peak = max(self.peak, self.running)
        await asyncio.sleep(0.01)
        self.running -= 1
        return epoch


async def test_same_resource_never_overlaps() -> None:
    scheduler = Scheduler()
    peak = Peak()
    await asyncio.gather(*(scheduler.read("desktop-pid:1", peak.job) for _ in range(5)))
    assert peak.peak == 1


async def test_different_resources_overlap() -> None:
    scheduler = Scheduler()
    peak = Peak()
    await asyncio.gather(
        scheduler.read("desktop-pid:1", peak.job), scheduler.read("cdp:t", peak.job)
    )
    assert peak.peak == 2


async def test_jobs_on_one_resource_run_in_arrival_order() -> None:
    scheduler = Scheduler()
    order: list[int] = []

    def job(n: int) -> Callable[[int], Awaitable[None]]:
        async def run(epoch: int) -> None:
            await asyncio.sleep(0)
            order.append(n)

        return run

    await asyncio.gather(*(scheduler.read("k", job(n)) for n in range(10)))
    assert order == list(range(10))


async def test_epochs_start_at_zero_and_writes_bump_before_running() -> None:
    scheduler = Scheduler()
    assert scheduler.epoch("k") == 0
    seen: list[int] = []

    async def write(epoch: int) -> str:
        seen.append(scheduler.epoch("k"))
        return f"ran at {epoch}"

    assert await scheduler.write("k", 0, write) == "ran at 1"
    assert seen == [1]
    assert scheduler.epoch("k") == 1


async def test_read_passes_the_current_epoch_and_never_bumps_it() -> None:
    scheduler = Scheduler()

    async def echo(epoch: int) -> int:
        return epoch

    await scheduler.write("k", 0, echo)
    assert await scheduler.read("k", echo) == 1
    assert await scheduler.read_at("k", 1, echo) == 1
    assert scheduler.epoch("k") == 1


async def test_after_a_write_at_epoch_zero_read_at_and_write_at_zero_are_stale() -> None:
    scheduler = Scheduler()
    calls: list[int] = []

    async def job(epoch: int) -> int:
        calls.append(epoch)
        return epoch

    await scheduler.write("desktop-pid:7", 0, job)
    with pytest.raises(StaleResourceStateError) as caught:
        await scheduler.read_at("desktop-pid:7", 0, job)
    assert (caught.value.resource_key, caught.value.expected_epoch, caught.value.current_epoch) == (
        "desktop-pid:7",
        0,
        1,
    )
    with pytest.raises(StaleResourceStateError):
        await scheduler.write("desktop-pid:7", 0, job)
    assert calls == [1]
    assert scheduler.epoch("desktop-pid:7") == 1


async def test_stale_write_is_rejected_before_dispatch_even_while_the_lane_is_busy() -> None:
    scheduler = Scheduler()
    release = asyncio.Event()
    ran: list[str] = []

    async def slow(epoch: int) -> None:
        await release.wait()

    async def never(epoch: int) -> None:
        ran.append("stale write ran")

    await scheduler.write("k", 0, noop)
    busy = asyncio.create_task(scheduler.read("k", slow))
    await asyncio.sleep(0)
    with pytest.raises(StaleResourceStateError):
        await asyncio.wait_for(scheduler.write("k", 0, never), 1)
    with pytest.raises(StaleResourceStateError):
        scheduler.check_current("k", 0)
    scheduler.check_current("k", 1)
    release.set()
    await busy
    assert ran == []


async def test_of_two_racing_writes_from_one_epoch_exactly_one_runs() -> None:
    scheduler = Scheduler()
    ran: list[str] = []

    def writer(name: str) -> Callable[[int], Awaitable[str]]:
        async def run(epoch: int) -> str:
            await asyncio.sleep(0.01)
            ran.append(name)
            return name

        return run

    results = await asyncio.gather(
        scheduler.write("k", 0, writer("a")),
        scheduler.write("k", 0, writer("b")),
        return_exceptions=True,
    )
    assert len(ran) == 1
    assert sum(isinstance(r, StaleResourceStateError) for r in results) == 1
    assert scheduler.epoch("k") == 1


async def test_a_failed_job_does_not_block_the_lane() -> None:
    scheduler = Scheduler()

    async def boom(epoch: int) -> None:
        raise RuntimeError("boom")

    async def fine(epoch: int) -> str:
        return "fine"

    failing = asyncio.create_task(scheduler.write("k", 0, boom))
    following = asyncio.create_task(scheduler.read("k", fine))
    with pytest.raises(RuntimeError):
        await failing
    assert await asyncio.wait_for(following, 1) == "fine"
    assert scheduler.epoch("k") == 1  # a failed write still invalidates its base


async def test_a_write_whose_first_check_fails_runs_nothing_and_keeps_the_epoch() -> None:
    scheduler = Scheduler()
    ran: list[int] = []

    async def job(epoch: int) -> None:
        ran.append(epoch)

    async def gone() -> None:
        raise LookupError("the window closed")

    async def there() -> None:
        return None

    with pytest.raises(LookupError):
        await scheduler.write("k", 0, job, first=gone)
    assert scheduler.epoch("k") == 0 and ran == [], "nothing was sent: the state stays current"
    await scheduler.write("k", 0, job, first=there)
    assert scheduler.epoch("k") == 1 and ran == [1]


async def test_a_cancelled_job_frees_the_lane() -> None:
    scheduler = Scheduler()

    async def hang(epoch: int) -> None:
        await asyncio.sleep(60)

    async def fine(epoch: int) -> str:
        return "fine"

    hung = asyncio.create_task(scheduler.read("k", hang))
    await asyncio.sleep(0.01)
    hung.cancel()
    assert await asyncio.wait_for(scheduler.read("k", fine), 1) == "fine"


async def test_closed_scheduler_refuses_work_and_drains_accepted_jobs() -> None:
    scheduler = Scheduler()
    finished: list[int] = []

    async def job(epoch: int) -> None:
        await asyncio.sleep(0.02)
        finished.append(epoch)

    accepted = [asyncio.create_task(scheduler.read("k", job)) for _ in range(3)]
    await asyncio.sleep(0)
    await asyncio.wait_for(scheduler.close(), 2)
    assert len(finished) == 3
    await asyncio.gather(*accepted)
    with pytest.raises(SchedulerClosed) as caught:
        await scheduler.read("k", job)
    assert caught.value.code == "shutting_down"
    with pytest.raises(SchedulerClosed):
        await scheduler.write("k", 0, job)


@settings(max_examples=50, deadline=None)
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.booleans(), st.integers(0, 3)), max_size=12
    )
)
def test_epochs_count_exactly_the_writes_that_ran(ops: list[tuple[str, bool, int]]) -> None:
    async def scenario() -> None:
        scheduler = Scheduler()
        ran: dict[str, int] = {"a": 0, "b": 0}
        running: dict[str, int] = {"a": 0, "b": 0}

        def job(key: str, is_write: bool) -> Callable[[int], Awaitable[None]]:
            async def run(epoch: int) -> None:
                running[key] += 1
                assert running[key] == 1
                await asyncio.sleep(0)
                if is_write:
                    ran[key] += 1
                    assert epoch == ran[key]
                running[key] -= 1

            return run

        calls = [
            scheduler.write(key, base, job(key, True))
            if is_write
            else scheduler.read_at(key, base, job(key, False))
            for key, is_write, base in ops
        ]
        await asyncio.gather(*calls, return_exceptions=True)
        assert scheduler.epoch("a") == ran["a"]
        assert scheduler.epoch("b") == ran["b"]

    asyncio.run(scenario())
