"""Browser observation and action costs on MiniWoB++ pages, against a raw CDP baseline.

Not part of the test suite. Run: ``.venv/bin/python bench/bench_cdp.py [--repeat N]``
(needs chromium and ``pip install --no-deps miniwob==1.1.0``).

For each page, with an episode started: the latency of ``observe_ui`` (actui's
whole path: DOM snapshot, AX trees, outline, fold, text) and the size of the
text an agent reads, against one raw ``Accessibility.getFullAXTree`` call on
a persistent connection to the same page and its JSON size, both measured in
this run; the folded observe text and the whole outline (``expand_ui`` of the
document, depth 8, what an agent reads to see everything) are both shown.
Tokens are estimated as UTF-8 bytes / 4 (no tokenizer). Then the
latency of ``act_ui`` per action type, without ``expect`` (the runtime waits its
root-settle window) and with an ``expect`` that already holds (no settle wait).
Everything runs in-process through ``actui.tools.dispatch.ToolBox``: MCP transport costs are
not included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))

from miniwob_agent import miniwob_html, no_desktop_env

from actui import ToolResult
from actui.backends.cdp.connection import CdpSession
from actui.tools.dispatch import ToolBox

PAGES = (
    "click-button",
    "click-checkboxes",
    "choose-list",
    "login-user",
    "click-tab-2",
    "navigate-tree",
    "read-table",
    "email-inbox",
    "social-media",
    "book-flight",
)


def tokens(size_bytes: int) -> int:
    return round(size_bytes / 4)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def timed(call: Callable[[], Awaitable[Any]], repeat: int) -> tuple[list[float], Any]:
    samples, last = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        last = await call()
        samples.append(time.perf_counter() - started)
    return samples, last


class Bench:
    def __init__(self, computer: ToolBox, pages: Path) -> None:
        self.computer = computer
        self.pages = pages
        self.state = ""
        self.root = ""

    async def ok(self, tool: str, **args: Any) -> ToolResult:
        result = await self.computer.call(tool, args)
        if result.is_error:
            raise RuntimeError(result.text)
        self.state = str(result.details.get("stateId", self.state))
        return result

    async def start(self, task: str) -> None:
        await self.ok(
            "navigate_browser", stateId=self.state, url=(self.pages / f"{task}.html").as_uri()
        )
        await self.ok(
            "evaluate_browser",
            stateId=self.state,
            expression="Math.seedrandom('7'); core.EPISODE_MAX_TIME = 600000; "
            "core.startEpisodeReal(); true",
        )

    async def observe(self) -> ToolResult:
        return await self.ok("observe_ui", root=self.root, mode="semantic")

    async def ref(self, role: str, text: str | None = None) -> str:
        args = {"role": role, **({"text": text} if text else {})}
        found = await self.ok("search_ui", stateId=self.state, **args)
        return str(found.details["matches"][0]["ref"])


async def observe_table(bench: Bench, raw: CdpSession, repeat: int) -> list[str]:
    rows = [
        "| page | AX nodes (raw) | outline nodes | observe_ui ms | raw getFullAXTree ms | "
        "time ratio | folded outline tokens | whole outline tokens | raw JSON tokens | "
        "raw / whole |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for task in PAGES:
        await bench.start(task)
        observe_s, observed = await timed(bench.observe, repeat)
        raw_s, tree = await timed(lambda: raw.send("Accessibility.getFullAXTree"), repeat)
        outline_bytes = len(observed.text.encode())
        whole = await bench.ok("expand_ui", stateId=bench.state, ref="@e1", depth=8)
        whole_bytes = len(whole.text.encode())
        raw_bytes = len(json.dumps(tree, separators=(",", ":")).encode())
        ours, theirs = median_ms(observe_s), median_ms(raw_s)
        rows.append(
            f"| {task} | {len(tree.get('nodes', []))} | {observed.details['nodeCount']} | "
            f"{ours:.1f} | {theirs:.1f} | {ours / theirs:.1f}× | {tokens(outline_bytes)} | "
            f"{tokens(whole_bytes)} | {tokens(raw_bytes)} | {raw_bytes / whole_bytes:.0f}× |"
        )
    return rows


async def act_table(bench: Bench, repeat: int) -> list[str]:
    """One row per action kind, on pages where the action means something."""
    await bench.start("login-user")
    await bench.observe()
    textbox = await bench.ref("textbox")
    label = await bench.ref("label", "Username")
    await bench.start("click-checkboxes")
    await bench.observe()
    checkbox = await bench.ref("checkbox")
    submit = await bench.ref("button", "Submit")
    steps: list[tuple[str, str, dict[str, Any]]] = [
        ("login-user", "setText", {"action": "setText", "ref": textbox, "text": "grace"}),
        ("login-user", "typeText", {"action": "typeText", "ref": textbox, "text": "!"}),
        ("login-user", "focus", {"action": "focus", "ref": textbox}),
        ("login-user", "keypress", {"action": "keypress", "ref": textbox, "keys": ["End"]}),
        ("login-user", "press (label text)", {"action": "press", "ref": label}),
        ("click-checkboxes", "toggle", {"action": "toggle", "ref": checkbox}),
        ("click-checkboxes", "scroll (page)", {"action": "scroll", "scrollY": 40}),
        ("click-checkboxes", "press (button)", {"action": "press", "ref": submit}),
    ]
    rows = [
        "| action | act_ui ms, no expect | act_ui ms, expect already true | step outcome |",
        "|---|---|---|---|",
    ]
    for task, name, step in steps:
        await bench.start(task)
        await bench.observe()
        holds = {"text": "Episodes done"}
        plain: list[float] = []
        with_expect: list[float] = []
        outcome = ""
        for _ in range(repeat):
            for expect, sink in ((None, plain), (holds, with_expect)):
                args: dict[str, Any] = {"stateId": bench.state, "actions": [step]}
                if expect:
                    args["expect"] = expect
                started = time.perf_counter()
                done = await bench.ok("act_ui", **args)
                sink.append(time.perf_counter() - started)
                outcome = str(done.details["execution"]["steps"][0]["outcome"])
        rows.append(
            f"| {name} | {median_ms(plain):.0f} | {median_ms(with_expect):.0f} | {outcome} |"
        )
    return rows


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    pages = miniwob_html()
    if pages is None:
        print("install the pages first: .venv/bin/pip install --no-deps miniwob==1.1.0")
        return 2
    computer = ToolBox(env=no_desktop_env())
    try:
        launched = await computer.call("launch_browser", {})
        bench = Bench(computer, pages)
        bench.state = launched.details["stateId"]
        bench.root = launched.details["target"]["windowRef"]
        wire = computer.backends.browser.browser_connection
        assert wire is not None
        (page,) = await computer.backends.browser.list_roots()
        raw = await wire.attach(page.native_id.removeprefix("cdp:"), "baseline")
        try:
            lines = await observe_table(bench, raw, args.repeat)
        finally:
            await raw.close()
        lines += [""] + await act_table(bench, args.repeat)
    finally:
        await computer.close()
    print(f"medians of {args.repeat} runs; tokens ≈ UTF-8 bytes / 4\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
