"""A cold ``observe_ui`` of LibreOffice Calc (or gtk3-widget-factory): this tree beside
another actui tree, and the floor the application sets.

One app in one sandbox; each round, in alternating order, a fresh Python
process per tree (``PYTHONPATH`` = that tree's ``src``) makes one cold
``observe_ui`` (a fresh ``ToolBox``, the window found untimed) and reports
its ms, outline nodes and AT-SPI calls by kind. Then, in this process, the
floor soffice itself sets: one ``Cache.GetItems`` round trip, and this tree's
recorded calls replayed without dependencies through actui's bus
(``bench_walk_floor``), and a warm ``observe_ui`` (the unchanged window again on
one ``ToolBox``: the mirror's tree, no call into the tree, the same outline):
what a look costs actui itself beyond the calls, so GetItems plus it is the
least any cold look producing that outline could take. The app's RSS growth
over everything is reported.
Targets: Calc ≤ 500 ms cold, ≤ +50 MB; gtk3-widget-factory within 2× of one
``GetItems`` round trip (the cache is the whole tree there, so one call is its floor).

Run: ``.venv/bin/python bench/bench_calc.py --baseline /work/main/src [--rounds N]
[--app calc|gtk3-widget-factory|list-100|list-100000]`` (the lists: ``bench_big``'s,
to compare trees on the scale figures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench_big import cold_observe, counted_kinds, rss_mb, started_calc, started_list
from bench_desktop import ok, root_ref
from bench_walk_floor import get_items_ms, recorded_snapshot, replay_bus
from benchkit import Series, Stopwatch, machine_line, ms, table

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

HERE = Path(__file__).resolve().parent
OWN_SRC = HERE.parent / "src"
SCRIPT = Path(__file__).resolve()


async def child(pid: int) -> None:
    """One cold observe in this process: a JSON line on stdout."""
    env = dict(os.environ)
    computer = ToolBox(env=env)
    try:
        await root_ref(computer, pid)  # connected and listed: not timed
    finally:
        await computer.close()
    with counted_kinds() as kinds:
        took, details = await cold_observe(env, pid)
    walk = float(details["timingsMs"]["total_ms"])
    print(json.dumps({"ms": took, "walk": walk, "nodes": details["nodeCount"], "calls": kinds}))


async def one_run(
    env: dict[str, str], src: Path, pid: int, script: Path = SCRIPT, *extra: str
) -> dict[str, Any]:
    """One cold observe by ``script --child pid`` in a fresh process importing ``src``:
    the JSON of its last output line."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        "--child",
        str(pid),
        *extra,
        env={**env, "PYTHONPATH": f"{src}{os.pathsep}{HERE}"},
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    if process.returncode != 0:
        raise RuntimeError(f"the cold observe with {src} failed (exit {process.returncode})")
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


async def warm_observes(env: dict[str, str], pid: int, series: Series, rounds: int) -> None:
    """``rounds`` warm looks after one cold one, on one ``ToolBox``, into ``series``."""
    computer = ToolBox(env=env)
    try:
        ref = await root_ref(computer, pid)
        ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"}))
        for _ in range(rounds):
            with Stopwatch() as watch:
                ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"}))
            series.add(watch.ms)
    finally:
        await computer.close()


def calls_line(calls: dict[str, int]) -> str:
    mix = Counter(calls)
    return f"{sum(mix.values())}: " + ", ".join(f"{n} {m}" for m, n in mix.most_common())


async def started_factory(desktop: Sandbox) -> int:
    """gtk3-widget-factory on the desktop, registered and settled: its pid."""
    process = await desktop.launch(["gtk3-widget-factory"])
    await desktop.wait_for_app(process.pid)
    await asyncio.sleep(1)  # its first frame settles
    return process.pid


APPS = {
    "calc": started_calc,
    "gtk3-widget-factory": started_factory,
    "list-100": started_list(100),
    "list-100000": started_list(100_000),
}


async def compare(baseline: Path, rounds: int, app: str) -> str:
    trees = {"this tree": OWN_SRC, f"baseline {baseline}": baseline}
    series = {name: Series(name) for name in trees}
    walks = {name: Series(name) for name in trees}
    last: dict[str, dict[str, Any]] = {}
    items, replay = Series("Cache.GetItems round trip"), Series("this tree's calls replayed")
    warm = Series("this tree's warm observe_ui (no call into the tree)")
    count = 0
    async with Sandbox() as desktop:
        env = dict(desktop.env)
        pid = await APPS[app](desktop)
        before = rss_mb([pid])
        for index in range(rounds):
            order = list(trees) if index % 2 == 0 else list(reversed(trees))
            for name in order:
                last[name] = await one_run(env, trees[name], pid)
                series[name].add(float(last[name]["ms"]))
                walks[name].add(float(last[name]["walk"]))
        for _ in range(rounds):
            _, recorded = await recorded_snapshot(env, pid)
            replay.add(await replay_bus(env, recorded))
            took, count = await get_items_ms(env, str(recorded[0].destination))
            items.add(took)
        await warm_observes(env, pid, warm, rounds)
        growth = rss_mb([pid]) - before
    rows = [
        [
            name,
            ms(s.min),
            ms(s.median),
            ms(walks[name].median),
            str(last[name]["nodes"]),
            calls_line(last[name]["calls"]),
        ]
        for name, s in series.items()
    ]
    rows += [
        [f"floor: {items.name} ({count} items)", ms(items.min), ms(items.median), "", "", "1"],
        [
            f"floor: {replay.name} without dependencies",
            ms(replay.min),
            ms(replay.median),
            "",
            "",
            str(sum(last["this tree"]["calls"].values())),
        ],
        [f"floor: {warm.name}", ms(warm.min), ms(warm.median), "", "", ""],
    ]
    headers = (
        "what", "min ms", "median ms", "of it the walk, median ms", "outline nodes",
        "AT-SPI calls",
    )  # fmt: skip
    own = series["this tree"]
    note = (
        f"this tree ÷ GetItems: {own.min / items.min:.2f}× min, "
        f"{own.median / items.median:.2f}× median; ÷ (GetItems + warm observe_ui): "
        f"{own.min / (items.min + warm.min):.2f}× min, "
        f"{own.median / (items.median + warm.median):.2f}× median; "
        f"{app} RSS {before:.0f} MB before, {growth:+.1f} MB over all runs"
    )
    return f"{app} cold observe_ui ({rounds} rounds)\n" + table(headers, rows) + "\n" + note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", type=Path, help="another actui tree's src directory")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--app", choices=sorted(APPS), default="calc")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        asyncio.run(child(args.child))
        return
    if args.baseline is None:
        parser.error("--baseline: give the src directory of the actui tree to compare with")
    print(machine_line())
    print(asyncio.run(compare(args.baseline.resolve(), args.rounds, args.app)))
    print(machine_line())


if __name__ == "__main__":
    main()
