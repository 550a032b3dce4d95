"""What the Outbox's write coalescing buys, measured against dbus-fast's own path.

The Outbox (``src/actui/backends/atspi/outbox.py``) reaches into dbus-fast's
private writer to send a loop turn's calls in one socket write; it is kept
only if that is worth its coupling. This runs actui's own ``AtspiBus`` twice
against the same application, changing nothing but how a call leaves:
coalesced (the Outbox) or per call (``MessageBus.send``: one marshal and one
``send`` each, what dbus-fast does on its own). Measured both ways, interleaved:

* replay: the calls of a cold snapshot, recorded once, sent again as
  independent calls through the bus (at most 64 in flight, its bound):
  calls per second, our CPU time, socket writes;
* walk: a cold ``snapshot`` by a fresh backend: its wall and CPU time.

CPU is counted twice: this process's (``time.process_time``) and the private
desktop's (the application, both D-Bus daemons, the X server: every process
carrying the sandbox's token, from ``/proc``), since a write per call costs
the daemon and the application a wake-up each as well.

Run: ``.venv/bin/python bench/bench_outbox.py`` (``--rounds``, ``--app``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench_walk_floor import first_root, recorded_snapshot, send_all
from benchkit import SERIES_HEADERS, Series, machine_line, ms, ratio, series_row, table
from dbus_fast import Message

from actui.backends.atspi import AtspiBackend
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.outbox import Outbox
from actui.backends.linux.sandbox import Sandbox
from actui.backends.linux.sandbox_reaper import TOKEN_VAR, tagged_pids

APPS = ("gtk4-widget-factory", "gtk3-widget-factory")
MODES = ("coalesced", "per call")
CLOCKS = ("wall", "our cpu", "desktop cpu")


class PerCall(Outbox):
    """dbus-fast's own path: every call marshalled and written on its own."""

    def put(self, message: Message) -> None:
        try:
            self._bus.send(message)
        except Exception as exc:  # the same rejection the Outbox reports
            self._rejected(message, exc)


class CountingSocket:
    """The writer's socket, counting ``send`` calls (each one a socket write)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.writes = 0

    def send(self, data: memoryview) -> int:
        self.writes += 1
        return self.sock.send(data)

    def sendmsg(self, *args: object) -> int:
        raise AssertionError("no file descriptors are sent")


async def prepared(bus: AtspiBus, mode: str) -> CountingSocket:
    """Connect ``bus`` and route its calls the ``mode`` way; count its writes."""
    a11y = await bus.a11y()
    writer = a11y._writer
    assert writer is not None
    if mode == "per call":
        bus._outbox = PerCall(a11y, bus._unsendable)  # the benchmark's only change
    counting = CountingSocket(writer.sock)
    writer.sock = counting
    return counting


TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def desktop_cpu_ms(env: dict[str, str]) -> float:
    """User + system CPU so far of every process of the private desktop."""
    total = 0
    for pid in tagged_pids(env[TOKEN_VAR]):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue  # exited meanwhile
        fields = stat.rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total * TICK_MS


class Timed:
    """Wall and CPU milliseconds (ours, the desktop's) of one awaited run."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.wall_ms = self.cpu_ms = self.desktop_ms = 0.0

    async def run(self, work: Callable[[], Awaitable[object]]) -> None:
        desktop = desktop_cpu_ms(self.env)
        wall, cpu = time.monotonic(), time.process_time()
        await work()
        self.wall_ms = (time.monotonic() - wall) * 1000
        self.cpu_ms = (time.process_time() - cpu) * 1000
        self.desktop_ms = desktop_cpu_ms(self.env) - desktop


async def replay(env: dict[str, str], calls: list[Message], mode: str) -> tuple[Timed, int]:
    bus = AtspiBus(env)
    try:
        counting = await prepared(bus, mode)
        timed = Timed(env)
        await timed.run(lambda: send_all(bus, calls))
    finally:
        await bus.close()
    return timed, counting.writes


async def walk(env: dict[str, str], pid: int, mode: str) -> tuple[Timed, int]:
    backend = AtspiBackend(env)
    try:
        root = await first_root(backend, pid)
        counting = await prepared(backend._bus, mode)
        await backend._bus.ensure_events()
        before = counting.writes
        timed = Timed(env)
        await timed.run(lambda: backend.snapshot(root, max_nodes=4096, max_depth=64))
    finally:
        await backend.close()
    return timed, counting.writes - before


async def measure(app: str, rounds: int) -> str:
    series = {
        (what, mode, clock): Series(f"{what}, {mode}, {clock}")
        for what in ("replay", "walk")
        for mode in MODES
        for clock in CLOCKS
    }
    writes: dict[tuple[str, str], int] = {}
    async with Sandbox() as desktop:
        env = dict(desktop.env)
        process = await desktop.launch([app])
        await desktop.wait_for_app(process.pid)
        # the app creates its accessibles on the first walk: not timed
        _, calls = await recorded_snapshot(env, process.pid)
        for index in range(rounds):
            for mode in MODES if index % 2 else MODES[::-1]:  # the machine drifts
                for what in ("replay", "walk"):
                    if what == "replay":
                        timed, count = await replay(env, calls, mode)
                    else:
                        timed, count = await walk(env, process.pid, mode)
                    series[(what, mode, "wall")].add(timed.wall_ms)
                    series[(what, mode, "our cpu")].add(timed.cpu_ms)
                    series[(what, mode, "desktop cpu")].add(timed.desktop_ms)
                    writes[(what, mode)] = count
    rows = []
    for (what, mode, clock), s in series.items():
        other = series[(what, "per call", clock)]
        rows.append(series_row(s, str(writes[(what, mode)]), ratio(other.median, s.median)))
    rate = {mode: len(calls) / (series[("replay", mode, "wall")].median / 1000) for mode in MODES}
    notes = [
        f"calls per cold snapshot: {len(calls)}",
        "replay calls/s (median): "
        + ", ".join(f"{mode} {rate[mode]:.0f}" for mode in MODES)
        + f" ({rate['coalesced'] / rate['per call']:.2f}×)",
        "walk cpu medians, coalesced vs per call: ours "
        f"{ms(series[('walk', 'coalesced', 'our cpu')].median)} vs "
        f"{ms(series[('walk', 'per call', 'our cpu')].median)} ms, the desktop's "
        f"{ms(series[('walk', 'coalesced', 'desktop cpu')].median)} vs "
        f"{ms(series[('walk', 'per call', 'desktop cpu')].median)} ms",
    ]
    headers = (*SERIES_HEADERS, "socket writes (last run)", "per call / this (median)")
    return f"### write coalescing — {app}\n\n" + "\n".join([table(headers, rows), "", *notes])


async def run(apps: list[str], rounds: int) -> None:
    for app in apps:
        print(await measure(app, rounds) + "\n", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description="the Outbox's coalescing vs a write per call")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--app", choices=APPS, action="append")
    args = parser.parse_args()
    print("## AT-SPI write coalescing\n")
    print(machine_line() + "\n", flush=True)
    asyncio.run(run(args.app or [APPS[0]], args.rounds))
    print(machine_line() + " (at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
