"""Tokens an agent reads per MiniWoB++ episode: actui against playwright-mcp, in one run.

`.venv/bin/python bench/bench_tokens.py [--tasks N|a,b,...] [--seeds N] [--desktop-rounds N]`

Both servers are real MCP servers over stdio, driven by the official client:
``actui mcp`` by the rule-based agent of ``tests/integration/miniwob_agent.py``
(the one the test suite runs), playwright-mcp (``bench/setup_baselines.sh``
installs it) by ``bench/playwright_agent.py``, the same task logic written for
its tools. Tasks are those both agents have a policy for; episodes are
interleaved (actui, then playwright-mcp, per seed). Per episode it counts the
o200k_base tokens (``bench/o200k.py``) of the text content of every result
the agent receives, the harness's included (seeding and starting an episode,
reading its reward: the ``evaluate`` tools, used for nothing else; an actui
result that starts the task carries its view, which an agent may act on),
shown apart too; the tokens of ``structuredContent`` (compact JSON), apart and
not in that figure; the calls; and the wall time. An episode that raises or
overruns its timeout is unsolved.

Also: the first view of each page, when opened and once its task shows; each
server's tool catalog (the ``tools/list`` result as JSON); and the tokens per
solved task of ``make demo``'s desktop tasks (``actui.server.demo``'s own calculator
and zenity steps, on a private desktop). To compare actui versions, point
``PYTHONPATH`` at another tree's ``src``: the actui server and the demo steps
come from it. The MiniWoB agent comes from this tree's ``tests/integration``,
or from the directory in ``BENCH_AGENT`` (another tree's agent, to measure a
change that lets the agent read less). ``BENCH_DUMP=FILE`` appends every
call's arguments and result text to FILE.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(
    0,
    os.environ.get("BENCH_AGENT") or str(Path(__file__).resolve().parents[1] / "tests/integration"),
)

import miniwob_agent
import playwright_agent
from miniwob_agent import TASKS, Episode, Tools, launch, miniwob_html, no_desktop_env, text_of
from miniwob_agent import run_episode as actui_episode
from o200k import TokenizerMissing, tokens

CALL_TIMEOUT_S = 30.0
EPISODE_TIMEOUT_S = 90.0
DESKTOP_TIMEOUT_S = 180.0
SERVERS = ("actui", "playwright-mcp")
DUMP = os.environ.get("BENCH_DUMP")
"""A file to append every call and the text it read to, to see where the tokens go."""


@dataclass
class Count:
    calls: int = 0
    tokens: int = 0
    structured: int = 0


@dataclass
class Meter:
    """An MCP session whose every call is timed out and counted; the harness's calls also apart."""

    session: ClientSession
    harness_tools: frozenset[str]
    total: Count = field(default_factory=Count)
    harness: Count = field(default_factory=Count)
    per_tool: dict[str, Count] = field(default_factory=dict)
    """Every call since the last reset, per tool: where the tokens went."""
    last_tokens: int = 0

    def reset(self) -> None:
        self.total, self.harness, self.per_tool = Count(), Count(), {}

    async def call_tool(
        self, name: str, arguments: dict[str, Any], read_timeout_seconds: float | None = None
    ) -> types.CallToolResult:
        result = await asyncio.wait_for(
            self.session.call_tool(name, arguments, read_timeout_seconds=CALL_TIMEOUT_S),
            CALL_TIMEOUT_S + 5,
        )
        if not isinstance(result, types.CallToolResult):
            raise RuntimeError(f"{name} answered {type(result).__name__}, not a tool result")
        self.last_tokens = tokens(text_of(result))
        if DUMP:
            dump(f"=== {name} {compact(arguments)} [{self.last_tokens}]\n{text_of(result)}\n")
        structured = 0
        if result.structured_content is not None:
            structured = tokens(compact(result.structured_content))
        tallies = [self.total, self.per_tool.setdefault(name, Count())]
        if name in self.harness_tools:
            tallies.append(self.harness)
        for tally in tallies:
            tally.calls += 1
            tally.tokens += self.last_tokens
            tally.structured += structured
        return result


def dump(text: str) -> None:
    """Append to ``BENCH_DUMP`` (a small local write, between calls: nothing else waits)."""
    with Path(DUMP or os.devnull).open("a", encoding="utf-8") as out:
        out.write(text)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@contextlib.asynccontextmanager
async def connect(
    command: str, args: Sequence[str], env: Mapping[str, str], cwd: Path | None = None
) -> AsyncIterator[ClientSession]:
    server = StdioServerParameters(command=command, args=list(args), env=dict(env), cwd=cwd)
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), 60)
        yield session


async def catalog_tokens(session: ClientSession) -> int:
    listed = await asyncio.wait_for(session.list_tools(), CALL_TIMEOUT_S)
    return tokens(listed.model_dump_json(by_alias=True, exclude_none=True))


async def catalogs() -> dict[str, int]:
    """actui's catalog with its ``outputSchema``s and as ``--no-structured-content`` lists it
    (no ``outputSchema``: a client refuses a result that lacks what its schema promises)."""
    sizes: dict[str, int] = {}
    for flags in ((), ("--no-structured-content",)):
        args = ["-m", "actui.server.cli", "mcp", *flags]
        async with connect(sys.executable, args, no_desktop_env()) as session:
            sizes[" ".join(["actui mcp", *flags])] = await catalog_tokens(session)
    return sizes


@dataclass(frozen=True)
class Outcome:
    server: str
    task: str
    seed: int
    solved: bool
    total: Count
    harness: Count
    per_tool: dict[str, Count]
    seconds: float
    failure: str


async def measured(
    server: str, task: str, seed: int, meter: Meter, run: Callable[[], Awaitable[float]]
) -> Outcome:
    meter.reset()
    if DUMP:
        dump(f"### episode {server} {task} {seed}\n")
    started = time.perf_counter()
    failure = ""
    try:
        raw = await asyncio.wait_for(run(), EPISODE_TIMEOUT_S)
    except Exception as exc:  # any failure is an unsolved episode, reported below
        raw, failure = 0.0, f"{type(exc).__name__}: {exc}"[:160]
    if raw <= 0 and not failure:
        failure = f"reward {raw}"
    if DUMP:
        dump(f"### end {'solved' if raw > 0 else 'unsolved'}\n")
    outcome = Outcome(
        server,
        task,
        seed,
        raw > 0,
        meter.total,
        meter.harness,
        meter.per_tool,
        time.perf_counter() - started,
        failure,
    )
    meter.reset()  # what comes between episodes is no episode's
    return outcome


@dataclass
class Run:
    outcomes: list[Outcome] = field(default_factory=list)
    first_view: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per task: the tokens of each server's view when opened and when the task shows."""
    catalog: dict[str, int] = field(default_factory=dict)
    desktop: list[tuple[str, bool, Count, float]] = field(default_factory=list)
    stopped: bool = False
    """A part of the run could not go on (its servers or desktop failed)."""


async def miniwob(tasks: Sequence[str], seeds: int, pages: Path, run: Run) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-tokens-") as scratch:
        async with (
            connect(sys.executable, ["-m", "actui.server.cli", "mcp"], no_desktop_env()) as actui,
            connect(
                str(playwright_agent.EXECUTABLE),
                playwright_agent.server_args(Path(scratch) / "out"),
                {**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"},
                cwd=Path(scratch),
            ) as playwright,
        ):
            run.catalog = {
                "actui": await catalog_tokens(actui),
                "playwright-mcp": await catalog_tokens(playwright),
            }
            ours = Meter(actui, frozenset({"evaluate_browser"}))
            theirs = Meter(playwright, frozenset({"browser_evaluate"}))
            episode = await launch(Tools(ours))  # type: ignore[arg-type]

            async def call(tool: str, arguments: dict[str, Any]) -> str:
                result = await theirs.call_tool(tool, arguments)
                if result.is_error:
                    raise playwright_agent.PolicyFailed(f"{tool}: {text_of(result)[:300]}")
                return text_of(result)

            peer = playwright_agent.PlaywrightEpisode(call)
            for task in tasks:
                both = (episode, ours), (peer, theirs)
                await note_first_views(task, "opened", pages, *both, run)
                for seed in range(1, seeds + 1):
                    done = await measured(
                        "actui", task, seed, ours, partial(_actui_raw, episode, task, seed)
                    )
                    if not done.solved:
                        await _refresh(episode)
                    run.outcomes.append(done)
                    theirs_run = partial(playwright_agent.run_episode, peer, task, seed)
                    run.outcomes.append(
                        await measured("playwright-mcp", task, seed, theirs, theirs_run)
                    )
                    print(".", end="", flush=True, file=sys.stderr)
                await note_first_views(task, "shown", pages, *both, run)


async def note_first_views(
    task: str,
    when: str,
    pages: Path,
    actui: tuple[Episode, Meter],
    playwright: tuple[playwright_agent.PlaywrightEpisode, Meter],
    run: Run,
) -> None:
    """Note each server's first view of ``task``'s page ``when`` it is "opened" (before the
    episodes) or once seed 1's task "shown" (after them, so no episode reads it).

    actui's are its ``navigate_browser`` result and an ``observe_ui`` after
    seed 1 started; playwright-mcp's are ``browser_snapshot`` at the same points.
    """
    views = run.first_view.setdefault(task, {})
    (episode, ours), (peer, theirs) = actui, playwright
    steps: dict[str, tuple[Meter, Callable[[], Awaitable[object]]]] = {
        "actui opened": (ours, partial(episode.open, task, pages)),
        "actui shown": (ours, partial(_started_view, episode)),
        "playwright-mcp opened": (theirs, partial(_opened_snapshot, peer, pages, task)),
        "playwright-mcp shown": (theirs, partial(_started_snapshot, peer)),
    }
    for server in SERVERS:
        key = f"{server} {when}"
        meter, step = steps[key]
        try:
            await asyncio.wait_for(step(), EPISODE_TIMEOUT_S)
            views[key] = meter.last_tokens
        except Exception as exc:  # a missing view is reported as failed
            print(f"bench_tokens: {task} {key}: {exc}"[:200], file=sys.stderr)
    ours.reset()
    theirs.reset()


async def _started_view(episode: Episode) -> None:
    await episode.begin(1)
    await episode.observe()


async def _opened_snapshot(
    peer: playwright_agent.PlaywrightEpisode, pages: Path, task: str
) -> None:
    await peer.open((pages / f"{task}.html").as_uri())
    await peer.snapshot()


async def _started_snapshot(peer: playwright_agent.PlaywrightEpisode) -> None:
    await peer.begin(1)
    await peer.snapshot()


async def _actui_raw(episode: Episode, task: str, seed: int) -> float:
    reward = await actui_episode(episode, task, seed)
    return reward.raw if reward.done else 0.0


async def _refresh(episode: Episode) -> None:
    """A fresh stateId after a failed episode, so the next one does not start stale."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(episode.observe(), CALL_TIMEOUT_S + 5)


async def desktop(rounds: int, run: Run) -> None:
    """``make demo``'s two desktop tasks, with the demo's own steps, counted per round."""
    from actui.backends.linux.sandbox import Sandbox
    from actui.server import demo

    class QuietAgent(demo.Agent):
        """The demo's agent, through the meter and without printing every result."""

        async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
            return await self.session.call_tool(tool, arguments)

    for _ in range(rounds):
        async with Sandbox() as screen:
            calculator = await screen.launch(["gnome-calculator"])
            dialog = await screen.launch(
                ["zenity", "--entry", "--title=actui demo", "--text=Say something:"],
                stdout=asyncio.subprocess.PIPE,
            )
            await screen.wait_for_app(calculator.pid)
            await screen.wait_for_app(dialog.pid)
            async with connect(
                sys.executable, ["-m", "actui.server.cli", "mcp"], screen.env
            ) as session:
                meter = Meter(session, frozenset())
                agent = QuietAgent(meter)  # type: ignore[arg-type]
                for name, steps in (("calculator", demo._calculator), ("zenity", demo._zenity)):
                    meter.reset()
                    started = time.perf_counter()
                    try:
                        with contextlib.redirect_stdout(io.StringIO()):
                            ok = await asyncio.wait_for(steps(agent), DESKTOP_TIMEOUT_S)
                        if name == "zenity":
                            assert dialog.stdout is not None
                            said, _ = await asyncio.wait_for(dialog.communicate(), 10)
                            ok = said.decode().strip() == demo.PHRASE
                    except Exception:  # a failed step is an unsolved task
                        ok = False
                    run.desktop.append((name, ok, meter.total, time.perf_counter() - started))


# -- report ---------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def ratio(ours: float | None, theirs: float | None) -> str:
    return f"{ours / theirs:.2f}×" if ours is not None and theirs else "–"


def summary(run: Run, tasks: Sequence[str], seeds: int) -> list[str]:
    by = {s: [o for o in run.outcomes if o.server == s] for s in SERVERS}
    won = {s: [o for o in by[s] if o.solved] for s in SERVERS}

    def solved(value: Callable[[Outcome], float]) -> Callable[[str], float]:
        return lambda server: median([value(o) for o in won[server]])

    rows: list[tuple[str, Callable[[str], float], str]] = [
        ("tokens per solved episode (median)", solved(lambda o: o.total.tokens), "{:.0f}"),
        (
            "… of which the harness's `evaluate` results (median)",
            solved(lambda o: o.harness.tokens),
            "{:.0f}",
        ),
        (
            "tokens per episode, solved or not (median)",
            lambda s: median([o.total.tokens for o in by[s]]),
            "{:.0f}",
        ),
        ("tokens, all solved episodes", lambda s: sum(o.total.tokens for o in won[s]), "{:,.0f}"),
        ("calls per solved episode (median)", solved(lambda o: o.total.calls), "{:.0f}"),
        ("time per solved episode (median, s)", solved(lambda o: o.seconds), "{:.2f}"),
        ("tool catalog (tools/list JSON)", lambda s: run.catalog.get(s, 0), "{:,.0f}"),
        (
            "structuredContent per solved episode (median; not in the tokens above)",
            solved(lambda o: o.total.structured),
            "{:,.0f}",
        ),
    ]
    lines = [
        f"{len(tasks)} MiniWoB++ tasks × {seeds} seeds; o200k_base tokens of result text",
        "",
        "| | actui | playwright-mcp | actui / playwright-mcp |",
        "|---|---|---|---|",
        f"| solved | {len(won['actui'])}/{len(by['actui'])} | "
        f"{len(won['playwright-mcp'])}/{len(by['playwright-mcp'])} | |",
    ]
    for label, value, fmt in rows:
        ours, theirs = value("actui"), value("playwright-mcp")
        lines.append(
            f"| {label} | {fmt.format(ours)} | {fmt.format(theirs)} | {ratio(ours, theirs)} |"
        )
    lines += ["", "Where the tokens of solved episodes went, per tool:", ""]
    for server in SERVERS:
        spent: dict[str, Count] = {}
        for outcome in won[server]:
            for tool, count in outcome.per_tool.items():
                total = spent.setdefault(tool, Count())
                total.calls += count.calls
                total.tokens += count.tokens
        whole = sum(c.tokens for c in spent.values()) or 1
        parts = sorted(spent.items(), key=lambda kv: -kv[1].tokens)
        lines.append(
            f"- {server}: "
            + ", ".join(f"{t} {c.tokens * 100 / whole:.0f}% ({c.calls} calls)" for t, c in parts)
        )
    return lines


def per_task(run: Run) -> list[str]:
    lines = [
        "Tokens per solved episode by task (median over seeds)",
        "",
        "| task | actui | playwright-mcp | actui / playwright-mcp |",
        "|---|---|---|---|",
    ]
    tasks = list(dict.fromkeys(o.task for o in run.outcomes))
    for task in tasks:
        ours, theirs = (
            median(
                [
                    o.total.tokens
                    for o in run.outcomes
                    if (o.server, o.task) == (s, task) and o.solved
                ]
            )
            for s in SERVERS
        )
        lines.append(f"| {task} | {_pair(ours, theirs)} |")
    return lines


def first_views(run: Run) -> list[str]:
    lines = [
        "First view per page, tokens. Opened: actui's `navigate_browser` result against",
        "playwright-mcp's `browser_snapshot` after `browser_navigate`, before the episode starts.",
        "Shown: actui's `observe_ui` against `browser_snapshot`, once seed 1's task shows.",
        "",
        "| page | opened: actui | playwright-mcp | ratio | shown: actui | playwright-mcp | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    keys = [f"{s} {when}" for when in ("opened", "shown") for s in SERVERS]
    for task, views in run.first_view.items():
        row = [views.get(k) for k in keys]
        lines.append(f"| {task} | {_pair(row[0], row[1])} | {_pair(row[2], row[3])} |")
    medians = [median([v[k] for v in run.first_view.values() if k in v]) for k in keys]
    lines.append(f"| median | {_pair(medians[0], medians[1])} | {_pair(medians[2], medians[3])} |")
    return lines


def _pair(ours: float | None, theirs: float | None) -> str:
    """Two table cells and their ratio; a missing or NaN value shows as failed."""
    shown = ["failed" if v is None or v != v else f"{v:.0f}" for v in (ours, theirs)]
    both = "failed" not in shown
    return f"{shown[0]} | {shown[1]} | {ratio(ours, theirs) if both else '–'}"


def desktop_rows(run: Run) -> list[str]:
    lines = [
        "`make demo`'s desktop tasks through actui, one fresh desktop per round",
        "",
        "| task | solved | tokens per solved task (median) | calls | structuredContent | s |",
        "|---|---|---|---|---|---|",
    ]
    for name in ("calculator", "zenity"):
        rounds = [d for d in run.desktop if d[0] == name]
        good = [d for d in rounds if d[1]]
        lines.append(
            f"| {name} | {len(good)}/{len(rounds)} | {median([d[2].tokens for d in good]):.0f} "
            f"| {median([d[2].calls for d in good]):.0f} "
            f"| {median([d[2].structured for d in good]):.0f} "
            f"| {median([d[3] for d in good]):.1f} |"
        )
    return lines


def report(run: Run, tasks: Sequence[str], seeds: int) -> str:
    lines = [*summary(run, tasks, seeds), "", *per_task(run), "", *first_views(run)]
    if run.desktop:
        lines += ["", *desktop_rows(run)]
    failures = [o for o in run.outcomes if not o.solved]
    if failures:
        lines += ["", "Unsolved episodes:"]
        lines += [f"- {o.server} {o.task} seed {o.seed}: {o.failure}" for o in failures[:20]]
    return "\n".join(lines)


def chosen_tasks(spec: str | None) -> list[str]:
    both = [t for t in TASKS if t in playwright_agent.POLICIES]
    if spec is None:
        return both
    if spec.isdigit():
        return both[: int(spec)]
    wanted = spec.split(",")
    unknown = [t for t in wanted if t not in both]
    if unknown:
        raise SystemExit(f"--tasks: no policy for both servers for {unknown}; choose from {both}")
    return wanted


async def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", help="a count (the first N) or comma-separated task names")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--desktop-rounds", type=int, default=2, help="0 leaves the demo out")
    parser.add_argument("--catalog", action="store_true", help="only actui's catalog sizes")
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        print(f"bench_tokens: ignoring {ignored}", file=sys.stderr)
    if args.catalog:
        try:
            sizes = await catalogs()
        except TokenizerMissing as exc:
            raise SystemExit(str(exc)) from None
        print("\n".join(f"| `{server}` | {size:,} |" for server, size in sizes.items()))
        return 0
    if args.seeds < 1 or args.desktop_rounds < 0:
        raise SystemExit("--seeds must be at least 1 and --desktop-rounds at least 0")
    tasks = chosen_tasks(args.tasks)
    pages = miniwob_html()
    if pages is None:
        raise SystemExit("MiniWoB++ pages missing: .venv/bin/pip install --no-deps miniwob==1.1.0")
    if not playwright_agent.EXECUTABLE.exists():
        raise SystemExit(f"{playwright_agent.EXECUTABLE} missing: run bench/setup_baselines.sh")
    try:
        tokens("ready")
    except TokenizerMissing as exc:
        raise SystemExit(str(exc)) from None
    run = Run()
    print(f"MiniWoB agent: {miniwob_agent.__file__}", file=sys.stderr)
    print(f"load average before: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    try:
        await miniwob(tasks, args.seeds, pages, run)
    except Exception as exc:  # a server that cannot start or dies: say so, report what ran
        print(f"\nbench_tokens: the MiniWoB++ run stopped: {exc!r}"[:400], file=sys.stderr)
        run.stopped = True
    print(file=sys.stderr)
    if args.desktop_rounds:
        try:
            await desktop(args.desktop_rounds, run)
        except Exception as exc:  # the private desktop could not be had
            print(f"bench_tokens: the desktop tasks stopped: {exc!r}"[:400], file=sys.stderr)
            run.stopped = True
    print(report(run, tasks, args.seeds))
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    return 0 if run.outcomes and all(o.solved for o in run.outcomes) and not run.stopped else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
