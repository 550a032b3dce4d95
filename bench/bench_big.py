"""Showing-first observation: the cost of a look follows what is on screen, not the data.

Three measures, each actui against its reference in the same run:

* ``scale``: cold ``observe_ui`` (a fresh ``ToolBox`` per run, the window found
  untimed) of ``tests/apps/gtk3_big_list.py`` with N rows × 3 columns, for
  N = 100, 1,000, 10,000, 100,000, beside dogtail's ``dump()`` of the same
  window (``baseline_walk.py``, N ≤ ``--dogtail-max``); the app's RSS after
  the runs and this process's peak RSS (actui runs in it).
* ``calc``: cold ``observe_ui`` of LibreOffice Calc and the RSS growth of its
  process (the one behind its window) over the runs (targets ≤ 500 ms, ≤ +50 MB).
* ``search``: ``search_ui`` for the last row of the 100,000-row list on a
  fresh observation: its time and the AT-SPI calls it made.

Run: ``.venv/bin/python bench/bench_big.py [--rounds N] [--only scale|calc|search]``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import resource
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench_desktop import baseline, have_baselines, ok, root_ref
from bench_walk_floor import get_items_ms, recorded_snapshot, replay_bus
from benchkit import Series, Stopwatch, machine_line, ms, ratio, table

from actui.backends.atspi.bus import AtspiBus
from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

APP = Path(__file__).resolve().parents[1] / "tests" / "apps" / "gtk3_big_list.py"
SIZES = (100, 1_000, 10_000, 100_000)
MEASURES = ("scale", "calc", "search")


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            found = re.search(r"^VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
        except OSError:
            continue
        total += int(found.group(1)) if found else 0
    return total / 1024


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def member_of(interface: str, member: str, body: Any) -> str:
    """``GetState``, or ``Get(Value)`` / ``GetAll(Accessible)`` for property reads."""
    if member in ("Get", "GetAll") and body:
        return f"{member}({str(body[0]).rsplit('.', 1)[-1]})"
    return member


@contextmanager
def counted_kinds() -> Iterator[Counter[str]]:
    """Every AT-SPI call actui sends meanwhile, counted by kind (``AtspiBus.request``
    wrapped; :func:`member_of` names the kind)."""
    kinds: Counter[str] = Counter()
    original = AtspiBus.request

    def request(self: AtspiBus, *args: Any, **kwargs: Any) -> Any:
        body = args[5] if len(args) > 5 else kwargs.get("body", ())
        kinds[member_of(args[2], args[3], body)] += 1
        return original(self, *args, **kwargs)

    AtspiBus.request = request  # type: ignore[method-assign]
    try:
        yield kinds
    finally:
        AtspiBus.request = original  # type: ignore[method-assign]


@contextmanager
def counted_calls() -> Iterator[list[int]]:
    """Every AT-SPI call actui sends meanwhile, counted (read once the block ends)."""
    count = [0]
    with counted_kinds() as kinds:
        try:
            yield count
        finally:
            count[0] = sum(kinds.values())


async def cold_observe(env: dict[str, str], pid: int) -> tuple[float, dict[str, Any]]:
    computer = ToolBox(env=env)
    try:
        ref = await root_ref(computer, pid)
        with Stopwatch() as watch:
            observed = ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"}))
        return watch.ms, dict(observed.details)
    finally:
        await computer.close()


IDLE_TICKS = 2
"""CPU ticks (of 1/100 s) an app may use in :data:`IDLE_S` and count as idle."""
IDLE_S = 0.3
QUIET_SAMPLES = 4
"""Idle samples in a row that make an app settled: on a loaded machine a 100,000-row
list still measuring its rows used 2 ticks in one 0.3 s sample (starved, not done) and
10 s more CPU after it, which a look then met as 340 ms of the app's own CPU."""


def cpu_ticks(pid: int) -> int:
    """The process's user + system CPU time so far, in clock ticks (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


async def settled(pid: int, timeout_s: float = 60.0) -> None:
    """Once the process has gone idle. A new GTK 3 list measures its rows' heights in
    idle time after it shows (100,000 of them: seconds on a busy machine), and every
    call waits behind that: a cold look is timed on a settled app, as an agent meets
    one. Idle for :data:`QUIET_SAMPLES` samples in a row, not one."""
    async with asyncio.timeout(timeout_s):
        before, quiet = cpu_ticks(pid), 0
        while quiet < QUIET_SAMPLES:
            await asyncio.sleep(IDLE_S)
            now = cpu_ticks(pid)
            quiet = quiet + 1 if now - before <= IDLE_TICKS else 0
            before = now


async def launched_list(
    desktop: Sandbox, rows: int, fill: str = "before"
) -> asyncio.subprocess.Process:
    """``tests/apps/gtk3_big_list.py`` of ``rows`` rows, registered and settled; ``fill``:
    when it makes its rows (its ``FILLS``)."""
    process = await desktop.launch(["/usr/bin/python3", str(APP), str(rows), fill])
    await desktop.wait_for_app(process.pid)
    computer = ToolBox(env=desktop.env)
    try:
        await root_ref(computer, process.pid)  # its window shows once its rows are made
    finally:
        await computer.close()
    await settled(process.pid)
    return process


def started_list(rows: int) -> Callable[[Sandbox], Awaitable[int]]:
    """:func:`launched_list` as ``bench_calc`` starts its apps: the pid."""

    async def start(desktop: Sandbox) -> int:
        return (await launched_list(desktop, rows)).pid

    return start


async def scale(rounds: int, dogtail_max: int) -> str:
    rows: list[list[str]] = []
    smallest = float("nan")
    async with Sandbox() as desktop:
        for n in SIZES:
            process = await launched_list(desktop, n)
            ours, theirs = Series(f"{n:,} rows"), Series("dogtail")
            nodes = shown = ""
            for _ in range(rounds):
                took, details = await cold_observe(desktop.env, process.pid)
                ours.add(took)
                nodes = str(details["nodeCount"])
                shown = "; ".join(str(w["shown"]["range"]) for w in details.get("windows", []))
                if have_baselines() and n <= dogtail_max:
                    dump = await baseline(desktop.env, "dump", process.pid, repeat=1)
                    theirs.add(dump["runs_ms"][0])
            if n == SIZES[0]:
                smallest = ours.median
            rows.append(
                [
                    f"{n:,}",
                    nodes,
                    shown,
                    ms(ours.median),
                    f"{ours.median / smallest:.2f}",
                    ms(theirs.median),
                    ratio(theirs.median, ours.median),
                    f"{rss_mb([process.pid]):.0f}",
                    f"{peak_mb():.0f}",
                ]
            )
            process.kill()
            await process.wait()
    headers = (
        "rows", "outline nodes", "shown", "actui cold ms (median)", "÷ 100-row",
        "dogtail dump ms", "dogtail ÷ actui", "app RSS MB", "bench peak RSS MB",
    )  # fmt: skip
    return f"scale ({rounds} rounds)\n" + table(headers, rows)


async def calc_pid(computer: ToolBox) -> int:
    """Calc's pid once its window is listed with its accessibility tree (seconds, cold)."""
    for _ in range(180):
        windows = ok(await computer.call("find_roots", {"text": "LibreOffice Calc"})).details[
            "windows"
        ]
        if windows and windows[0]["accessibility"] == "full":
            return int(windows[0]["pid"])
        await asyncio.sleep(0.5)
    raise RuntimeError("LibreOffice Calc showed no accessible window in 90 s")


async def started_calc(desktop: Sandbox) -> int:
    """A new Calc on the desktop, started and settled: its pid."""
    await desktop.launch(["soffice", "--calc", "--norestore", "--nologo"])
    computer = ToolBox(env=desktop.env)
    try:
        pid = await calc_pid(computer)
    finally:
        await computer.close()
    await asyncio.sleep(3)  # the start-up settles
    await settled(pid)  # on a busy machine it takes longer
    return pid


CALC_HEADERS = (
    "what", "min ms", "median ms", "outline nodes", "soffice RSS before MB", "growth MB",
    "of it over the looks MB",
)  # fmt: skip


async def calc(rounds: int) -> str:
    """Each cold look is followed, at the same moment after start, by the floor: one
    ``Cache.GetItems`` to soffice and the look's calls replayed with no dependencies,
    so a slow first look can be told apart from soffice's own warm-up. soffice's growth is
    given over everything and over the looks alone (the floors' reads make cells too)."""
    series = Series("Calc cold observe_ui")
    items, replay = Series("Cache.GetItems round trip"), Series("the look's calls replayed")
    async with Sandbox() as desktop:
        pid = await started_calc(desktop)
        before = rss_mb([pid])
        nodes = ""
        looks = 0.0
        for index in range(rounds):
            ahead = rss_mb([pid])
            took, details = await cold_observe(desktop.env, pid)
            grew = rss_mb([pid]) - ahead
            looks += grew
            series.add(took)
            nodes = str(details["nodeCount"])
            _, recorded = await recorded_snapshot(desktop.env, pid)
            replay.add(await replay_bus(desktop.env, recorded))
            floor, _ = await get_items_ms(desktop.env, str(recorded[0].destination))
            items.add(floor)
            print(
                f"look {index + 1}: {took:.0f} ms, soffice {grew:+.1f} MB; GetItems {floor:.0f} ms",
                file=sys.stderr,
            )
        growth = rss_mb([pid]) - before
        after_keys = await successor_looks(desktop.env, pid, rounds)
    floors = table(
        ("floor, same run", "min ms", "median ms"),
        [[s.name, ms(s.min), ms(s.median)] for s in (items, replay)],
    )
    return (
        f"calc ({rounds} rounds)\n"
        + table(
            CALC_HEADERS,
            [
                [
                    series.name,
                    ms(series.min),
                    ms(series.median),
                    nodes,
                    f"{before:.0f}",
                    f"{growth:+.1f}",
                    f"{looks:+.1f}",
                ]
            ],
        )
        + "\n"
        + floors
        + "\n"
        + after_keys
    )


async def successor_looks(env: dict[str, str], pid: int, rounds: int) -> str:
    """An agent's steps on the sheet on one ``ToolBox``: a keypress (Down, then Up) moves
    the cursor and ``act_ui``'s successor reads the sheet again, then ``observe_ui``; the
    ms and AT-SPI calls of the two together, and soffice's growth over them."""
    series = Series("act_ui keypress + observe_ui, one ToolBox")
    calls = Series("calls")
    computer = ToolBox(env=env)
    try:
        ref = await root_ref(computer, pid)
        state = ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"})).details[
            "stateId"
        ]
        before = rss_mb([pid])
        for index in range(rounds):
            keys = ["Down" if index % 2 == 0 else "Up"]
            pressed = {"stateId": state, "actions": [{"action": "keypress", "keys": keys}]}
            with counted_calls() as count, Stopwatch() as watch:
                ok(await computer.call("act_ui", pressed))
                state = ok(
                    await computer.call("observe_ui", {"root": ref, "mode": "semantic"})
                ).details["stateId"]
            series.add(watch.ms)
            calls.add(count[0])
        growth = rss_mb([pid]) - before
    finally:
        await computer.close()
    return table(
        ("what", "min ms", "median ms", "AT-SPI calls (median)", "soffice growth MB"),
        [[series.name, ms(series.min), ms(series.median), f"{calls.median:.0f}", f"{growth:+.1f}"]],
    )


async def search(rounds: int) -> str:
    rows: list[list[str]] = []
    n = SIZES[-1]
    async with Sandbox() as desktop:
        process = await launched_list(desktop, n)
        for _ in range(rounds):
            computer = ToolBox(env=desktop.env)
            try:
                ref = await root_ref(computer, process.pid)
                observed = ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"}))
                state = observed.details["stateId"]
                with counted_calls() as calls, Stopwatch() as watch:
                    found = ok(
                        await computer.call("search_ui", {"stateId": state, "text": f"Row {n}"})
                    )
                labels = [m["label"] for m in found.details["matches"]]
                unread = found.details.get("unread", [{}])[0]
                rows.append(
                    [
                        ms(watch.ms),
                        str(calls[0]),
                        str(f"Row {n}" in labels),
                        f"{unread.get('searchedRows', 0):,}",
                    ]
                )
            finally:
                await computer.close()
        process.kill()
        await process.wait()
    headers = ("search_ui ms", "AT-SPI calls", "last row found", "rows searched")
    return f"search for the last of {n:,} rows\n" + table(headers, rows)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dogtail-max", type=int, default=10_000)
    parser.add_argument("--only", action="append", choices=MEASURES)
    args = parser.parse_args()
    print(machine_line())
    for measure in args.only or MEASURES:
        if measure == "scale":
            print(await scale(args.rounds, args.dogtail_max))
        elif measure == "calc":
            print(await calc(args.rounds))
        else:
            print(await search(args.rounds))
        sys.stdout.flush()
    print(machine_line())


if __name__ == "__main__":
    asyncio.run(main())
