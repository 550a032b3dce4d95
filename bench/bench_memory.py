"""Server memory under app-controlled churn: RSS of ``actui mcp`` over many observes.

A GTK 3 window (tests/apps/gtk_hostile.py) holds a button whose accessible
name is ``--churn-kb`` kilobytes long and changes every 20 ms. A real MCP
client observes that window ``--observes`` times (10,000 by default) and reads
the server's resident set size from ``/proc`` every ``--every`` observes. The
target is a flat line: growth after the warm-up within 20 MB, whatever the
names were. The baseline is the same server's RSS after the warm-up.

Run: ``.venv/bin/python bench/bench_memory.py [--observes N] [--churn-kb K] [--every M]``.
It measures whatever actui is installed; it must not change actui.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path

from benchkit import machine_line, table

from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent, connect

APP = str(Path(__file__).resolve().parents[1] / "tests" / "apps" / "gtk_hostile.py")
WARM_UP = 100
TARGET_MB = 20


def _server_pid() -> int:
    """The ``actui mcp`` child this process started (the MCP client spawns it)."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == me and b"mcp" in argv:
            return int(entry.name)
    raise RuntimeError("no actui mcp child found")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _window_ref(agent: Agent, pid: int) -> str:
    for _ in range(200):
        roots = await agent.session.call_tool("find_roots", {"pid": pid})
        windows = (roots.structured_content or {}).get("windows", [])
        if windows:
            return str(windows[0]["windowRef"])
        await asyncio.sleep(0.05)
    raise RuntimeError("the churning window never appeared")


async def run(observes: int, churn_kb: int, every: int) -> None:
    print(machine_line())
    async with Sandbox() as desktop:
        app = await desktop.launch(["/usr/bin/python3", APP, "churn", "--churn", str(churn_kb)])
        await desktop.wait_for_app(app.pid)
        async with connect(desktop.env) as agent:
            server = _server_pid()
            ref = await _window_ref(agent, app.pid)
            rows: list[list[str]] = []
            started = time.monotonic()
            baseline = float("nan")
            for index in range(1, observes + 1):
                observed = await agent.session.call_tool(
                    "observe_ui", {"root": ref, "mode": "semantic"}, read_timeout_seconds=60
                )
                if observed.is_error:
                    raise RuntimeError(Agent.text(observed))
                if index == WARM_UP:
                    baseline = _rss_mb(server)
                if index % every == 0 or index == WARM_UP:
                    rss = _rss_mb(server)
                    rate = index / (time.monotonic() - started)
                    grown = rss - baseline if index >= WARM_UP else float("nan")
                    rows.append([str(index), f"{rss:.1f}", f"{grown:+.1f}", f"{rate:.1f}"])
                    print(f"  {index} observes: RSS {rss:.1f} MB", flush=True)
            assert app.returncode is None, "the app died during the run"
    print(table(["observes", "server RSS MB", "since warm-up MB", "observes/s"], rows))
    final = float(rows[-1][1])
    verdict = "within" if final - baseline <= TARGET_MB else "OVER"
    print(
        f"{churn_kb} KB name churning every 20 ms, {observes} observes: RSS {baseline:.1f} MB "
        f"after {WARM_UP}, {final:.1f} MB at the end ({final - baseline:+.1f} MB; {verdict} "
        f"the {TARGET_MB} MB target)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observes", type=int, default=10_000)
    parser.add_argument("--churn-kb", type=int, default=200)
    parser.add_argument("--every", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=1, help="ignored (run_all passes it)")
    ns = parser.parse_args()
    asyncio.run(run(ns.observes, ns.churn_kb, ns.every))


if __name__ == "__main__":
    main()
