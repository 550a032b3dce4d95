"""The MiniWoB++ tasks solved through playwright-mcp, as a competent agent would use it.

The peer of ``tests/integration/miniwob_agent.py`` for ``bench_tokens.py``: the
same harness (seed and start an episode, read the task's reward, with
``browser_evaluate`` and nothing else), and per task a policy that reads the
instruction and its targets from one ``browser_snapshot`` and acts on the
snapshot's refs with ``browser_click`` / ``browser_fill_form`` /
``browser_select_option``. Actions' results put their new snapshot in a file
(0.0.83 does so for every tool but ``browser_snapshot``); the policies never
read those files, since the refs of the first snapshot stay valid.

Tasks whose target playwright's snapshot does not show (MiniWoB's ``alink``
spans are plain text to it; an ``<input>`` and a ``<textarea>`` are both
``textbox``) are left out rather than solved through ``browser_evaluate``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from miniwob_agent import EPISODE_MS, quoted

PACKAGE_DIR = Path(__file__).resolve().parent / ".baselines" / "playwright-mcp"
EXECUTABLE = PACKAGE_DIR / "node_modules" / ".bin" / "playwright-mcp"


def server_args(output_dir: Path) -> list[str]:
    """playwright-mcp's command line: Debian's chromium, headless, no profile on disk.

    file:// pages need ``--allow-unrestricted-file-access``; chromium refuses to
    start as root without ``--no-sandbox`` (actui's launcher passes it too).
    """
    return [
        "--executable-path",
        "/usr/bin/chromium",
        "--headless",
        "--isolated",
        "--no-sandbox",
        "--allow-unrestricted-file-access",
        "--output-dir",
        str(output_dir),
    ]


class Caller(Protocol):
    async def __call__(self, tool: str, arguments: dict[str, Any]) -> str: ...


class PolicyFailed(RuntimeError):
    """The snapshot did not hold what the policy needed."""


@dataclass(frozen=True)
class Node:
    """One line of an aria snapshot: ``- role "name" [attr]... [ref=X]: text``."""

    depth: int
    role: str
    name: str
    attrs: tuple[str, ...]
    ref: str | None
    text: str | None
    parent: int | None


_ITEM = re.compile(r"^(?P<indent> *)- (?P<body>.*)$")
_KEY = re.compile(
    r'^(?P<role>[^\s"\[]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<attrs>(?: \[[^\]]*\])*)$'
)


def _scalar(text: str) -> str:
    """A YAML scalar as playwright writes one: plain, "double" (JSON escapes) or 'single'."""
    if text.startswith('"'):
        return str(json.loads(text))
    if len(text) > 1 and text.startswith("'") and text.endswith("'"):
        return text[1:-1].replace("''", "'")
    return text


def _split(body: str) -> tuple[str, str | None]:
    """An item's key and its value after ``:`` (None when it has children or no colon)."""
    if body.startswith("'"):
        at = 1
        while at < len(body):
            if body[at] == "'" and body[at + 1 : at + 2] == "'":
                at += 2
            elif body[at] == "'":
                break
            else:
                at += 1
        key, rest = body[1:at].replace("''", "'"), body[at + 1 :]
    elif body.startswith('"'):
        key, end = json.JSONDecoder().raw_decode(body)
        rest = body[end:]
    else:
        colon = re.search(r": |:$", body)
        key, rest = (body[: colon.start()], body[colon.start() :]) if colon else (body, "")
    value = rest[1:].strip() if rest.startswith(":") else ""
    return key, _scalar(value) if value else None


def parse_snapshot(yaml_text: str) -> list[Node]:
    """The nodes of a playwright aria snapshot, in document order, with their parents."""
    nodes: list[Node] = []
    stack: list[int] = []
    for line in yaml_text.splitlines():
        item = _ITEM.match(line)
        if not item:
            continue
        depth = len(item["indent"]) // 2
        key, text = _split(item["body"])
        parsed = _KEY.match(key)
        if not parsed:
            continue
        attrs = tuple(re.findall(r"\[([^\]]*)\]", parsed["attrs"] or ""))
        ref = next((a[4:] for a in attrs if a.startswith("ref=")), None)
        name = json.loads(f'"{parsed["name"]}"') if parsed["name"] else ""
        del stack[depth:]
        parent = stack[-1] if stack else None
        nodes.append(Node(depth, parsed["role"], name, attrs, ref, text, parent))
        stack.append(len(nodes) - 1)
    return nodes


def section(text: str, title: str) -> str:
    """The body of one ``### title`` section of a playwright-mcp result."""
    found = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^### |\Z)", text, re.M | re.S)
    if not found:
        raise PolicyFailed(f"no {title!r} section in {text[:200]!r}")
    return found.group(1).strip()


class Snapshot:
    """What one ``browser_snapshot`` showed."""

    def __init__(self, text: str) -> None:
        body = section(text, "Snapshot")
        self.nodes = parse_snapshot(re.sub(r"^```\w*\n|\n```$", "", body))

    def instruction(self) -> str:
        """The task's query: the first text the page shows."""
        return next(n.text for n in self.nodes if n.text and n.role == "generic")

    def all(self, role: str) -> list[Node]:
        return [n for n in self.nodes if n.role == role and n.ref]

    def find(self, role: str, name: str) -> Node:
        for node in self.all(role):
            if node.name == name:
                return node
        raise PolicyFailed(f"no {role} {name!r}; saw {[n.name for n in self.all(role)]}")


class PlaywrightEpisode:
    """One MiniWoB page in playwright-mcp's browser, seen by an agent through its tools."""

    def __init__(self, call: Caller) -> None:
        self.call = call

    async def open(self, url: str) -> None:
        await self.call("browser_navigate", {"url": url})

    async def begin(self, seed: int) -> None:
        script = (
            f"() => {{ Math.seedrandom({json.dumps(str(seed))}); "
            f"core.EPISODE_MAX_TIME = {EPISODE_MS}; core.startEpisodeReal(); "
            "return WOB_TASK_READY; }"
        )
        if json.loads(section(await self.call("browser_evaluate", {"function": script}), "Result")):
            return
        raise PolicyFailed("the task did not report ready")

    async def reward(self) -> float:
        """The task's raw reward, 0 unless the episode is done."""
        script = "() => ({done: WOB_DONE_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL})"
        got = json.loads(
            section(await self.call("browser_evaluate", {"function": script}), "Result")
        )
        return float(got["raw"]) if got["done"] else 0.0

    # -- what an agent does -------------------------------------------------

    async def snapshot(self) -> Snapshot:
        return Snapshot(await self.call("browser_snapshot", {}))

    async def click(self, node: Node) -> None:
        await self.call("browser_click", {"element": _described(node), "target": node.ref})

    async def fill(self, fields: Sequence[tuple[Node, str]]) -> None:
        entries = [
            {"target": n.ref, "name": _described(n), "type": _FIELD_TYPES[n.role], "value": value}
            for n, value in fields
        ]
        await self.call("browser_fill_form", {"fields": entries})

    async def select(self, node: Node, values: Sequence[str]) -> None:
        await self.call(
            "browser_select_option",
            {"element": _described(node), "target": node.ref, "values": list(values)},
        )


_FIELD_TYPES = {"textbox": "textbox", "checkbox": "checkbox", "radio": "radio"}


def _described(node: Node) -> str:
    return f"{node.role} {node.name!r}" if node.name else node.role


Policy = Callable[[PlaywrightEpisode], Awaitable[None]]
POLICIES: dict[str, Policy] = {}


def policy(*tasks: str) -> Callable[[Policy], Policy]:
    def register(fn: Policy) -> Policy:
        for task in tasks:
            POLICIES[task] = fn
        return fn

    return register


async def run_episode(episode: PlaywrightEpisode, task: str, seed: int) -> float:
    """Start ``task`` with ``seed``, let its policy act, and return the task's raw reward."""
    await episode.begin(seed)
    await POLICIES[task](episode)
    return await episode.reward()


# -- policies -------------------------------------------------------------------


@policy("click-test")
async def click_test(ep: PlaywrightEpisode) -> None:
    await ep.click((await ep.snapshot()).find("button", "Click Me!"))


@policy("click-test-2", "click-button")
async def click_named_button(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    said = snap.instruction()
    label = quoted(said)[0] if quoted(said) else said.split("button ")[1].rstrip(".")
    await ep.click(snap.find("button", label))


@policy("click-button-sequence")
async def click_button_sequence(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    for label in re.findall(r"button (\w+)", snap.instruction()):
        await ep.click(snap.find("button", label))


@policy("click-dialog", "click-dialog-2")
async def click_dialog(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    said = quoted(snap.instruction())
    label = said[0] if said and said[0] != "x" else "Close"
    await ep.click(snap.find("button", label))


@policy("click-tab")
async def click_tab(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    number = re.findall(r"Tab #(\d+)", snap.instruction())[0]
    await ep.click(snap.find("link", f"Tab #{number}"))


@policy("click-collapsible")
async def click_collapsible(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    await ep.click(next(t for t in snap.all("tab") if t.name))
    await ep.click(snap.find("button", "Submit"))


@policy("click-checkboxes", "click-option")
async def click_checkboxes(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    said = snap.instruction()
    wanted = set(re.sub(r"^Select (.*) and click Submit\.$", r"\1", said).split(", "))
    boxes = [b for b in snap.all("checkbox") + snap.all("radio") if b.name in wanted]
    if boxes:
        await ep.fill([(b, "true") for b in boxes])
    await ep.click(snap.find("button", "Submit"))


@policy("choose-list", "click-scroll-list")
async def choose_list(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    said = snap.instruction()
    names = re.sub(r"^Select (.*) from the (?:scroll )?list and click Submit\.$", r"\1", said)
    (chooser,) = snap.all("combobox") + snap.all("listbox")
    await ep.select(chooser, names.split(", "))
    await ep.click(snap.find("button", "Submit"))


@policy("enter-text", "enter-text-dynamic", "enter-text-2")
async def enter_text(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    said = snap.instruction()
    (word,) = quoted(said)
    if "upper case" in said:
        word = word.upper()
    elif "lower case" in said:
        word = word.lower()
    (box,) = snap.all("textbox")
    await ep.fill([(box, word)])
    await ep.click(snap.find("button", "Submit"))


@policy("enter-password")
async def enter_password(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    (secret,) = quoted(snap.instruction())
    await ep.fill([(box, secret) for box in snap.all("textbox")])
    await ep.click(snap.find("button", "Submit"))


@policy("login-user")
async def login_user(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    user, secret = quoted(snap.instruction())
    name, password = snap.all("textbox")
    await ep.fill([(name, user), (password, secret)])
    await ep.click(snap.find("button", "Login"))


@policy("focus-text", "focus-text-2")
async def focus_text(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    nth = re.findall(r"(\d)(?:st|nd|rd|th)", snap.instruction())
    boxes = snap.all("textbox")
    await ep.click(boxes[int(nth[0]) - 1] if nth else boxes[0])


@policy("simple-arithmetic")
async def simple_arithmetic(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    (problem,) = [n.text for n in snap.nodes if n.text and n.text.endswith("=")]
    left, op, right = problem.rstrip("= ").split()
    a, b = int(left), int(right)
    answer = {"+": a + b, "-": a - b, "x": a * b}[op]
    (box,) = snap.all("textbox")
    await ep.fill([(box, str(answer))])
    await ep.click(snap.find("button", "Submit"))


@policy("read-table")
async def read_table(ep: PlaywrightEpisode) -> None:
    snap = await ep.snapshot()
    key = re.sub(r"^Enter the value of (.*) into the text field.*$", r"\1", snap.instruction())
    cells = [c.name for c in snap.all("cell")]
    value = cells[cells.index(key) + 1]
    (box,) = snap.all("textbox")
    await ep.fill([(box, value)])
    await ep.click(snap.find("button", "Submit"))
