"""What an agent keeps of a page from actui's result text alone: its lines, kept current.

A first view gives the lines an agent sees (elements, paragraphs, runs) with
their nesting; a diff changes them in place (``+``, ``~``, ``-`` lines, in the
view's own units). The agent acts on what it keeps, so the text must carry
everything needed to act (refs, roles, names, values, states): this module
reads nothing else, never ``structuredContent``. Pure parsing, no MCP.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from actui.outline.fold import USUAL_CAPS, plural  # how lines write {caps} and counts

_Q = r'"(?:[^"\\]|\\.)*"'
ELEMENT = re.compile(
    rf"^(?P<ref>@e\d+) (?P<role>[\w-]+)(?: (?P<label>{_Q}))?(?P<inferred> \(label inferred\))?"
    r"(?P<rest>.*)$"
)
PARAGRAPH = re.compile(rf"^(?P<ref>@e\d+) … (?P<last>@e\d+): text (?P<text>{_Q})$")
RUN = re.compile(r"^(?P<ref>@e\d+) … (?P<last>@e\d+): (?P<count>\d+) × (?P<role>[\w-]+)")
_VALUE = re.compile(rf" value=(?P<value>{_Q})")
_CAPS = re.compile(r" \{(?P<caps>[\w,-]+)\}")
_MARKS = re.compile(r" \[(?P<marks>[\w, -]+)\]")
_FOLD = re.compile(r" ▸ \(.*$")
_FOLDED = re.compile(r" ▸ (?:together )?\(\d+(?: more)?: (?P<roles>.*)\)$")
VIEW_HEAD = re.compile(r"^stateId (?P<state>s\d+): ")
DIFF_HEAD = re.compile(r"^(?P<base>s\d+) → (?P<state>s\d+)(?P<none>: no changes)?$")
ADDED = re.compile(
    r"^\+ (?P<indent> *)(?P<ref>@e\d+)(?: … (?P<last>@e\d+))?"
    r"(?: under (?P<parent>@e\d+|root)(?: after (?P<after>@e\d+)| (?P<first>first))?)?"
    r"(?::| )(?P<rest>.*)$"
)
FIRST = "first"
CHANGED = re.compile(
    rf"^~ (?P<ref>@e\d+)(?: \((?:@e\d+(?: > @e\d+)*|root)\))? (?P<role>[\w-]+)"
    rf"(?: (?P<label>{_Q}))?(?P<inferred> \(label inferred\))?(?:: (?P<changes>.*))?$"
)
CHANGED_TEXT = re.compile(rf"^~ (?P<ref>@e\d+) … (?P<last>@e\d+): text (?P<text>{_Q})$")
REMOVED = re.compile(r"^- (?P<ref>@e\d+) \(was .*?(?:; with (?P<with>(?:@e\d+ ?)+))?\)$")
_CHANGE = re.compile(rf"(?P<field>\w+)=(?P<quoted>{_Q})|(?P<move>[+-][\w-]+)")


@dataclass
class Row:
    """One line an agent keeps: an element, a paragraph (role ``text``) or a run."""

    ref: str
    role: str
    label: str = ""
    value: str | None = None
    caps: frozenset[str] = frozenset()
    marks: set[str] = field(default_factory=set)
    inferred: bool = False
    last: str | None = None
    """A paragraph's or a run's last ref."""
    parent: str | None = None
    children: list[str] = field(default_factory=list)


def _caps(role: str, listed: str | None) -> frozenset[str]:
    caps = set(USUAL_CAPS.get(role, frozenset()))
    for cap in (listed or "").split(","):
        if cap.startswith("-"):
            caps.discard(cap[1:])
        elif cap:
            caps.add(cap)
    return frozenset(caps)


def parse_line(line: str) -> Row | None:
    """A view line (no indent) as a row, or None when it is no element line."""
    line = _FOLD.sub("", line)
    if found := PARAGRAPH.match(line):
        return Row(found["ref"], "text", json.loads(found["text"]), last=found["last"])
    if found := RUN.match(line):
        return Row(found["ref"], "run", found["role"], last=found["last"])
    if not (found := ELEMENT.match(line)):
        return None
    rest = found["rest"]
    value, caps, marks = _VALUE.search(rest), _CAPS.search(rest), _MARKS.search(rest)
    role = found["role"]
    return Row(
        found["ref"],
        role,
        json.loads(found["label"]) if found["label"] else "",
        json.loads(value["value"]) if value else None,
        _caps(role, caps["caps"] if caps else None),
        set(marks["marks"].split(", ")) if marks else set(),
        bool(found["inferred"]),
    )


class Unplaceable(ValueError):
    """A diff line the page kept cannot be brought up to date by (an agent observes again)."""


@dataclass
class _Added:
    """The ``+`` lines of one diff, each with its parent and the line it goes after: said on
    the line, or by its indent under the fragment's line one indent up."""

    rows: list[tuple[Row, str, str | None]] = field(default_factory=list)
    path: list[str] = field(default_factory=list)
    last_under: dict[str, str] = field(default_factory=dict)

    def anchored(self, row: Row, parent: str, after: str | None) -> None:
        self.rows.append((row, parent, after))
        self.path = [row.ref]
        self.last_under[parent] = row.ref

    def indented(self, row: Row, depth: int, line: str) -> None:
        if not 0 < depth <= len(self.path):
            raise Unplaceable(f"an indented line with no line above it: {line}")
        parent = self.path[depth - 1]
        self.rows.append((row, parent, self.last_under.get(parent, FIRST)))
        del self.path[depth:]
        self.path.append(row.ref)
        self.last_under[parent] = row.ref


@dataclass
class Page:
    """The lines of a page an agent has read, with the state they are of."""

    state: str = ""
    rows: dict[str, Row] = field(default_factory=dict)
    root: str | None = None
    folded: Counter[str] = field(default_factory=Counter)
    """Roles of what the last view folded away, as its ``▸ (N more: …)`` counts say."""
    folded_more: bool = False
    """A fold of the last view did not list all its roles (``…``)."""

    # -- reading results ----------------------------------------------------

    def read(self, text: str) -> None:
        """Take a result's view or diff, if it has one (the state moves on either way)."""
        lines = text.splitlines()
        for at, line in enumerate(lines):
            if head := VIEW_HEAD.match(line):
                self.state = head["state"]
                self._view(lines[at + 1 :])
                return
            if head := DIFF_HEAD.match(line):
                if self.state and head["base"] != self.state:
                    raise Unplaceable(f"a diff from {head['base']}, but the page is {self.state}")
                self.state = head["state"]
                added = _Added()
                for change in lines[at + 1 :]:
                    self._change(change, added)
                self._place(added)
                return
            if moved := re.search(r"into stateId (s\d+)", line):
                self.state = moved.group(1)

    def _view(self, lines: list[str]) -> None:
        self.rows, self.root, self.folded, self.folded_more = {}, None, Counter(), False
        stack: list[tuple[int, str]] = []
        for line in lines:
            if fold := _FOLDED.search(line):
                self._count_folded(fold["roles"])
            indent = len(line) - len(line.lstrip(" "))
            row = parse_line(line.strip())
            if row is None:
                continue
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if stack:
                self._attach(row, stack[-1][1], None)
            else:
                self.rows[row.ref] = row
                self.root = row.ref
            stack.append((indent, row.ref))

    def _count_folded(self, roles: str) -> None:
        for entry in roles.split(", "):
            if entry == "…":
                self.folded_more = True
                continue
            count, _, word = entry.partition(" ")
            self.folded[_singular(word, int(count))] += int(count)

    def _attach(self, row: Row, parent: str | None, after: str | None) -> None:
        """Keep ``row`` under ``parent``: after the line ``after``, first (``FIRST``), or
        last when it names none or one the agent never saw."""
        self.rows[row.ref] = row
        holder = self.rows.get(parent or "") if parent != "root" else self.rows.get(self.root or "")
        if holder is None:
            return  # a line under one the agent did not see: known, not placed
        row.parent = holder.ref
        kids = holder.children
        at = 0 if after == FIRST else kids.index(after) + 1 if after in kids else len(kids)
        kids.insert(at, row.ref)

    def _place(self, added: _Added) -> None:
        """Put added lines where their diff says: after the line named, once that one is
        placed (it may be added too)."""
        waiting = list(added.rows)
        while waiting:
            ready = [a for a in waiting if self._placed(a[1]) and self._placed(a[2])]
            for item in ready or waiting[:1]:
                waiting.remove(item)
                self._attach(*item)

    def _placed(self, ref: str | None) -> bool:
        """Whether a diff's parent or anchor can be put to use: none is needed, or it is a
        line kept, not one added by the same diff and still waiting."""
        return ref in (None, FIRST, "root") or ref in self.rows

    def _change(self, line: str, added: _Added) -> None:
        if found := ADDED.match(line):
            rest = found["rest"].strip()
            row = parse_line(
                f"{found['ref']} … {found['last']}: {rest}"
                if found["last"]
                else f"{found['ref']} {rest}"
            )
            if row is None:
                raise Unplaceable(line)
            if found["parent"]:
                added.anchored(row, found["parent"], FIRST if found["first"] else found["after"])
            else:
                added.indented(row, len(found["indent"]) // 2, line)
        elif found := CHANGED_TEXT.match(line):
            row = self._paragraph(found["ref"], found["last"])
            row.label, row.last = json.loads(found["text"]), found["last"]
        elif found := CHANGED.match(line):
            self._update(found)
        elif found := REMOVED.match(line):
            for ref in [found["ref"], *(found["with"] or "").split()]:
                self._drop(ref)

    def _paragraph(self, first: str, last: str) -> Row:
        """The kept paragraph a ``~`` line is about (its first or its last piece stayed)."""
        for row in self.rows.values():
            if row.role == "text" and (row.ref == first or row.last == last):
                if row.ref != first:  # its first piece went: it is keyed by the new one
                    self._rekey(row, first)
                return row
        raise Unplaceable(f"no paragraph {first} … {last} kept")

    def _rekey(self, row: Row, ref: str) -> None:
        old = row.ref
        del self.rows[old]
        row.ref = ref
        self.rows[ref] = row
        parent = self.rows.get(row.parent or "")
        if parent is not None:
            parent.children[parent.children.index(old)] = ref

    def _update(self, found: re.Match[str]) -> None:
        ref = found["ref"]
        row = self.rows.get(ref)
        if row is None:  # changed but never shown: known from now on, not placed
            row = self.rows[ref] = Row(ref, found["role"])
        row.role = found["role"]
        row.label = json.loads(found["label"]) if found["label"] else ""
        row.inferred = bool(found["inferred"])
        for change in _CHANGE.finditer(found["changes"] or ""):
            if change["move"]:
                sign, mark = change["move"][0], change["move"][1:]
                (row.marks.add if sign == "+" else row.marks.discard)(mark)
            elif change["field"] == "value":
                row.value = json.loads(change["quoted"])

    def _drop(self, ref: str) -> None:
        row = self.rows.pop(ref, None)
        if row is None:
            return
        parent = self.rows.get(row.parent or "")
        if parent is not None and ref in parent.children:
            parent.children.remove(ref)
        for child in list(row.children):
            self._drop(child)

    # -- what an agent looks for ------------------------------------------

    def ordered(self) -> Iterator[Row]:
        """The kept lines in reading order (those never placed last)."""
        seen: set[str] = set()
        stack = [self.root] if self.root else []
        while stack:
            row = self.rows.get(stack.pop())
            if row is None or row.ref in seen:
                continue
            seen.add(row.ref)
            yield row
            stack.extend(reversed(row.children))
        yield from (row for ref, row in self.rows.items() if ref not in seen)

    def texts(self) -> list[str]:
        """The page's texts in reading order: its label lines and paragraphs."""
        return [r.label for r in self.ordered() if r.role in ("label", "text") and r.label]

    def complete(self, role: str) -> bool:
        """Whether every element of ``role`` is on a line kept: none folded or in a run."""
        runs = any(r.role == "run" and r.label == role for r in self.rows.values())
        return not (self.folded_more or self.folded[role] or runs)

    def find(self, role: str | None = None, label: str | None = None) -> list[Row]:
        return [
            r
            for r in self.ordered()
            if (role is None or r.role == role) and (label is None or r.label == label)
        ]


def _singular(word: str, count: int) -> str:
    """The role a fold's count names (``3 textboxes``: textbox), by the rule that wrote it."""
    if count == 1:
        return word
    stems = [word[:-2], word[:-3] + "y", word[:-1]]
    return next((stem for stem in stems if plural(stem, count) == word), word)
