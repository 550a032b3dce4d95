"""Cost follows the screen for any list shape: a cold look at a GTK 3 list of 100,000 rows
against the same list of 100 rows, in the same run, interleaved.

``tests/apps/gtk3_big_list.py`` makes its rows at one of three moments (its ``FILLS``):
before the model is given to the view, after it is (each row inserted into a shown
model), or once the window shows. For each, both sizes run side by side on one private
desktop, settled, and each round looks cold at one then the other, in turns first (a
fresh ``ToolBox``, the window found untimed), so the machine's load falls on both alike.
Reported per shape: the median cold ``observe_ui`` of each size, their ratio (target
≤ 1.5×), the median of each round's own ratio (the two looks of a round a moment apart:
the load drifts less between them than over the run), the AT-SPI calls of a look (the
same for both sizes when actui's share does not grow), the application's CPU time
during the look (``/proc/PID/schedstat``) and this process's (actui runs in it), which say
whether a difference is the app's answers or ours, and how many looks a full collection
of the garbage collector fell into.

Each look starts with the garbage of the sessions before it collected (untimed): this
process runs a session per look, and each closed one leaves about 4,900 objects in
cycles (its bus and X connections), so every 10-20 looks a full collection of the
whole heap fell into one of them: 16-25 ms of this process's CPU, 0.5-0.9 s of wall
time on a loaded machine (measured 2026-12-04). That is this bench's many sessions, not
a look's cost: 40 looks in one session ran no full collection.

Run: ``.venv/bin/python bench/bench_list_shapes.py [--rounds N] [--fill F]...``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench_big import counted_calls, launched_list
from bench_desktop import ok, root_ref
from benchkit import Series, Stopwatch, machine_line, ms, table

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

FILLS = ("before", "attached", "after")
SIZES = (100, 100_000)


def cpu_ms(pid: int) -> float:
    """The process's CPU time so far, in ms, summed over its threads (their
    ``schedstat``: ns, where ``/proc/PID/stat`` counts 10 ms ticks, as coarse as a look)."""
    threads = Path(f"/proc/{pid}/task").glob("*/schedstat")
    return sum(int(t.read_text().split()[0]) for t in threads) / 1e6


@dataclass(frozen=True)
class Look:
    """One cold look: its wall ms, AT-SPI calls, the app's and this process's CPU ms, and
    whether a full garbage collection ran in it."""

    ms: float
    calls: int
    app_cpu_ms: float
    own_cpu_ms: float
    full_gc: bool


def full_collections() -> int:
    return int(gc.get_stats()[2]["collections"])


async def cold_look(env: dict[str, str], pid: int) -> Look:
    """One cold ``observe_ui`` of ``pid``'s window."""
    computer = ToolBox(env=env)
    try:
        ref = await root_ref(computer, pid)
        gc.collect()
        before, own, full = cpu_ms(pid), time.process_time(), full_collections()
        with counted_calls() as calls, Stopwatch() as watch:
            ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"}))
        own = (time.process_time() - own) * 1000
        return Look(watch.ms, calls[0], cpu_ms(pid) - before, own, full_collections() > full)
    finally:
        await computer.close()


async def shape(fill: str, rounds: int) -> list[str]:
    async with Sandbox() as desktop:
        apps = {n: await launched_list(desktop, n, fill) for n in SIZES}
        looks = {n: Series(f"{n:,} rows") for n in SIZES}
        seen: dict[int, list[Look]] = {n: [] for n in SIZES}
        try:
            for round_ in range(rounds):
                for n in SIZES[:: 1 if round_ % 2 == 0 else -1]:
                    look = await cold_look(desktop.env, apps[n].pid)
                    looks[n].add(look.ms)
                    seen[n].append(look)
        finally:
            for process in apps.values():
                process.kill()
                await process.wait()
    small, big = (looks[n].median for n in SIZES)
    paired = statistics.median(b / a for a, b in zip(*(looks[n].ms for n in SIZES), strict=True))
    return [
        fill,
        ms(small),
        ms(big),
        f"{big / small:.2f}×",
        f"{paired:.2f}×",
        " / ".join(f"{statistics.median(x.calls for x in seen[n]):.0f}" for n in SIZES),
        " / ".join(f"{statistics.median(x.app_cpu_ms for x in seen[n]):.1f}" for n in SIZES),
        " / ".join(f"{statistics.median(x.own_cpu_ms for x in seen[n]):.1f}" for n in SIZES),
        " / ".join(str(sum(x.full_gc for x in seen[n])) for n in SIZES),
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--fill", action="append", choices=FILLS)
    args = parser.parse_args()
    print(machine_line())
    rows = [await shape(fill, args.rounds) for fill in args.fill or FILLS]
    headers = (
        "rows made",
        "100 rows ms",
        "100,000 rows ms",
        "ratio (≤ 1.5×)",
        "per round",
        "AT-SPI calls",
        "app CPU ms",
        "actui CPU ms",
        "looks with a full GC",
    )
    print(table(headers, rows))
    print(machine_line())
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
