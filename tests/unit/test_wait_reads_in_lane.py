"""A wait's reads on demand queue behind a write to the same resource."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from actui.backends.base import RootInfo
from actui.outline.model import Outline
from actui.runtime.observer import _InLane
from actui.runtime.scheduler import Scheduler
from actui.runtime.waiting import ReadNote


class _Recorder:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def due_in(self) -> float | None:
        return 0.0

    async def __call__(
        self, root: RootInfo, outline: Outline, budget_s: float
    ) -> tuple[Outline, Sequence[ReadNote]]:
        self.log.append("read")
        return outline, ()


def test_a_read_on_demand_waits_for_a_write_in_the_lane() -> None:
    async def run() -> list[str]:
        lanes = Scheduler()
        log: list[str] = []
        release = asyncio.Event()

        async def write(_epoch: int) -> None:
            log.append("write starts")
            await release.wait()
            log.append("write ends")

        writing = asyncio.create_task(lanes.write("app", 0, write))
        await asyncio.sleep(0)
        reader = _InLane(_Recorder(log), lanes, "app")
        reading = asyncio.create_task(reader(None, None, 1.0))  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        release.set()
        await asyncio.gather(writing, reading)
        assert reader.due_in() == 0.0
        return log

    assert asyncio.run(run()) == ["write starts", "write ends", "read"]
