"""What one desktop costs in the container: memory and CPU, idle and during a task.

`.venv/bin/python bench/bench_container.py [--desktops 4] [--image actui:latest]`

Starts the image (``make image``) with podman, reads the container's own cgroup
(memory working set as a kubelet counts it: usage minus inactive file cache; CPU
time from cpuacct), and opens MCP sessions over HTTP one by one, each a private
desktop with zenity, idling 10 s after each. Then every session runs the zenity
task (find the window, observe, search, type, read back, press OK) at once. The
baseline is the same container in the same run with no desktop: the server
alone. The figures docs/deploy.md's capacity table and the requests and limits
in deploy/k8s/deployment.yaml come from.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import subprocess
import time
from pathlib import Path

import httpx2
from bench_desktops import APP, probe_task
from benchkit import machine_line, table
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "CONTAINERS_CONF": str(ROOT / "deploy" / "containers.conf")}
IDLE_S = 10.0
MIB = 2**20


def _podman(*args: str) -> str:
    done = subprocess.run(
        ["podman", *args], env=ENV, capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip()


class Cgroup:
    """The container's cgroup (v1, as podman's cgroupfs manager lays it out)."""

    def __init__(self, path: str) -> None:
        self.memory = Path("/sys/fs/cgroup/memory") / path.lstrip("/")
        self.cpu = Path("/sys/fs/cgroup/cpuacct") / path.lstrip("/")

    def working_set_mib(self) -> float:
        stat = dict(line.split() for line in (self.memory / "memory.stat").read_text().splitlines())
        usage = int((self.memory / "memory.usage_in_bytes").read_text())
        return (usage - int(stat["total_inactive_file"])) / MIB

    def rss_mib(self) -> float:
        stat = dict(line.split() for line in (self.memory / "memory.stat").read_text().splitlines())
        return int(stat["total_rss"]) / MIB

    def cpu_s(self) -> float:
        return int((self.cpu / "cpuacct.usage").read_text()) / 1e9

    def reset_peak(self) -> None:
        (self.memory / "memory.max_usage_in_bytes").write_text("0")

    def peak_mib(self) -> float:
        return int((self.memory / "memory.max_usage_in_bytes").read_text()) / MIB


async def _idle_row(cgroup: Cgroup, label: str, baseline: list[float]) -> list[str]:
    """Memory and CPU with ``label`` desktops open and nobody calling."""
    await asyncio.sleep(2)
    began = cgroup.cpu_s()
    await asyncio.sleep(IDLE_S)
    cpu_pct = (cgroup.cpu_s() - began) / IDLE_S * 100
    ws, rss = cgroup.working_set_mib(), cgroup.rss_mib()
    if not baseline:
        baseline.extend((ws, rss))
    return [label, f"{ws:.0f}", f"{rss:.0f}", f"{ws - baseline[0]:.0f}", f"{cpu_pct:.2f}"]


async def main(desktops: int, image: str) -> None:
    print(machine_line())
    token = secrets.token_urlsafe(16)
    started = time.monotonic()
    container = _podman(
        "run", "-d", "--rm", "-p", "127.0.0.1::8765", "-e", f"ACTUI_MCP_TOKEN={token}",
        image, "--max-desktops", str(desktops), "--app", APP,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{_podman('port', container, '8765').rsplit(':', 1)[1]}"
        async with httpx2.AsyncClient(timeout=5) as probe:
            while True:
                with contextlib.suppress(httpx2.HTTPError):
                    if (await probe.get(f"{base}/health")).status_code == 200:
                        break
                await asyncio.sleep(0.05)
        print(f"container answering /health {time.monotonic() - started:.2f} s after podman run")
        cgroup = Cgroup(_podman("inspect", "--format", "{{.State.CgroupPath}}", container))
        baseline: list[float] = []
        idle = [await _idle_row(cgroup, "0 (the server alone)", baseline)]
        starts: list[str] = []
        headers = {"Authorization": f"Bearer {token}"}
        async with contextlib.AsyncExitStack() as stack:
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=240))
            )
            sessions: list[ClientSession] = []
            for n in range(1, desktops + 1):
                cpu, began = cgroup.cpu_s(), time.monotonic()
                read, write = await stack.enter_async_context(
                    streamable_http_client(f"{base}/mcp", http_client=http)
                )
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                sessions.append(session)
                await _zenity_shown(session)
                starts.append(f"{time.monotonic() - began:.2f} s, {cgroup.cpu_s() - cpu:.2f} CPU-s")
                idle.append(await _idle_row(cgroup, str(n), baseline))
            cgroup.reset_peak()
            cpu, began = cgroup.cpu_s(), time.monotonic()
            results = await asyncio.gather(
                *(probe_task(s, f"desk {i}", time.monotonic()) for i, s in enumerate(sessions))
            )
            wall, cpu_s = time.monotonic() - began, cgroup.cpu_s() - cpu
            peak = cgroup.peak_mib()
    finally:
        _podman("stop", "-t", "10", container)
    print("\nIdle: memory of the container (MiB) and CPU (% of one core) over 10 s\n")
    print(table(("desktops", "working set", "rss", "over the server alone", "CPU %"), idle))
    print("\nA desktop's start (session initialize to its zenity found): " + "; ".join(starts))
    worked = sum(ok for _, ok in results)
    print(
        f"\nThe zenity task in all {desktops} sessions at once: {wall:.2f} s wall, "
        f"{cpu_s:.2f} CPU-s in all ({cpu_s / desktops:.2f} per task), peak memory "
        f"{peak:.0f} MiB (page cache included), {worked}/{desktops} worked"
    )
    print(machine_line())


async def _zenity_shown(session: ClientSession) -> None:
    """Wait until the session's desktop shows its zenity."""
    async with asyncio.timeout(120):
        while True:
            found = await session.call_tool("find_roots", {"text": "Probe"})
            if (found.structured_content or {}).get("windows"):
                return
            await asyncio.sleep(0.1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--desktops", type=int, default=4)
    parser.add_argument("--image", default="actui:latest")
    args = parser.parse_args()
    asyncio.run(main(args.desktops, args.image))
