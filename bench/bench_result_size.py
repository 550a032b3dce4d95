"""Result text an agent reads per MiniWoB++ episode: the token cost of the tools, in characters.

`.venv/bin/python bench/bench_result_size.py [--tasks N] [--seeds N]`

Runs the rule-based agent of ``tests/integration/miniwob_agent.py`` through
``actui mcp`` (stdio, the official client) on the first N tasks, and sums the
characters of every result text it receives per episode. To compare two
versions in one run, point ``PYTHONPATH`` at each tree's ``src`` in turn (the
server subprocess inherits it), e.g. a checkout of an earlier commit:
``PYTHONPATH=/path/to/old/src .venv/bin/python bench/bench_result_size.py``.
Characters, not tokens: no tokenizer ships with the project.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))

from miniwob_agent import TASKS, launch, mcp_tools, miniwob_html, no_desktop_env, run_episode


async def episode_texts(tasks: int, seeds: int) -> tuple[list[list[str]], int]:
    """The result texts of every solved episode, and how many episodes were not solved."""
    pages = miniwob_html()
    if pages is None:
        raise SystemExit("MiniWoB++ pages missing: .venv/bin/pip install --no-deps miniwob==1.1.0")
    solved: list[list[str]] = []
    failed = 0
    async with mcp_tools(no_desktop_env()) as tools:
        call = tools.call
        read: list[str] = []

        async def counted(tool: str, arguments: dict[str, Any]) -> str:
            text = await call(tool, arguments)
            read.append(text)
            return text

        tools.call = counted  # type: ignore[method-assign]
        episode = await launch(tools)
        for task in list(TASKS)[:tasks]:
            await episode.open(task, pages)
            for seed in range(1, seeds + 1):
                read.clear()
                reward = await run_episode(episode, task, seed)
                if reward.raw > 0:
                    solved.append(list(read))
                else:
                    failed += 1
    return solved, failed


async def main(tasks: int, seeds: int) -> None:
    solved, failed = await episode_texts(tasks, seeds)
    per_episode = [sum(len(text) for text in texts) for texts in solved]
    print(
        f"{len(per_episode)} solved episodes ({failed} not): result text per episode "
        f"median {statistics.median(per_episode):.0f} chars, total {sum(per_episode)}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main(args.tasks, args.seeds))
