"""Memory stays bounded while an app churns huge names: observing a 400 KB name that
changes every 20 ms, 200 times, grows the session by a few MB, not by every name seen."""

from __future__ import annotations

import asyncio
import gc
import os
from pathlib import Path

from computer_helpers import inspected_of, matches_of, paired_root, state_id_of

from actui.backends.base import TEXT_CAP
from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

APP = str(Path(__file__).parents[1] / "apps" / "gtk_hostile.py")
CHURN_KB = 400
WARM_UP, OBSERVES = 30, 200
CHURN_S = 0.025
"""A little longer than the app's 20 ms between names."""
MAX_GROWTH_MB = 25
"""Unbounded, each new name is kept: 200 × 400 KB = 80 MB."""


def rss_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


async def test_observing_a_churning_huge_name_keeps_memory_flat(sandbox: Sandbox) -> None:
    app = await sandbox.launch(["/usr/bin/python3", APP, "churn", "--churn", str(CHURN_KB)])
    await sandbox.wait_for_app(app.pid)
    computer = ToolBox(env=sandbox.env)
    try:
        window = await paired_root(computer, pid=app.pid)
        names = set()

        async def observe() -> None:
            observed = await computer.call("observe_ui", {"root": window.ref})
            assert not observed.is_error, observed.text
            state = state_id_of(observed)
            found = await computer.call("search_ui", {"stateId": state, "role": "button"})
            ticker = max(matches_of(found), key=lambda m: len(m.label))
            names.add(ticker.label[:12])
            inspected = await computer.call("inspect_ui", {"stateId": state, "ref": ticker.ref})
            assert len(inspected_of(inspected).name) == TEXT_CAP  # cut by the backend
            # and cut again in the structured content, which only the wire form holds
            assert len(inspected.details["target"]["name"]) < 1024
            await asyncio.sleep(CHURN_S)  # a warm observe takes a few ms: let the name move on

        for _ in range(WARM_UP):
            await observe()
        gc.collect()
        before = rss_mb()
        for _ in range(OBSERVES):
            await observe()
        gc.collect()
        growth = rss_mb() - before
        assert len(names) > OBSERVES / 2, "the name really churned between observes"
        assert growth < MAX_GROWTH_MB, f"grew {growth:.1f} MB over {OBSERVES} observes"
        assert app.returncode is None
    finally:
        await computer.close()
