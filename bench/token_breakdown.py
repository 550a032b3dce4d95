"""Where an agent's tokens go: a ``bench_tokens.py`` dump tallied per call kind and line kind.

``.venv/bin/python bench/token_breakdown.py DUMP [DUMP...]``, where DUMP is the file a
``BENCH_DUMP=DUMP bench/bench_tokens.py`` run appended to. Only the calls of solved
episodes count (the dump marks each episode's start and end), so the figures are
those of "tokens per solved episode". Per server it prints, per tool, the tokens of
its results and their share, and per kind of line (a header, a view's element line,
a fold, a diff's added line, a search match, playwright-mcp's code block…) the
tokens of those lines over all calls. A line's tokens are o200k_base tokens of the
line and its line break, so the kinds add up to within a few tokens of the whole.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from o200k import tokens

CALL = re.compile(r"^=== (\S+) (.*) \[(\d+)\]$")
EPISODE = re.compile(r"^### episode (\S+) (\S+) (\d+)$")
END = re.compile(r"^### end (solved|unsolved)$")


@dataclass
class Call:
    tool: str
    text: list[str] = field(default_factory=list)


@dataclass
class Episode:
    server: str
    task: str
    calls: list[Call] = field(default_factory=list)


def episodes(lines: Sequence[str]) -> Iterator[Episode]:
    """The solved episodes of a dump, each with its calls' result lines."""
    current: Episode | None = None
    for line in lines:
        if started := EPISODE.match(line):
            current = Episode(started[1], started[2])
        elif ended := END.match(line):
            if current is not None and ended[1] == "solved":
                yield current
            current = None
        elif called := CALL.match(line):
            if current is not None:
                current.calls.append(Call(called[1]))
        elif current is not None and current.calls:
            current.calls[-1].text.append(line)


_DIFF = {"+": "diff: + added", "~": "diff: ~ changed", "-": "diff: - removed"}


def actui_kind(tool: str, index: int, line: str, in_view: bool) -> str:
    """What one line of an actui result is."""
    stripped = line.lstrip()
    if index == 0 and tool not in ("read_text", "search_ui", "expand_ui"):
        return "header: tool line"
    if line.startswith(("stateId ", "observe_ui ")) or re.match(r"^s\d+ → s\d+", line):
        return "header: state line"
    if line.startswith("value: "):
        return "evaluate value"
    if line.startswith("console: "):
        return "console"
    if line.startswith("▸ folds:"):
        return "fold receipt"
    if line[:1] in _DIFF and line[1:2] == " ":
        return _DIFF[line[0]]
    if re.match(r"^\(\d+ ", line):
        return "diff: counted, not listed"
    if tool == "search_ui":
        return "search: head" if line.startswith("found ") else "search: match"
    if tool == "read_text":
        return "read_text"
    if tool == "expand_ui":
        return "expand_ui"
    if in_view and re.match(r"^@e\d+ … @e\d+: text ", stripped):
        return "view: text line"
    if in_view and stripped.startswith("@e"):
        return "view: element line"
    return "other"


def playwright_kind(section: str, line: str) -> str:
    if line.startswith("### "):
        return "section titles"
    return {
        "Ran Playwright code": "code block",
        "Page": "page URL and title",
        "Snapshot": "snapshot",
        "Result": "evaluate value",
        "Events": "events",
    }.get(section, "other")


@dataclass
class Tally:
    calls: Counter[str] = field(default_factory=Counter)
    by_tool: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    fold_suffix: int = 0
    episodes: int = 0


_FOLD = re.compile(r" ▸ \(.*\)$")


def tally(found: Sequence[Episode]) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for episode in found:
        mine = out.setdefault(episode.server, Tally())
        mine.episodes += 1
        for call in episode.calls:
            mine.calls[call.tool] += 1
            mine.by_tool[call.tool] += tokens("\n".join(call.text))
            in_view = any(line.startswith("stateId ") for line in call.text)
            section = ""
            for index, line in enumerate(call.text):
                cost = tokens(line + "\n")
                if episode.server == "actui":
                    kind = actui_kind(call.tool, index, line, in_view)
                    if fold := _FOLD.search(line):
                        fold_cost = tokens(fold.group())
                        mine.fold_suffix += fold_cost
                        mine.by_kind["view: fold suffix ▸ (N more…)"] += fold_cost
                        cost -= fold_cost
                else:
                    if line.startswith("### "):
                        section = line[4:]
                    kind = playwright_kind(section, line)
                mine.by_kind[f"{call.tool} · {kind}"] += cost
    return out


def report(found: Sequence[Episode]) -> str:
    lines: list[str] = []
    for server, mine in tally(found).items():
        whole = sum(mine.by_tool.values()) or 1
        per = mine.episodes or 1
        lines += [
            f"{server}: {mine.episodes} solved episodes, {whole:,} tokens "
            f"({whole / per:.0f} per episode)",
            "",
            "| tool | calls | tokens | per episode | share |",
            "|---|---|---|---|---|",
        ]
        for tool, spent in mine.by_tool.most_common():
            lines.append(
                f"| {tool} | {mine.calls[tool]} | {spent:,} | {spent / per:.0f} | "
                f"{spent * 100 / whole:.0f}% |"
            )
        lines += ["", "| tool · kind of line | tokens | per episode | share |", "|---|---|---|---|"]
        kinds = sum(mine.by_kind.values()) or 1
        for kind, spent in mine.by_kind.most_common():
            lines.append(f"| {kind} | {spent:,} | {spent / per:.1f} | {spent * 100 / kinds:.0f}% |")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    if not argv:
        raise SystemExit(__doc__.split("\n")[2])
    found = [e for path in argv for e in episodes(Path(path).read_text().splitlines())]
    if not found:
        raise SystemExit("no solved episodes in the dump (was it written by bench_tokens.py?)")
    print(report(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
