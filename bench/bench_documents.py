"""A Writer document of 1 page and of 200 pages: a look costs what the screen shows.

Writer's page (``document text``) holds as children only the paragraphs on screen;
the rest is reached on demand. Per document, in one run, each in a sandbox and a
soffice of its own:

* cold ``observe_ui`` (a fresh ``ToolBox`` per round, the window found untimed):
  ms and outline nodes; the 200-page look divided by the 1-page one (target ≤ 1.5);
* ``search_ui`` for a phrase at the end of the last page on a fresh look (the caret on
  page 1), then ``read_text`` of the paragraph it found: AT-SPI calls (the most frequent
  kinds too) and ms of each (Writer 7.4 lists only the paragraphs on screen: a search
  reaches the others by scrolling the view down a screen at a time, ``page_scan``);
* the same after ``ctrl+End``, the key a person uses to bring the last page on screen:
  the key's act, then the search and the read, calls and ms;
* dogtail's ``dump()`` of the same window (``baseline_walk.py``; run
  ``bench/setup_baselines.sh`` once), when the baselines are installed.

With ``--baseline SRC`` every document is measured once with this tree's ``src`` and
once with ``SRC`` (another actui tree), each in a process of its own, in alternating
order, in one run: before and after side by side.

Run: ``.venv/bin/python bench/bench_documents.py [--rounds N] [--baseline /work/main/src]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench_big import counted_kinds, settled
from bench_desktop import baseline, have_baselines, ok
from benchkit import Series, Stopwatch, machine_line, ms, ratio, table

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

HERE = Path(__file__).resolve().parent
OWN_SRC = HERE.parent / "src"
SCRIPT = Path(__file__).resolve()

WRITER = Path(__file__).resolve().parents[1] / "tests" / "apps" / "long_document.py"
PHRASE = "purple elephants dance at dawn"
PARAGRAPHS = {"1 page": 3, "200 pages": 5_000}
"""Paragraphs of about two lines each (25 to an A4 page)."""


def written(path: Path, paragraphs: int) -> None:
    """The document at ``path`` (``tests/apps/long_document.py``)."""
    argv = ["/usr/bin/python3", str(WRITER), str(path), str(paragraphs), PHRASE]
    subprocess.run(argv, check=True)


async def window(computer: ToolBox, title: str) -> tuple[str, int]:
    """The document's window ref and soffice's pid, once listed (a cold start: seconds)."""
    for _ in range(240):
        windows = ok(await computer.call("find_roots", {"text": title})).details["windows"]
        found = [w for w in windows if title in str(w["windowTitle"])]
        if found and found[0]["accessibility"] == "full":
            return str(found[0]["windowRef"]), int(found[0]["pid"])
        await asyncio.sleep(0.5)
    raise RuntimeError(f"Writer showed no window titled {title!r} in 120 s")


async def measure(path: Path, rounds: int) -> dict[str, str]:
    looks, dumps = Series("cold observe_ui"), Series("dogtail dump")
    figures: dict[str, str] = {}
    async with Sandbox() as desktop:
        await desktop.launch(["soffice", "--writer", "--norestore", "--nologo", str(path)])
        computer = ToolBox(env=desktop.env)
        try:
            ref, pid = await window(computer, path.name)
        finally:
            await computer.close()
        await asyncio.sleep(3)  # the start-up settles
        await settled(pid)
        for _ in range(rounds):
            computer = ToolBox(env=desktop.env)
            try:
                ref, _ = await window(computer, path.name)
                with Stopwatch() as watch:
                    observed = ok(
                        await computer.call("observe_ui", {"root": ref, "mode": "semantic"})
                    )
                looks.add(watch.ms)
                figures["nodes"] = str(observed.details["nodeCount"])
            finally:
                await computer.close()
            if have_baselines():
                dumps.add((await baseline(desktop.env, "dump", pid, repeat=1))["runs_ms"][0])
        computer = ToolBox(env={**desktop.env, "ACTUI_HEADLESS": "0"})
        try:
            ref, _ = await window(computer, path.name)
            state = str(ok(await computer.call("observe_ui", {"root": ref})).details["stateId"])
            figures["search"], figures["read"] = await searched(computer, state)
            # the last page put on screen as a person does (ctrl+End), then the same search
            state = str(ok(await computer.call("observe_ui", {"root": ref})).details["stateId"])
            with counted_kinds() as calls, Stopwatch() as watch:
                keys = {"action": "keypress", "keys": ["ctrl", "End"]}
                acted = ok(await computer.call("act_ui", {"stateId": state, "actions": [keys]}))
            moved = f"ctrl+End {sum(calls.values()):,} calls, {ms(watch.ms)} ms; "
            found, read = await searched(computer, str(acted.details["stateId"]))
            figures["paged"], figures["paged_read"] = moved + found, read
        finally:
            await computer.close()
    figures["look"] = ms(looks.median)
    figures["look_ms"] = str(looks.median)
    figures["dogtail"] = ms(dumps.median) if dumps.ms else "n/a"
    figures["dogtail_ratio"] = ratio(dumps.median, looks.median) if dumps.ms else "n/a"
    return figures


def calls_text(kinds: Counter[str]) -> str:
    """``7,189 calls (1,683 GetState, 1,683 GetRole, …)``: the total and the top kinds."""
    top = ", ".join(f"{n:,} {kind}" for kind, n in kinds.most_common(4))
    return f"{sum(kinds.values()):,} calls ({top})"


MAX_SEARCHES = 5
"""Searches at most for one phrase: a search that ran out of time scrolling a document
says ``search_ui again ... goes on from there``, and an agent does."""


async def searched(computer: ToolBox, state: str) -> tuple[str, str]:
    """``search_ui`` for the phrase in ``state`` (again while it says it ran out of time
    scrolling, as an agent does), then ``read_text`` of the first match: what each found,
    its AT-SPI calls and ms."""
    searches = 0
    with counted_kinds() as calls, Stopwatch() as watch:
        while searches < MAX_SEARCHES:
            searches += 1
            found = ok(await computer.call("search_ui", {"stateId": state, "text": PHRASE}))
            state = str(found.details["stateId"])
            slow = any(u.get("stoppedSlow") for u in found.details.get("unread", []))
            if found.details["matches"] or not slow:
                break
    matches = found.details["matches"]
    again = f" in {searches} searches" if searches > 1 else ""
    search = f"{len(matches)} found{again}, {calls_text(calls)}, {ms(watch.ms)} ms"
    if not matches:
        return search, "nothing found to read"
    with counted_kinds() as calls, Stopwatch() as watch:
        read = ok(await computer.call("read_text", {"stateId": state, "ref": matches[0]["ref"]}))
    assert PHRASE in read.text, read.text
    return search, f"{sum(calls.values()):,} calls, {ms(watch.ms)} ms"


async def child(path: Path, rounds: int) -> None:
    """One document measured in this process (its ``PYTHONPATH``'s actui): a JSON line."""
    print(json.dumps(await measure(path, rounds)))


async def measured_with(src: Path, path: Path, rounds: int) -> dict[str, str]:
    """``path`` measured by this script in a fresh process importing ``src``."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(SCRIPT), "--child", str(path),
        "--rounds", str(rounds),
        env={**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{HERE}"},
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 900)
    if process.returncode != 0:
        raise RuntimeError(f"measuring {path.name} with {src} failed (exit {process.returncode})")
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another actui tree's src directory")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        await child(args.child, args.rounds)
        return
    trees = {"this tree": OWN_SRC}
    if args.baseline is not None:
        trees[f"baseline {args.baseline}"] = args.baseline.resolve()
    rows, looks = [], {}
    with tempfile.TemporaryDirectory() as folder:
        for index, (name, paragraphs) in enumerate(PARAGRAPHS.items()):
            order = list(trees) if index % 2 == 0 else list(reversed(trees))
            for turn, tree in enumerate(order):
                # a copy each: a killed soffice leaves its lock file beside the document,
                # and the next one to open it asks whether to open it read-only
                path = Path(folder) / f"{index}-{turn}" / f"{name.replace(' ', '-')}.fodt"
                path.parent.mkdir()
                written(path, paragraphs)
                got = await measured_with(trees[tree], path, args.rounds)
                looks[(tree, name)] = float(got["look_ms"])
                rows.append(
                    [name, tree, got["nodes"], got["look"], got["search"], got["read"],
                     got["paged"], got["paged_read"], got["dogtail"], got["dogtail_ratio"]]
                )  # fmt: skip
    headers = (
        "document", "actui", "outline nodes", "cold observe_ui ms (median)",
        "search_ui for the last phrase", "read_text of it",
        "after ctrl+End: search_ui", "read_text of it", "dogtail dump ms",
        "dogtail ÷ actui",
    )  # fmt: skip
    print(machine_line())
    print(f"Writer documents ({args.rounds} rounds)\n" + table(headers, rows))
    for tree in trees:
        ratio_ = looks[(tree, "200 pages")] / looks[(tree, "1 page")]
        print(f"{tree}: 200 pages ÷ 1 page, cold look: {ratio_:.2f}")
    print(machine_line())


if __name__ == "__main__":
    asyncio.run(main())
