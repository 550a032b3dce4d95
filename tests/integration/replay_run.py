"""``actui replay`` run as a user runs it: a fresh process on a test's desktop."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


async def replayed_whole(env: Mapping[str, str], path: Path, *args: str, steps: int) -> str:
    """``actui replay PATH ARGS…`` in its own process; it must exit 0 with every one of
    ``steps`` verified. Its summary."""
    command = [sys.executable, "-m", "actui.server.cli", "replay", str(path), *args]
    done = await asyncio.to_thread(
        subprocess.run,
        command,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{steps} of {steps} steps verified" in done.stdout, done.stdout
    return done.stdout
