"""MiniWoB++ tasks solved by a rule-based agent through the MCP tools, on headless Chromium.

One ``actui mcp`` server and one browser serve the whole module. Each task's
page is opened once and played with several seeds; the task's own reward
(read from the page at the end) must be positive for every seed. The agent
reads instructions and acts only through observe/search/expand/inspect/
read_text/act_ui; ``evaluate_browser`` only seeds and starts episodes and
reads rewards (see ``miniwob_agent``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from miniwob_agent import (
    TASKS,
    Episode,
    launch,
    mcp_tools,
    miniwob_html,
    no_desktop_env,
    run_episode,
)

PAGES = miniwob_html()
SEEDS = (1, 2, 3)

if PAGES is None:  # a missing prerequisite fails loudly instead of skipping
    raise RuntimeError(
        "MiniWoB++ pages missing: `make test` installs them "
        "(.venv/bin/pip install --no-deps miniwob==1.1.0)"
    )

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def episode() -> AsyncIterator[Episode]:
    async with mcp_tools(no_desktop_env()) as tools:
        yield await launch(tools)


@pytest.mark.parametrize("task", TASKS)
async def test_rule_based_agent_earns_a_positive_reward_on_every_seed(
    episode: Episode, task: str
) -> None:
    assert PAGES is not None
    await episode.open(task, PAGES)
    for seed in SEEDS:
        reward = await run_episode(episode, task, seed)
        assert reward.done and reward.raw > 0 and reward.reward > 0, (
            f"{task} seed {seed}: {reward}; agent log: {episode.log}"
        )
