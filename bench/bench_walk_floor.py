"""How close actui's cold walk comes to the floor the application itself sets.

The calls a cold ``snapshot`` makes are recorded from actui's connection, then
replayed as independent calls, at most 64 in flight, the bound actui keeps:
through a fresh ``AtspiBus`` of actui's (writes coalesced per loop turn), and
through a separate, bare dbus-fast client (``raw_atspi``, one write per call).
The replay has no dependencies between calls (a walk must read a node before
its children, and its extents before deciding what its children need), so
through the same transport it is the fastest the application answers those
calls: the floor under any walk that makes them.
Each round alternates which goes first. Run: ``.venv/bin/python
bench/bench_walk_floor.py`` (``--rounds``, ``--app``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchkit import SERIES_HEADERS, Series, Stopwatch, machine_line, ratio, series_row, table
from dbus_fast import Message
from raw_atspi import RawAtspi

from actui.backends.atspi import AtspiBackend
from actui.backends.atspi.bus import AtspiBus
from actui.backends.base import RootInfo
from actui.backends.linux.sandbox import Sandbox

IN_FLIGHT = 64
APPS = ("gtk4-widget-factory", "gtk3-widget-factory")


async def send_all(bus: AtspiBus, calls: Sequence[Message]) -> None:
    """Send recorded calls all at once, as the walk's floor: no call waits for another."""
    await asyncio.gather(
        *(
            bus.request(
                m.destination or "",
                m.path or "",
                m.interface or "",
                m.member or "",
                m.signature,
                m.body,
            )
            for m in calls
        ),
        return_exceptions=True,
    )


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


async def replay_plain(env: dict[str, str], calls: list[Message]) -> float:
    """The same calls, independent, at most ``IN_FLIGHT`` at once, through plain
    dbus-fast (one socket write per call): their ms."""
    raw = await RawAtspi.connect(env)
    bound = asyncio.Semaphore(IN_FLIGHT)

    async def one(message: Message) -> None:
        async with bound:
            await raw.send(message)

    fresh = [_copy(m) for m in calls]
    try:
        with Stopwatch() as watch:
            await asyncio.gather(*(one(m) for m in fresh))
    finally:
        raw.close()
    return watch.ms


async def replay_bus(env: dict[str, str], calls: list[Message]) -> float:
    """The same calls, independent, through actui's own bus (the same bound of
    ``IN_FLIGHT``, writes coalesced per loop turn): their ms."""
    bus = AtspiBus(env)
    await bus.a11y()
    try:
        with Stopwatch() as watch:
            await send_all(bus, calls)
    finally:
        await bus.close()
    return watch.ms


def _copy(message: Message) -> Message:
    """A sent message keeps its serial: send a fresh one."""
    m = message
    return _message(m.destination, m.path, m.interface, m.member, m.signature, m.body)


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


async def get_items_ms(env: dict[str, str], destination: str) -> tuple[float, int]:
    raw = await RawAtspi.connect(env)
    try:
        started = time.perf_counter()
        (items,) = await raw.send(
            Message(
                destination=destination,
                path="/org/a11y/atspi/cache",
                interface="org.a11y.atspi.Cache",
                member="GetItems",
            )
        )
        return (time.perf_counter() - started) * 1000, len(items)
    finally:
        raw.close()


async def measure(app: str, rounds: int) -> str:
    walk = Series("actui cold snapshot (backend, fresh connection)")
    floor = Series(f"the same calls replayed independently through actui's bus, ≤ {IN_FLIGHT}")
    plain = Series(f"the same, through plain dbus-fast (a write per call), ≤ {IN_FLIGHT}")
    flat = Series("the same but GetExtents (a look without geometry), through actui's bus")
    items = Series("one Cache.GetItems round trip")
    mix: Counter[str] = Counter()
    async with Sandbox() as desktop:
        env = dict(desktop.env)
        process = await desktop.launch([app])
        await desktop.wait_for_app(process.pid)
        # the app creates its accessibles on the first walk: not timed
        _, calls = await recorded_snapshot(env, process.pid)
        for index in range(rounds):
            # each round in another order: the app and machine drift
            order = (0, 1, 2, 3, 4) if index % 2 else (4, 3, 2, 1, 0)
            for which in order:
                if which == 0:
                    took, calls = await recorded_snapshot(env, process.pid)
                    walk.add(took)
                    mix = Counter(str(m.member) for m in calls)
                elif which == 1:
                    floor.add(await replay_bus(env, calls))
                elif which == 2:
                    plain.add(await replay_plain(env, calls))
                elif which == 3:
                    flat.add(await replay_bus(env, [m for m in calls if m.member != "GetExtents"]))
                else:
                    items.add((await get_items_ms(env, str(calls[0].destination)))[0])
    every = (walk, floor, plain, flat, items)
    rows = [series_row(s, ratio(floor.median, s.median)) for s in every]
    calls_line = ", ".join(f"{n} {member}" for member, n in mix.most_common())
    notes = [
        f"calls per cold snapshot: {sum(mix.values())} ({calls_line})",
        "the walk's median over the floor's shows what the walk's order and overhead cost "
        "beyond the application's own answering time; the plain row, what coalescing writes "
        "saves; the row without GetExtents, the least a look that reads no element's "
        "geometry (reading order, what a scrolled view shows) could take beside GetItems",
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
