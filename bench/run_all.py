"""Runs every ``bench/bench_*.py`` in turn and prints their tables (``make bench``).

First makes sure the peer baselines exist (``setup_baselines.sh``); a failure
there is reported and the benchmarks still run, showing their actui rows
alone. Each benchmark is its own process, so one crashing does not stop the
others; the exit code is non-zero if any failed. Extra arguments are passed
to every benchmark (e.g. ``--rounds 3``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH_TIMEOUT_S = 1800


def main(argv: list[str]) -> int:
    setup = subprocess.run(
        [str(HERE / "setup_baselines.sh")],
        check=False,
        env={**os.environ, "BENCH_PYTHON": sys.executable},
    )
    if setup.returncode != 0:
        print("run_all: the baselines could not be set up; their rows will be missing.\n")
    failed: list[str] = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"\n# {script.name}\n", flush=True)
        start = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, str(script), *argv], check=False, timeout=BENCH_TIMEOUT_S
            )
            code = done.returncode
        except subprocess.TimeoutExpired:
            code = -1
        print(f"({script.name}: exit {code}, {time.monotonic() - start:.0f} s)", flush=True)
        if code != 0:
            failed.append(script.name)
    if failed:
        print("\nrun_all: failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
