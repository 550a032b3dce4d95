"""Desktops per machine: N MCP sessions over HTTP at once, each with its own private desktop.

`.venv/bin/python bench/bench_desktops.py [--sizes 1,2,4,8] [--rounds N]`

Starts one ``actui mcp --http --desktop-per-session --app 'zenity --entry …'``
server, then for each N opens N sessions in parallel through the official MCP
client, and in each: waits for its zenity window (time to first observe,
counted from the session's ``initialize``), fills the entry, checks the value
read back, and presses OK. Memory is the resident set of all the server's
descendant processes (Xvfb, buses, window manager, zenity) at peak, divided
by N. The baseline is N = 1 in the same run: the ratio column says how much
slower a first observe is when N desktops start together on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from benchkit import Series, machine_line, ms, table
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

TOKEN = "bench-desktops"
APP = "zenity --entry --title=Probe --text=Type:"


def _tree_rss_mb(root: int) -> float:
    """Resident memory of every process below ``root``, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            status = (entry / "status").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
        found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        rss[int(entry.name)] = int(found.group(1)) if found else 0
    below: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        below |= frontier
    return sum(rss[pid] for pid in below) / 1024


async def _call(session: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(tool, args, read_timeout_seconds=180)
    if result.is_error or not isinstance(result.structured_content, dict):
        text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
        raise RuntimeError(f"{tool}: {text}")
    return result.structured_content


async def _one_session(url: str, phrase: str) -> tuple[float, bool]:
    """Seconds from initialize to the first observe of zenity, and whether the task worked."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=240)) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        began = time.monotonic()
        await session.initialize()
        return await probe_task(session, phrase, began)


async def probe_task(session: ClientSession, phrase: str, began: float) -> tuple[float, bool]:
    """The zenity task in an initialized session: seconds from ``began`` (a monotonic time)
    to the first observe of the window, and whether the value read back and OK was pressed."""
    window: dict[str, Any] = {}
    async with asyncio.timeout(240):
        while not window:
            roots = await _call(session, "find_roots", {"text": "Probe"})
            window = roots["windows"][0] if roots["windows"] else {}
    state = await _call(session, "observe_ui", {"root": window["windowRef"]})
    first_observe = time.monotonic() - began
    entry = await _call(session, "search_ui", {"stateId": state["stateId"], "role": "textbox"})
    ok = await _call(session, "search_ui", {"stateId": state["stateId"], "text": "OK"})
    ref = entry["matches"][0]["ref"]
    act = await _call(
        session,
        "act_ui",
        {
            "stateId": state["stateId"],
            "actions": [{"action": "setText", "ref": ref, "text": phrase}],
            "expect": {"ref": ref, "value": phrase},
        },
    )
    pressed = await _call(
        session,
        "act_ui",
        {
            "stateId": act["stateId"],
            "actions": [{"action": "press", "ref": ok["matches"][0]["ref"]}],
        },
    )
    worked = act["outcome"] == "worked" and pressed["outcome"] in ("worked", "unknown")
    return first_observe, worked


async def main(sizes: list[int], rounds: int) -> None:
    print(machine_line())
    env = {**os.environ, "ACTUI_MCP_TOKEN": TOKEN}
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "actui.server.cli", "mcp", "--http", "--port", "0",
        "--desktop-per-session", "--max-desktops", str(max(sizes)), "--app", APP,
        env=env, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert server.stderr is not None
    line = (await server.stderr.readline()).decode()
    found = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
    if not found:
        raise SystemExit(f"the server did not start: {line}")
    url = found.group(1)
    rows: list[list[str]] = []
    baseline = float("nan")
    try:
        for n in sizes:
            observe = Series(f"N={n}")
            peak_mb = 0.0
            successes = 0
            for _ in range(rounds):
                tasks = [asyncio.create_task(_one_session(url, f"desk {i}")) for i in range(n)]
                while not all(t.done() for t in tasks):
                    peak_mb = max(peak_mb, _tree_rss_mb(server.pid))
                    await asyncio.sleep(0.25)
                for task in tasks:
                    seconds, worked = task.result()
                    observe.add(seconds * 1000)
                    successes += worked
                await asyncio.sleep(2)  # the ended sessions' desktops go down
            if n == sizes[0]:
                baseline = observe.median
            rows.append(
                [
                    str(n),
                    ms(observe.min),
                    ms(observe.median),
                    ms(observe.max),
                    f"{observe.median / baseline:.2f}×",
                    f"{peak_mb / n:.0f}",
                    f"{successes}/{n * rounds}",
                ]
            )
    finally:
        server.terminate()
        await server.wait()
    print(
        table(
            (
                "sessions",
                "first observe min ms",
                "median ms",
                "max ms",
                f"median vs N={sizes[0]}",
                "MB per desktop (peak)",
                "zenity task",
            ),
            rows,
        )
    )
    print(machine_line())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1,2,4,8")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main([int(n) for n in args.sizes.split(",")], args.rounds))
