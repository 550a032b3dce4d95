"""Success rate per MiniWoB++ task of the rule-based agent, over many seeds, through MCP.

Not part of the test suite. Run: ``.venv/bin/python bench/miniwob_success.py [--seeds N]``
(needs chromium and ``pip install --no-deps miniwob==1.1.0``). Prints one row
per task: episodes with a positive reward, mean raw reward, and mean seconds
per episode (MCP calls included), plus the first failure's log.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))

from miniwob_agent import (
    TASKS,
    launch,
    mcp_tools,
    miniwob_html,
    no_desktop_env,
    run_episode,
)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--tasks", default=",".join(TASKS))
    args = parser.parse_args()
    pages = miniwob_html()
    if pages is None:
        print("install the pages first: .venv/bin/pip install --no-deps miniwob==1.1.0")
        return 2
    rows = [
        "| task | success | mean raw reward | s / episode | first failure |",
        "|---|---|---|---|---|",
    ]
    total = wins = 0
    async with mcp_tools(no_desktop_env()) as tools:
        episode = await launch(tools)
        for task in args.tasks.split(","):
            await episode.open(task, pages)
            raws, times, failure = [], [], ""
            for seed in range(1, args.seeds + 1):
                started = time.perf_counter()
                try:
                    reward = await run_episode(episode, task, seed)
                    raw = reward.raw if reward.done else 0.0
                except Exception as exc:  # a solver failure counts as a lost episode
                    raw, reward = 0.0, None
                    failure = failure or f"seed {seed}: {exc}"[:120]
                if raw <= 0 and not failure:
                    failure = f"seed {seed}: {reward}; {episode.log}"[:120]
                raws.append(raw)
                times.append(time.perf_counter() - started)
            won = sum(1 for r in raws if r > 0)
            total, wins = total + len(raws), wins + won
            rows.append(
                f"| {task} | {won}/{len(raws)} | {statistics.mean(raws):.2f} | "
                f"{statistics.mean(times):.2f} | {failure} |"
            )
        calls = {
            k: f"{len(v)} × {statistics.median(v) * 1000:.0f} ms" for k, v in tools.timings.items()
        }
    print("\n".join(rows))
    print(f"\noverall: {wins}/{total} episodes with a positive reward")
    print("tool calls (count × median):", calls)
    return 0 if wins == total else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
