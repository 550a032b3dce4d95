"""How close actui's cold walk comes to the floor the application itself sets.

The calls a cold ``snapshot`` makes are recorded from actui's connection, then
replayed by a separate, bare dbus-fast client (``raw_atspi``) as independent
calls, at most 64 in flight, the bound actui keeps. The replay has no
dependencies between calls (a walk must read a node before its children, and
its extents before deciding what its children need), so it is the fastest the
application answers those calls: the floor under any walk that makes them.
Each round alternates which goes first. Run: ``.venv/bin/python
bench/bench_walk_floor.py`` (``--rounds``, ``--app``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchkit import SERIES_HEADERS, Series, Stopwatch, machine_line, ratio, series_row, table
from dbus_fast import Message
from raw_atspi import RawAtspi

from actui.backends.atspi import AtspiBackend
from actui.backends.base import RootInfo
from actui.sandbox import Sandbox

IN_FLIGHT = 64
APPS = ("gtk4-widget-factory", "gtk3-widget-factory")


async def recorded_snapshot(env: dict[str, str], pid: int) -> tuple[float, list[Message]]:
    """A cold snapshot by a fresh backend: its ms and the calls it made."""
    backend = AtspiBackend(env)
    calls: list[Message] = []
    try:
        root = await first_root(backend, pid)
        bus = backend._bus  # the benchmark only watches; actui is not changed
        send = bus.request

        def record(
            destination: str,
            path: str,
            interface: str,
            member: str,
            signature: str = "",
            body: Sequence[Any] = (),
            **kwargs: Any,
        ) -> Any:
            calls.append(_message(destination, path, interface, member, signature, body))
            return send(destination, path, interface, member, signature, body, **kwargs)

        bus.request = record  # type: ignore[method-assign]
        with Stopwatch() as watch:
            await backend.snapshot(root, max_nodes=4096, max_depth=64)
    finally:
        await backend.close()
    return watch.ms, calls


async def first_root(backend: AtspiBackend, pid: int) -> RootInfo:
    async with asyncio.timeout(20):
        while True:
            roots = await backend.list_roots(pid=pid)
            if roots:
                return roots[0]
            await asyncio.sleep(0.05)


async def replay(env: dict[str, str], calls: list[Message]) -> float:
    """The same calls, independent, at most ``IN_FLIGHT`` at once: their ms."""
    raw = await RawAtspi.connect(env)
    bound = asyncio.Semaphore(IN_FLIGHT)

    async def one(message: Message) -> None:
        async with bound:
            await raw.send(message)

    try:
        # a sent message keeps its serial: send copies
        fresh = [
            _message(m.destination, m.path, m.interface, m.member, m.signature, m.body)
            for m in calls
        ]
        with Stopwatch() as watch:
            await asyncio.gather(*(one(m) for m in fresh))
    finally:
        raw.close()
    return watch.ms


def _message(
    destination: str | None,
    path: str | None,
    interface: str | None,
    member: str | None,
    signature: str,
    body: Sequence[Any],
) -> Message:
    return Message(
        destination=destination,
        path=path,
        interface=interface,
        member=member,
        signature=signature,
        body=list(body),
    )


async def measure(app: str, rounds: int) -> str:
    walk = Series("actui cold snapshot (backend, fresh connection)")
    floor = Series(f"the same calls replayed independently, ≤ {IN_FLIGHT} in flight")
    mix: Counter[str] = Counter()
    async with Sandbox() as desktop:
        env = dict(desktop.env)
        process = await desktop.launch([app])
        await desktop.wait_for_app(process.pid)
        # the app creates its accessibles on the first walk: not timed
        _, calls = await recorded_snapshot(env, process.pid)
        for index in range(rounds):
            if index % 2:
                floor.add(await replay(env, calls))
            took, calls = await recorded_snapshot(env, process.pid)
            walk.add(took)
            mix = Counter(m.member for m in calls)
            if not index % 2:
                floor.add(await replay(env, calls))
    rows = [
        series_row(walk, ratio(floor.median, walk.median)),
        series_row(floor, "1.0×"),
    ]
    calls_line = ", ".join(f"{n} {member}" for member, n in mix.most_common())
    notes = [
        f"calls per cold snapshot: {sum(mix.values())} ({calls_line})",
        "the walk's median over the floor's shows what the walk's order and overhead cost "
        "beyond the application's own answering time",
    ]
    headers = (*SERIES_HEADERS, "floor / actui (median)")
    return f"### cold walk vs its call floor — {app}\n\n" + "\n".join(
        [table(headers, rows), "", *notes]
    )


async def run(apps: list[str], rounds: int) -> None:
    for app in apps:
        print(await measure(app, rounds) + "\n", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description="actui's cold walk vs the calls' floor")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--app", choices=APPS, action="append")
    args = parser.parse_args()
    print("## AT-SPI walk floor\n")
    print(machine_line() + "\n", flush=True)
    asyncio.run(run(args.app or list(APPS), args.rounds))
    print(machine_line() + " (at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
