"""Ranked search over a complete outline: text tiers, role and capability filters.

Text matches a node's own words (name, description, value) only: never its
role, never a native id, never a password's value. Roles are compared through
the neutral vocabulary, so ``button`` finds a GTK3 ``push button``.

This module ranks and renders matches. It must not fold, diff, capture or
escalate to a live look; the caller decides what to do with an empty result.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from actui.errors import InvalidParams
from actui.outline.fold import INFERRED, LABEL_CAP, caps_text, ordered_caps, path_text
from actui.outline.model import Node, Outline, is_hidden, is_offscreen
from actui.outline.roles import neutral_role, normalize_role
from actui.quoting import clip, quote

Tier = Literal["exact", "prefix", "substring", "fuzzy"]
Reason = Literal["exact", "prefix", "substring", "fuzzy", "filter"]

QUERY_CAP = 256
CANDIDATE_CAP = 512
TOKEN_CAP = 256
FUZZY_THRESHOLD = 0.72
TOP_N = 12

_TIER_SCORES: dict[Tier, float] = {"exact": 1.0, "prefix": 0.95, "substring": 0.90}
_REASON_ORDER: dict[Reason, int] = {"exact": 0, "prefix": 1, "substring": 2, "filter": 3}
_NON_WORD = re.compile(r"\W+")
_CAP_ALIASES = {"click": "press", "activate": "press", "type": "typetext"}
"""Capability words agents use for a neutral capability (compared normalized)."""


@dataclass(frozen=True)
class Match:
    """One search hit, in plain values (no node objects cross this line)."""

    ref: str
    role: str
    label: str
    reason: Reason
    score: float
    path: str
    caps: tuple[str, ...]
    actions: tuple[str, ...] = ()
    inferred: bool = False
    """The label was found by layout, not given by the platform."""
    hidden: bool = False
    """The element is not displayed at all (``model.is_hidden``): listed ``[hidden]``."""


@dataclass(frozen=True)
class SearchResult:
    """The returned matches and how many matched in all."""

    matches: tuple[Match, ...]
    total: int


def normalize_text(text: str) -> str:
    """Lowercased, whitespace collapsed and trimmed."""
    return " ".join(text.lower().split())


def osa_distance(a: str, b: str, cap: int | None = None) -> int:
    """Optimal string alignment distance: insert, delete, substitute, adjacent swap.

    With ``cap``, the work stops as soon as the distance must exceed it and
    some value above ``cap`` is returned: fuzzy ranking only needs to know
    whether a word is close.
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    limit = len(a) if cap is None else cap
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, before[j - 2] + 1)
            current[j] = best
        if min(current) > limit and min(previous) >= limit:
            return limit + 1
        before, previous = previous, current
    return previous[-1]


@lru_cache(maxsize=8192)
def _similarity(query: str, text: str) -> float:
    """``1 − OSA / longer length`` when it reaches the fuzzy threshold, else 0."""
    longest = max(len(query), len(text))
    cap = int((1 - FUZZY_THRESHOLD) * longest + 1e-9)
    if abs(len(query) - len(text)) > cap:
        return 0.0
    score = 1 - osa_distance(query, text, cap) / longest
    return score if score >= FUZZY_THRESHOLD else 0.0


def rank_text(query: str, candidates: Sequence[str]) -> tuple[Tier, float] | None:
    """The best tier and score of ``query`` over ``candidates``, or None below fuzzy."""
    q = normalize_text(query)[:QUERY_CAP]
    if not q:
        return None
    # a document's page carries pages of text: the exact tiers read all of it (linear),
    # only the fuzzy one (quadratic per word) stops at CANDIDATE_CAP
    whole = {t for t in (normalize_text(c) for c in candidates) if t}
    texts = {t[:CANDIDATE_CAP] for t in whole}
    tokens = {tok for t in whole for tok in _NON_WORD.split(t) if tok}
    if q in whole:
        return "exact", _TIER_SCORES["exact"]
    if any(t.startswith(q) for t in whole | tokens):
        return "prefix", _TIER_SCORES["prefix"]
    if any(q in t for t in whole):
        return "substring", _TIER_SCORES["substring"]
    words = texts | {tok for tok in tokens if len(tok) <= TOKEN_CAP}
    best = max((_similarity(q, word) for word in words), default=0.0)
    return ("fuzzy", best) if best else None


def _role_filter(role: str) -> Callable[[Node], bool]:
    wanted = normalize_role(neutral_role(role))
    return lambda node: wanted in (normalize_role(node.role), normalize_role(node.raw_role))


def _capability_filter(capability: str) -> Callable[[Node], bool]:
    """Neutral capabilities (with aliases), or an action name containing the query."""
    key = normalize_role(capability)
    key = _CAP_ALIASES.get(key, key)
    word = capability.strip().lower()

    def matches(node: Node) -> bool:
        if any(normalize_role(cap) == key for cap in node.caps):
            return True
        return any(word in action.lower() for action in node.actions)

    return matches


def node_filter(role: str | None = None, capability: str | None = None) -> Callable[[Node], bool]:
    """Whether a node passes a search's role and capability filters (blank ones pass all):
    the test a search applies, for a reader on demand that stops at the first match."""
    filters = [
        make(value.strip())
        for value, make in ((role, _role_filter), (capability, _capability_filter))
        if value and value.strip()
    ]
    return lambda node: all(accepts(node) for accepts in filters)


def _match(outline: Outline, node: Node, reason: Reason, score: float) -> Match:
    return Match(
        ref=node.ref,
        role=node.role,
        label=clip(node.label, LABEL_CAP),
        reason=reason,
        score=round(score, 4),
        path=path_text(outline, node),
        caps=ordered_caps(node),
        actions=node.actions,
        inferred=node.name_inferred,
        hidden=is_hidden(node),
    )


def search(
    outline: Outline,
    *,
    text: str | None = None,
    role: str | None = None,
    capability: str | None = None,
    limit: int = TOP_N,
) -> SearchResult:
    """Rank every node of the complete outline and return the best ``limit``.

    Exact, prefix, substring and filter-only matches come first (what is displayed
    before what is not, then by tier, on-screen before out of sight, score, then
    breadth-first order); fuzzy matches fill the rest only when
    fewer than ``limit`` strong ones exist, and only then count in the total.
    """
    limit = max(1, limit)
    query = (text or "").strip()
    if not query and not any(v and v.strip() for v in (role, capability)):
        raise InvalidParams("text", "is empty", "Give at least one of text, role or capability.")
    passes = node_filter(role, capability)
    strong: list[tuple[bool, int, bool, float, int, Node, Reason]] = []
    fuzzy: list[tuple[bool, int, bool, float, int, Node, Reason]] = []
    for order, node in enumerate(outline):
        if not passes(node):
            continue
        reason: Reason = "filter"
        score = 1.0
        if query:
            ranked = rank_text(query, (node.name, node.description, node.value))
            if ranked is None:
                continue
            reason, score = ranked
        # What is not displayed at all (a closed find bar's field) comes after everything
        # shown; within a tier, what is on screen comes before what is out of sight (closed
        # popovers, other stack pages): that is what an agent can act on now.
        hidden, away = is_hidden(node), is_offscreen(node)
        if reason == "fuzzy":
            fuzzy.append((hidden, 0, away, -score, order, node, reason))
        else:
            strong.append((hidden, _REASON_ORDER[reason], away, -score, order, node, reason))
    hits = sorted(strong, key=lambda hit: hit[:5])
    if len(hits) < limit:
        hits += sorted(fuzzy, key=lambda hit: hit[:5])
    matches = tuple(
        _match(outline, node, reason, -score) for *_, score, _, node, reason in hits[:limit]
    )
    return SearchResult(matches=matches, total=len(hits))


def render_search(result: SearchResult) -> str:
    """``found N`` (``; returned M`` and a refine hint when the limit held some back),
    then each match (with how its text matched); its path only where
    another match reads the same (the path is always in the structured details)."""
    returned = len(result.matches)
    if not result.total:
        head = (
            "found 0. Try another text, a role or a capability "
            "(observe_ui again if the window changed)."
        )
    elif result.total > returned:
        head = (
            f"found {result.total}; returned {returned}. "
            "Refine with a longer text, a role or a capability to see the rest."
        )
    else:
        head = f"found {result.total}."
    lines = [head]
    seen = Counter((match.role, match.label) for match in result.matches)
    for match in result.matches:
        label = f" {quote(match.label)}" if match.label else ""
        if match.inferred:
            label += f" {INFERRED}"
        if match.hidden:
            label += " [hidden]"
        caps = caps_text(match.role, match.caps)
        reason = f"{match.reason} {match.score:.2f}" if match.reason == "fuzzy" else match.reason
        # a match found by role or capability alone: the query says why, a tag adds nothing
        tag = "" if match.reason == "filter" else f" [{reason}]"
        lines.append(f"{match.ref} {match.role}{label}{caps}{tag}")
        if seen[match.role, match.label] > 1:
            lines.append(f"  path: {match.path}")
    return "\n".join(lines)
