"""Where a cold ``observe_ui``'s time goes between its calls (not a timing benchmark).

One app in one sandbox; each round a fresh Python process makes one cold
``observe_ui`` (a fresh ``ToolBox``, the window found untimed, as
``bench_calc`` times it) with every ``AtspiBus.request`` watched: when it was
asked, when it left the backlog, when its reply settled it. Reported per look:
wall time, this process's CPU time in it, the snapshot's phases (``timingsMs``),
the time from the snapshot's end to the result (outline, render), the share of
the wall time with no call of ours out at the application (spent in this
process or waiting on nothing), the calls' "waves" (a call's wave is one more
than that of the latest reply settled before it was asked: the length of the
longest chain of round trips in series), the most calls out at once, and the
collections the garbage collector ran. ``--cprofile N`` prints the N costliest
functions of the last look too.

Run: ``.venv/bin/python bench/profile_cold.py [--app gtk3-widget-factory|calc|...]
[--rounds N] [--cprofile N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench_calc import APPS, one_run
from bench_desktop import ok, root_ref
from benchkit import machine_line

from actui.backends.atspi import snapshot as snapshot_module
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.outbox import Outbox
from actui.backends.atspi.snapshot import SnapshotReader
from actui.backends.linux.sandbox import Sandbox
from actui.outline import model as model_module
from actui.outline import view as view_module
from actui.tools.dispatch import ToolBox

HERE = Path(__file__).resolve().parent
OWN_SRC = HERE.parent / "src"
SCRIPT = Path(__file__).resolve()


class Watch:
    """Every request's times (perf_counter seconds) and wave, while ``on``."""

    def __init__(self) -> None:
        self.on = False
        self.calls: list[dict[str, Any]] = []
        self.wave = 0
        self.flushes: list[float] = []
        self.snapshot_began = self.snapshot_ended = 0.0
        self.cpu: dict[str, float] = {}
        self.tasks = 0
        """Tasks the walk's task groups started."""
        """The wave of the latest reply settled so far."""

    def cpu_of(self, module: Any, name: str) -> None:
        """Add the CPU time of every call of ``module.name`` (synchronous) to ``self.cpu``."""
        original = getattr(module, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            began = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                if self.on:
                    spent = (time.process_time() - began) * 1000
                    self.cpu[name] = self.cpu.get(name, 0.0) + spent

        for holder in list(sys.modules.values()):
            if getattr(holder, name, None) is original:
                setattr(holder, name, counted)

    def install(self) -> None:
        original = AtspiBus.request
        watch = self

        def request(bus: AtspiBus, *args: Any, **kwargs: Any) -> Any:
            future = original(bus, *args, **kwargs)
            if not watch.on:
                return future
            call = {"member": args[3], "asked": time.perf_counter(), "wave": watch.wave + 1}
            watch.calls.append(call)

            def settled(_: Any) -> None:
                call["replied"] = time.perf_counter()
                watch.wave = max(watch.wave, call["wave"])

            future.add_done_callback(settled)
            return future

        AtspiBus.request = request  # type: ignore[method-assign]
        flush = Outbox._flush

        def flushed(outbox: Outbox) -> None:
            began = time.perf_counter()
            flush(outbox)
            if watch.on:
                watch.flushes.append(time.perf_counter() - began)

        Outbox._flush = flushed  # type: ignore[method-assign]
        spawn = asyncio.TaskGroup.create_task

        def spawned(group: asyncio.TaskGroup, *args: Any, **kwargs: Any) -> Any:
            if watch.on:
                watch.tasks += 1
            return spawn(group, *args, **kwargs)

        asyncio.TaskGroup.create_task = spawned  # type: ignore[method-assign]
        snapshot = SnapshotReader.snapshot

        async def timed(reader: SnapshotReader, *args: Any, **kwargs: Any) -> Any:
            watch.snapshot_began = time.perf_counter()
            try:
                return await snapshot(reader, *args, **kwargs)
            finally:
                watch.snapshot_ended = time.perf_counter()

        SnapshotReader.snapshot = timed  # type: ignore[method-assign]
        if os.environ.get("DUMP_ITEMS"):
            index = snapshot_module.index_cache

            def dumped(items: list[Any]) -> Any:
                import pickle

                Path(os.environ["DUMP_ITEMS"]).write_bytes(pickle.dumps(items))
                return index(items)

            snapshot_module.index_cache = dumped
        for name in ("index_cache", "_assemble", "_records", "_prefetch"):
            watch.cpu_of(snapshot_module, name)
        watch.cpu_of(view_module, "render_view")
        watch.cpu_of(model_module, "build_outline")


def busy_ticks() -> tuple[int, int]:
    """The machine's busy and idle CPU ticks so far, all cores (``/proc/stat``)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields[:8]) - idle, idle


def idle_share(calls: list[dict[str, Any]], start: float, end: float) -> float:
    """The share of ``start``..``end`` with none of ``calls`` out (asked, not yet settled)."""
    spans = sorted((c["asked"], c.get("replied", end)) for c in calls)
    covered, reach = 0.0, start
    for a, b in spans:
        a, b = max(a, reach), min(b, end)
        if b > a:
            covered += b - a
            reach = b
    return 1 - covered / (end - start)


def most_out(calls: list[dict[str, Any]], end: float) -> int:
    edges = sorted([(c["asked"], 1) for c in calls] + [(c.get("replied", end), -1) for c in calls])
    out = top = 0
    for _, step in edges:
        out += step
        top = max(top, out)
    return top


async def child(pid: int, top: int) -> None:
    """One watched cold look in this process: a JSON line on stdout."""
    watch = Watch()
    watch.install()
    env = dict(os.environ)
    computer = ToolBox(env=env)
    try:
        await root_ref(computer, pid)
    finally:
        await computer.close()
    if os.environ.get("TWICE"):
        computer = ToolBox(env=env)
        try:
            ok(
                await computer.call(
                    "observe_ui", {"root": await root_ref(computer, pid), "mode": "semantic"}
                )
            )
        finally:
            await computer.close()
    sampler = None
    if os.environ.get("SAMPLE"):
        sys.path.insert(0, "/tmp")
        from sampler import Sampler

        sys.setswitchinterval(0.0002)
        sampler = Sampler()
        for _ in range(int(os.environ["SAMPLE"])):
            computer = ToolBox(env=env)
            try:
                ref = await root_ref(computer, pid)
                sampler.on = True
                ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"}))
                sampler.on = False
            finally:
                await computer.close()
        print(sampler.report(), file=sys.stderr)
    computer = ToolBox(env=env)
    profile = cProfile.Profile(time.process_time) if top else None
    try:
        ref = await root_ref(computer, pid)
        collections = [s["collections"] for s in gc.get_stats()]
        watch.on = True
        ticks = busy_ticks()
        cpu, start = time.process_time(), time.perf_counter()
        if profile is not None:
            profile.enable()
        result = ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"}))
        if profile is not None:
            profile.disable()
        end, cpu = time.perf_counter(), time.process_time() - cpu
        busy, idle = (b - a for a, b in zip(ticks, busy_ticks(), strict=True))
        watch.on = False
    finally:
        await computer.close()
    gcs = [s["collections"] - c for s, c in zip(gc.get_stats(), collections, strict=True)]
    calls = watch.calls
    timings = result.details["timingsMs"]
    last_reply = max((c.get("replied", start) for c in calls), default=start)
    report = {
        "ms": (end - start) * 1000,
        "cpu_ms": cpu * 1000,
        "snapshot": {k: round(float(v), 1) for k, v in timings.items()},
        "after_last_reply_ms": (end - last_reply) * 1000,
        "first_call_ms": (min((c["asked"] for c in calls), default=end) - start) * 1000,
        "idle": idle_share(calls, start, end),
        "calls": len(calls),
        "waves": max((c["wave"] for c in calls), default=0),
        "most_out": most_out(calls, end),
        "gc": gcs,
        "before_snapshot_ms": (watch.snapshot_began - start) * 1000,
        "after_snapshot_ms": (end - watch.snapshot_ended) * 1000,
        "machine_busy": busy / max(1, busy + idle),
        "cpu_in": {k: round(v, 2) for k, v in watch.cpu.items()},
        "walk_tasks": watch.tasks,
        "writes": len(watch.flushes),
        "writes_ms": sum(watch.flushes) * 1000,
    }
    if os.environ.get("WAVES"):
        by: dict[int, list[dict[str, Any]]] = {}
        for c in calls:
            by.setdefault(c["wave"], []).append(c)
        for w, cs in sorted(by.items()):
            from collections import Counter

            kinds = Counter(c["member"] for c in cs)
            a = min(c["asked"] for c in cs) - start
            b = max(c.get("replied", end) for c in cs) - start
            print(
                f"wave {w}: {len(cs)} calls {a * 1000:.1f}-{b * 1000:.1f} ms {dict(kinds)}",
                file=sys.stderr,
            )
    print(json.dumps(report))
    if profile is not None:
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats(
            os.environ.get("SORT", "tottime")
        ).print_stats(top)
        print(text.getvalue(), file=sys.stderr)


async def profile(app: str, rounds: int, top: int, src: Path) -> None:
    async with Sandbox() as desktop:
        env = dict(desktop.env)
        pid = await APPS[app](desktop)
        runs = []
        for index in range(rounds):
            last = index == rounds - 1
            runs.append(await one_run(env, src, pid, SCRIPT, "--cprofile", str(top if last else 0)))
            print(json.dumps(runs[-1]), flush=True)
    for key in (
        "ms",
        "cpu_ms",
        "before_snapshot_ms",
        "after_snapshot_ms",
        "writes_ms",
        "machine_busy",
        "first_call_ms",
        "idle",
        "waves",
    ):
        values = [float(r[key]) for r in runs]
        print(f"{key}: min {min(values):.2f}, median {statistics.median(values):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--app", choices=sorted(APPS), default="gtk3-widget-factory")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cprofile", type=int, default=0)
    parser.add_argument("--src", type=Path, default=OWN_SRC, help="the actui tree's src")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        asyncio.run(child(args.child, args.cprofile))
        return
    print(machine_line())
    asyncio.run(profile(args.app, args.rounds, args.cprofile, args.src.resolve()))
    print(machine_line())


if __name__ == "__main__":
    main()
