"""``actui replay`` and the script its ``--to-python`` writes, run as a user runs them: fresh
processes on a test's desktop."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPLAY = (sys.executable, "-m", "actui.server.cli", "replay")


async def _ran(argv: list[str], env: Mapping[str, str] | None = None) -> str:
    """``argv`` in its own process, which must exit 0; what it printed."""
    done = await asyncio.to_thread(
        subprocess.run,
        argv,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


async def replayed_whole(env: Mapping[str, str], path: Path, *args: str, steps: int) -> str:
    """``actui replay PATH ARGS…``: it must exit 0 with every one of ``steps`` verified.
    Its summary."""
    printed = await _ran([*REPLAY, str(path), *args], env)
    assert f"{steps} of {steps} steps verified" in printed, printed
    return printed


async def script_ran(env: Mapping[str, str], path: Path, script: Path, *given: str) -> None:
    """``actui replay PATH --to-python SCRIPT``, then ``python SCRIPT name=value…``: both
    must exit 0."""
    await _ran([*REPLAY, str(path), "--to-python", str(script)])
    await _ran([sys.executable, str(script), *given], env)
