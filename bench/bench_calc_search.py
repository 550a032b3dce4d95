"""``search_ui`` of LibreOffice Calc's unread cells: what each search reads, this tree beside
another.

Per tree, a fresh Calc in a sandbox of its own (LibreOffice keeps every cell object
it was asked for, so one tree's searches would weigh on the other's) and a fresh
Python process (``PYTHONPATH`` = that tree's ``src``) that observes the window
and runs ``search_ui`` on that state for each text in turn. For each search:
its ms, the AT-SPI calls it made (``GetAccessibleAt`` apart: each makes soffice a
cell object it never frees, ``kept_cells``), the cell names the backend was asked
to accept and how many it accepted, whether a match was exact, and soffice's RSS
growth over the search.

Run: ``.venv/bin/python bench/bench_calc_search.py --baseline /work/main/src
[--text Z200 --text A ...]``
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from bench_big import rss_mb, started_calc
from bench_calc import OWN_SRC, one_run
from bench_desktop import ok, root_ref
from benchkit import Stopwatch, machine_line, ms, table

import actui.backends.atspi.backend as atspi_backend
from actui.backends.atspi.bus import AtspiBus
from actui.backends.base import RowQuery
from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

SCRIPT = Path(__file__).resolve()
TEXTS = ("Z200", "A", "Total")
"""A cell off screen by its address, a column's letter, a word."""
HEADERS = (
    "tree", "text", "ms", "calls", "GetAccessibleAt", "names asked", "accepted", "exact",
    "soffice growth MB",
)  # fmt: skip


def counting() -> tuple[Counter[str], list[bool]]:
    """AT-SPI calls by member, and each cell name's acceptance, from now on in this process."""
    calls: Counter[str] = Counter()
    accepted: list[bool] = []
    request, cells = AtspiBus.request, atspi_backend.accepted_cells

    def counted(self: AtspiBus, *args: Any, **kwargs: Any) -> Any:
        calls[args[3]] += 1
        return request(self, *args, **kwargs)

    async def noted(bus: AtspiBus, query: RowQuery, *args: Any) -> Any:
        def accepts(name: str) -> bool:
            accepted.append(query.accepts(name))
            return accepted[-1]

        return await cells(bus, dataclasses.replace(query, accepts=accepts), *args)

    AtspiBus.request = counted  # type: ignore[method-assign]
    atspi_backend.accepted_cells = noted  # type: ignore[assignment]
    return calls, accepted


async def child(pid: int, texts: list[str]) -> None:
    """Observe, then each search on that state: a JSON line on stdout."""
    calls, accepted = counting()
    computer = ToolBox(env=dict(os.environ))
    rows = []
    try:
        ref = await root_ref(computer, pid)
        state = ok(await computer.call("observe_ui", {"root": ref, "mode": "semantic"})).details[
            "stateId"
        ]
        for text in texts:
            await asyncio.sleep(1)
            calls.clear()
            accepted.clear()
            before = rss_mb([pid])
            with Stopwatch() as watch:
                found = ok(await computer.call("search_ui", {"stateId": state, "text": text}))
            matches = found.details["matches"]
            assert isinstance(matches, list)
            rows.append(
                {
                    "text": text,
                    "ms": watch.ms,
                    "calls": sum(calls.values()),
                    "at": calls["GetAccessibleAt"],
                    "names": len(accepted),
                    "accepted": sum(accepted),
                    "exact": any(m.get("matchReason") == "exact" for m in matches),
                    "growth": rss_mb([pid]) - before,
                }
            )
    finally:
        await computer.close()
    print(json.dumps({"rows": rows}))


async def one_tree(src: Path, texts: list[str]) -> list[dict[str, Any]]:
    async with Sandbox() as desktop:
        pid = await started_calc(desktop)
        got = await one_run(desktop.env, src, pid, SCRIPT, *(f"--text={t}" for t in texts))
    return list(got["rows"])


async def main(baseline: Path | None, texts: list[str]) -> None:
    trees = [("this", OWN_SRC)] + ([("baseline", baseline)] if baseline else [])
    lines = []
    for name, src in trees:
        for row in await one_tree(src, texts):
            lines.append(
                [
                    name, row["text"], ms(row["ms"]), f"{row['calls']:,}", f"{row['at']:,}",
                    f"{row['names']:,}", f"{row['accepted']:,}", "yes" if row["exact"] else "no",
                    f"{row['growth']:+.1f}",
                ]
            )  # fmt: skip
    print(machine_line())
    print(table(HEADERS, lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="another tree's src, e.g. /work/main/src")
    parser.add_argument("--text", action="append", help="a search text (repeatable)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    chosen = args.text or list(TEXTS)
    if args.child:
        asyncio.run(child(args.child, chosen))
    else:
        asyncio.run(main(args.baseline, chosen))
