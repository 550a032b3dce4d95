"""``actui replay`` and the script its ``--to-python`` writes, run as a user runs them: fresh
processes on a test's desktop."""

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


async def script_ran(env: Mapping[str, str], path: Path, script: Path, *given: str) -> None:
    """``actui replay PATH --to-python SCRIPT``, then ``python SCRIPT name=value…``: both
    must exit 0."""
    made = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "actui.server.cli", "replay", str(path), "--to-python", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    ran = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(script), *given],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
