"""What every benchmark script shares: series of timings, ratios, tables, machine noise.

A benchmark measures actui and its baseline in the same run, several times,
interleaved, and reports min and median (never a single run, never a mean that
one stall can drag). This module only summarises and prints; it must not
start desktops or talk to applications.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Series:
    """Repeated timings of one thing, in milliseconds."""

    name: str
    ms: list[float] = field(default_factory=list)

    def add(self, value_ms: float) -> None:
        self.ms.append(value_ms)

    @property
    def min(self) -> float:
        return min(self.ms) if self.ms else float("nan")

    @property
    def median(self) -> float:
        return statistics.median(self.ms) if self.ms else float("nan")

    @property
    def max(self) -> float:
        return max(self.ms) if self.ms else float("nan")


class Stopwatch:
    """``with Stopwatch() as w: ...`` then ``w.ms``."""

    def __enter__(self) -> Stopwatch:
        self._start = time.monotonic()
        self.ms = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.ms = (time.monotonic() - self._start) * 1000


def ms(value: float) -> str:
    if value != value:  # NaN: nothing measured
        return "–"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def ratio(baseline: float, ours: float) -> str:
    """How many times faster actui is (baseline / ours), e.g. ``23.4×``."""
    if ours != ours or baseline != baseline or ours <= 0:
        return "–"
    return f"{baseline / ours:.1f}×"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, columns padded so it also reads well in a terminal."""
    cells = [list(headers), *[list(r) for r in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


def series_row(s: Series, *extra: str) -> list[str]:
    return [s.name, str(len(s.ms)), ms(s.min), ms(s.median), ms(s.max), *extra]


SERIES_HEADERS = ("what", "n", "min ms", "median ms", "max ms")


def machine_line() -> str:
    """Load and cores, so a reader can judge the noise behind the numbers."""
    one, five, _ = os.getloadavg()
    return f"machine: {os.cpu_count()} cores, load average {one:.2f} (1 min) {five:.2f} (5 min)"
