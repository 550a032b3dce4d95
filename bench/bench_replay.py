"""Replaying a recorded workflow against the recorded run, in one run.

In one private desktop (``Sandbox``), per workflow:

- the **recorded run**: an agent's episode through the wire-level tools
  (``find_roots``, ``observe_ui``, ``search_ui``/``inspect_ui``, ``act_ui``) with the
  recorder on (``ToolBox(record=…)``): the whole episode's time, the time of its
  ``act_ui`` calls alone (what the workflow file keeps as each step's ``recorded.ms``),
  and the tokens of every result the agent read;
- the **replay** of that round's workflow, once each way (in alternating order), on a
  fresh app each time; ``--rounds`` rounds, each replay's ratio to its own round's act_ui
  calls (the two share that moment's load, and an app slows as a session goes on):
  ``cold``, a fresh ``ToolBox`` whose connections start inside the replay (as
  ``actui replay`` in its own process), and ``warm``, a fresh ``ToolBox`` that has
  listed the windows once (as a server's workflow tool); ``tools.replaying.replay``,
  its oracle checked every round (the form's output, the file on disk).

Workflows: the zenity form with a password (``zenity``), mousepad's Save As to a new name
(``mousepad``). Target: replay ≤ 1.2× the recorded act_ui calls, 0 tokens.

Run: ``.venv/bin/python bench/bench_replay.py [--rounds N] [--only zenity|mousepad]...``.
It measures whatever actui is installed; it must not change actui.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchkit import Series, Stopwatch, machine_line, ms, table

from actui.backends.linux.sandbox import Sandbox
from actui.results.observations import Inspected
from actui.results.tool_result import ToolResult
from actui.results.typed import Found, RootsFound
from actui.tokens import estimate_tokens
from actui.tools.dispatch import ToolBox
from actui.tools.recording import Recorder
from actui.tools.replaying import replay
from actui.tools.workflow import Workflow, load

SECRET = "bench-secret"
TEXT = "Minutes of the meeting\n"


@dataclass
class Episode:
    """An agent's recorded run: its wall time, its tokens and the workflow it left."""

    ms: float
    tokens: int
    workflow: Workflow


class Agent:
    """Tool calls as an agent makes them, counting the tokens of what it reads."""

    def __init__(self, computer: ToolBox) -> None:
        self.computer = computer
        self.tokens = 0

    async def ok(self, tool: str, args: dict[str, Any]) -> ToolResult:
        result = await self.computer.call(tool, args)
        self.tokens += estimate_tokens(result.text)
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {result.text}")
        return result

    async def look(self, pid: int, title: str) -> str:
        async with asyncio.timeout(20):
            while True:
                found = (await self.ok("find_roots", {"pid": pid})).value
                assert isinstance(found, RootsFound)
                for root in found.roots:
                    if title in root.view.title and root.view.root.window_id:
                        observed = await self.ok("observe_ui", {"root": root.view.ref})
                        assert observed.value is not None
                        return str(observed.details["stateId"])
                await asyncio.sleep(0.05)

    async def refs(self, state: str, **query: str) -> list[str]:
        found = (await self.ok("search_ui", {"stateId": state, **query})).value
        assert isinstance(found, Found)
        return [m.ref for m in found.result.matches]

    async def shown(self, state: str, role: str) -> str:
        for ref in await self.refs(state, role=role):
            inspected = (await self.ok("inspect_ui", {"stateId": state, "ref": ref})).value
            assert isinstance(inspected, Inspected)
            if "showing" in inspected.target.states:
                return ref
        raise RuntimeError(f"no {role} on screen")

    async def act(self, args: dict[str, Any]) -> str:
        result = await self.ok("act_ui", args)
        if result.details.get("outcome") != "worked":
            raise RuntimeError(f"act_ui did not work: {result.text}")
        return str(result.details.get("stateId", ""))


class Timed(ToolBox):
    """The tools, adding up the time of their ``act_ui`` calls: what a replay spends
    besides those is what it adds to the recorded run (finding windows, looking)."""

    acts_ms = 0.0

    async def run(self, tool: str, arguments: Mapping[str, object] | None = None) -> ToolResult:
        with Stopwatch() as took:
            result = await super().run(tool, arguments)
        if tool == "act_ui":
            self.acts_ms += took.ms
        return result


async def _zenity_app(desktop: Sandbox) -> asyncio.subprocess.Process:
    argv = ["zenity", "--forms", "--title=Contact", "--add-entry=Name"]
    argv += ["--add-password=Secret", "--add-entry=City"]
    form = await desktop.launch(argv, stdout=asyncio.subprocess.PIPE)
    await desktop.wait_for_app(form.pid)
    return form


async def _zenity_agent(agent: Agent, form: asyncio.subprocess.Process) -> None:
    state = await agent.look(form.pid, "Contact")
    (name,) = await agent.refs(state, text="Name", role="textbox")
    (secret,) = await agent.refs(state, text="Secret", role="password")
    (city,) = await agent.refs(state, text="City", role="textbox")
    (ok,) = await agent.refs(state, text="OK", role="button")
    texts = [("setText", name, "Alice"), ("setText", secret, SECRET), ("setText", city, "Paris")]
    actions = [{"action": a, "ref": r, "text": t} for a, r, t in texts]
    state = await agent.act({"stateId": state, "actions": actions})
    press = [{"action": "press", "ref": ok}]
    await agent.act({"stateId": state, "actions": press, "expect": {"ref": ok, "gone": True}})


async def _zenity_done(form: asyncio.subprocess.Process, secret: str) -> None:
    assert form.stdout is not None
    out = await asyncio.wait_for(form.stdout.read(), 15)
    if out.decode() != f"Alice|{secret}|Paris\n":
        raise RuntimeError(f"the form printed {out!r}")


async def _mousepad_app(desktop: Sandbox) -> asyncio.subprocess.Process:
    editor = await desktop.launch(["mousepad"])
    await desktop.wait_for_app(editor.pid)
    return editor


async def _mousepad_agent(agent: Agent, editor: asyncio.subprocess.Process, path: Path) -> None:
    state = await agent.look(editor.pid, "Mousepad")
    document = await agent.shown(state, "textbox")
    typed = [
        {"action": "typeText", "ref": document, "text": TEXT},
        {"action": "keypress", "ref": document, "keys": ["ctrl", "s"]},
    ]
    await agent.act(
        {"stateId": state, "actions": typed, "expect": {"text": "Save As", "role": "dialog"}}
    )
    state = await agent.look(editor.pid, "Save As")
    name = await agent.shown(state, "textbox")
    (save,) = await agent.refs(state, text="Save", role="button")
    saved = [
        {"action": "setText", "ref": name, "text": str(path)},
        {"action": "press", "ref": save},
    ]
    await agent.act({"stateId": state, "actions": saved})


def _content(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


async def _file_holds(path: Path) -> None:
    for _ in range(200):
        if _content(path) == TEXT:
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"{path} does not hold the typed text")


async def _record(
    desktop: Sandbox, env: dict[str, str], work: Callable[[Agent], Awaitable[None]]
) -> Episode:
    with tempfile.TemporaryDirectory() as directory:
        recorder = Recorder(Path(directory))
        computer = ToolBox(env=env, record=recorder)
        agent = Agent(computer)
        try:
            with Stopwatch() as episode:
                await work(agent)
        finally:
            await computer.close()
        assert recorder.path is not None
        return Episode(episode.ms, agent.tokens, load(recorder.path))


@dataclass
class App:
    """One workflow's app: started fresh, its agent, its oracle."""

    name: str
    desktop: Sandbox

    @property
    def home(self) -> Path:
        return Path(self.desktop.env["HOME"])

    @property
    def env(self) -> dict[str, str]:
        return {**self.desktop.env, "ACTUI_HEADLESS": "1" if self.name == "zenity" else "0"}

    async def start(self) -> asyncio.subprocess.Process:
        zenity = self.name == "zenity"
        return await (_zenity_app(self.desktop) if zenity else _mousepad_app(self.desktop))

    async def record(self, path: Path) -> Episode:
        """An agent's episode; mousepad saves to ``path`` (a new name: no overwrite dialog)."""
        app = await self.start()

        async def work(agent: Agent) -> None:
            if self.name == "zenity":
                await _zenity_agent(agent, app)
            else:
                await _mousepad_agent(agent, app, path)

        episode = await _record(self.desktop, self.env, work)
        await self.done(app, SECRET, path)
        return episode

    async def done(self, app: asyncio.subprocess.Process, secret: str, path: Path) -> None:
        """The oracle: the form printed what was entered, or the file holds the text."""
        if self.name == "zenity":
            await _zenity_done(app, secret)
            return
        await _file_holds(path)
        app.terminate()
        await app.wait()

    async def replay(self, workflow: Workflow, tag: str, warm: bool) -> tuple[float, float]:
        """One replay on a fresh app and a fresh ``ToolBox``, its oracle checked: its ms, and
        what it spent besides its act_ui calls."""
        given = {"secret": tag}
        if self.name != "zenity":
            path = next(v.name for v in workflow.variables if v.default and "/" in v.default)
            given = {path: str(self.home / tag)}
        app = await self.start()
        computer = Timed(env=self.env)
        try:
            if warm:  # connections up, as in a server that already served a call
                await computer.call("find_roots", {})
            replayed = await replay(computer, workflow, given)
        finally:
            await computer.close()
        if not replayed.ok:
            raise RuntimeError(replayed.text())
        await self.done(app, tag, self.home / tag)
        return float(replayed.ms), replayed.ms - computer.acts_ms


async def _bench(name: str, desktop: Sandbox, rounds: int) -> list[list[str]]:
    """Per round: a recorded episode, then its workflow replayed cold and warm; each
    replay's ratio is to its own round's recorded act_ui calls, so the two sides share
    the machine's load of that moment (an app slows as a session goes on, too)."""
    app = App(name, desktop)
    episodes, acts = Series("episode"), Series("acts")
    replays = {"cold": Series(f"{name} cold"), "warm": Series(f"{name} warm")}
    ratios = {"cold": Series("cold / acts"), "warm": Series("warm / acts")}
    added = {"cold": Series("cold added"), "warm": Series("warm added")}
    tokens = 0
    for index in range(rounds):
        episode = await app.record(app.home / f"minutes{index}.txt")
        episodes.add(episode.ms)
        acts.add(episode.workflow.recorded_ms)
        tokens = episode.tokens
        for way in ("cold", "warm") if index % 2 else ("warm", "cold"):
            took, besides = await app.replay(episode.workflow, f"r{index}{way}.txt", way == "warm")
            replays[way].add(took)
            added[way].add(besides)
            ratios[way].add(took / episode.workflow.recorded_ms)
    return [
        [
            series.name,
            ms(episodes.median),
            ms(acts.median),
            f"{ms(series.min)} / {ms(series.median)} / {ms(series.max)}",
            f"{ratios[way].min:.2f} / {ratios[way].median:.2f} / {ratios[way].max:.2f}",
            f"{ms(added[way].min)} / {ms(added[way].median)} / {ms(added[way].max)}",
            f"{series.median / episodes.median:.2f}×",
            str(tokens),
            "0",
        ]
        for way, series in replays.items()
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", action="append", choices=("zenity", "mousepad"))
    args = parser.parse_args()
    print(machine_line())
    rows = []
    async with Sandbox() as desktop:
        for name in args.only or ("zenity", "mousepad"):
            rows += await _bench(name, desktop, args.rounds)
    headers = (
        "workflow", "recorded episode ms", "its act_ui calls ms",
        "replay min / median / max ms", "replay / its round's acts min / median / max",
        "replay besides its act_ui calls min / median / max ms",
        "replay / episode", "episode tokens", "replay tokens",
    )  # fmt: skip
    print(table(headers, rows))
    print(machine_line())


if __name__ == "__main__":
    asyncio.run(main())
