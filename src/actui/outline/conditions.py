"""UI conditions: what an agent expects to see, checked against an outline.

One condition type serves every place that waits or verifies (``wait_for``,
``act_ui.expect`` and ``require``, ``wait`` steps), and one matcher decides it,
so "preexisting", "verified" and "found" can never disagree. Text is a
case-insensitive substring of an element's name, description or value, never
of its role (so "button" does not match every button); roles compare through
the neutral vocabulary; a value compares whole, trimmed, ignoring case. A
condition of only a ref with ``gone: true`` means "this element no longer
exists": its anchor vanishing from the outline is what satisfies it. An element
that is not displayed at all (``model.is_hidden``: a closed find bar's field) is
not what a person sees, so it never matches unless the condition names it: its
``ref``, or a ``scopeRef`` that is itself hidden.
Password values are never read, so they are never matched or shown.

This module owns the rules between a condition's fields (the contract runs
them when it parses one) and evaluates conditions; it must not wait, observe
or talk to a backend (``reaching`` reads on demand what a condition could be
met in, with this module's tests).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from actui.errors import FieldRule, InvalidParams
from actui.outline.model import Node, Outline, is_hidden
from actui.outline.roles import neutral_role
from actui.quoting import quote

Until = Literal["present", "absent"]

DEFAULT_TIMEOUT_MS = 10_000
MIN_TIMEOUT_MS = 100
MAX_TIMEOUT_MS = 60_000
_SHOWN_CHARS = 60
_COMPARED_CHARS = 160
_EXACT_RANKED = 48  # nodes whose exact likeness is computed when ranking the closest


@dataclass(frozen=True)
class UiCondition:
    """A validated condition; ``ref`` (or ``scope_ref`` with ``scope_exact``) is one element.

    ``value`` is already trimmed; ``""`` means "the element's value is empty",
    ``None`` means no value is expected.
    """

    ref: str | None = None
    scope_ref: str | None = None
    scope_exact: bool = False
    text: str | None = None
    role: str | None = None
    value: str | None = None
    until: Until = "present"
    timeout_ms: int = DEFAULT_TIMEOUT_MS

    @property
    def anchor(self) -> str | None:
        """The element the condition is confined to, if any."""
        return self.ref if self.ref is not None else self.scope_ref

    @property
    def exact(self) -> bool:
        """Whether only the anchor itself may match (not its descendants)."""
        return self.ref is not None or self.scope_exact


@dataclass(frozen=True)
class Evaluation:
    """``satisfied`` is ``present`` for ``until: present`` and its negation for absent."""

    satisfied: bool
    present: bool
    matches: tuple[str, ...]


def _at(field: str, key: str) -> str:
    return f"{field}.{key}" if field else key


class ConditionFields(Protocol):
    """A condition as the contract parsed it: types and lengths already checked."""

    ref: str | None
    scopeRef: str | None
    scopeExact: bool | None
    text: str | None
    role: str | None
    value: str | None
    until: Until | None
    gone: bool | None
    timeoutMs: int | None


def _trimmed(value: str | None) -> str | None:
    """None when missing or blank: a blank text constrains nothing."""
    return None if value is None else value.strip() or None


def check_condition(c: ConditionFields) -> None:
    """The rules between a condition's fields; each violation names its key.

    Run by the contract when it parses a condition (types, lengths and
    unknown keys are its schema's), so a condition is validated once.
    """
    ref, scope_ref = _trimmed(c.ref), _trimmed(c.scopeRef)
    text, role = _trimmed(c.text), _trimmed(c.role)
    if ref is not None and scope_ref is not None:
        raise FieldRule(
            "scopeRef",
            "cannot be combined with ref.",
            "Use ref for the element itself, or scopeRef for the element and its descendants.",
        )
    if c.scopeExact and ref is None and scope_ref is None:
        raise FieldRule("scopeExact", "needs scopeRef.", "Name the element with scopeRef or ref.")
    absent = c.until == "absent" or bool(c.gone)
    if text is None and role is None and c.value is None and not (absent and ref is not None):
        raise FieldRule(
            "text",
            "is missing: a condition needs at least one of text, role or value.",
            "To wait for one element to disappear, give its ref with gone: true.",
        )
    if text is None and c.value is None and ref is None and scope_ref is None:
        raise FieldRule(
            "role",
            "alone would match any such element anywhere; it needs ref or scopeRef.",
            "Add text, or say where to look with ref or scopeRef.",
        )
    exact = ref is not None or (scope_ref is not None and bool(c.scopeExact))
    if c.value is not None and not exact:
        raise FieldRule(
            "value",
            "needs ref (or scopeRef with scopeExact: true): a value belongs to one element.",
        )
    if c.gone is not None and c.until is not None and c.gone != (c.until == "absent"):
        raise FieldRule(
            "gone",
            f'conflicts with until: "{c.until}".',
            'Give one of them: gone: true means until: "absent".',
        )


def condition_of(c: ConditionFields) -> UiCondition:
    """The condition the contract validated, in the form the matcher uses.

    Strings are trimmed (an empty ``value`` means "the element is empty"),
    ``gone`` becomes ``until``, and the timeout is clamped.
    """
    timeout = DEFAULT_TIMEOUT_MS if c.timeoutMs is None else c.timeoutMs
    absent = c.until == "absent" or bool(c.gone)
    return UiCondition(
        ref=_trimmed(c.ref),
        scope_ref=_trimmed(c.scopeRef),
        scope_exact=bool(c.scopeExact),
        text=_trimmed(c.text),
        role=_trimmed(c.role),
        value=None if c.value is None else c.value.strip(),
        until="absent" if absent else "present",
        timeout_ms=min(max(timeout, MIN_TIMEOUT_MS), MAX_TIMEOUT_MS),
    )


def _resolve(outline: Outline, ref: str) -> Node | None:
    """An element by model ref (``@eN``) or by the backend's wire ref."""
    node = outline.get(ref)
    return node if node is not None else outline.by_wire().get(ref)


def anchor_node(cond: UiCondition, outline: Outline) -> Node | None:
    """The element the condition is confined to in ``outline`` (None without an anchor, or
    when it is gone)."""
    return None if cond.anchor is None else _resolve(outline, cond.anchor)


def check_scope(cond: UiCondition, outline: Outline, *, field: str) -> None:
    """The anchor must exist in the state the condition is checked against."""
    anchor = cond.anchor
    if anchor is None:
        return
    node = _resolve(outline, anchor)
    key = "ref" if cond.ref is not None else "scopeRef"
    if node is None:
        raise InvalidParams(
            _at(field, key),
            f"{anchor} is not an element of this state.",
            "Use a ref from the same stateId, or call observe_ui again.",
        )
    if node.secure and (cond.value is not None or (cond.text is not None and cond.exact)):
        raise InvalidParams(
            _at(field, "value" if cond.value is not None else "text"),
            f"{anchor} is a password field; its text is never read, so it cannot be compared.",
            "Check something else the app shows once it is filled (a button enabled, a "
            "message), or its role.",
        )


def refuse_secrets(cond: UiCondition, secrets: Collection[str], *, field: str) -> None:
    """A condition must not carry text sent to a password field: it would be echoed back.

    The check is folded like matching, and a part of a secret counts as the secret.
    """
    needle = None if cond.text is None else _fold(cond.text)
    folded = [_fold(secret) for secret in secrets if secret.strip()]
    if needle and any(needle in secret or secret in needle for secret in folded):
        raise InvalidParams(
            _at(field, "text"),
            "repeats text this call sends to a password field; a password field's text is "
            "never read, and results never repeat it.",
            "Check something else the app shows once it is filled.",
        )


def _fold(text: str) -> str:
    """Case- and whitespace-insensitive form: labels wrap and re-space freely."""
    return " ".join(text.split()).casefold()


def _scope(cond: UiCondition, outline: Outline) -> Iterable[Node]:
    anchor = cond.anchor
    if anchor is None:
        return iter(outline)
    node = _resolve(outline, anchor)
    if node is None:
        return ()
    return (node,) if cond.exact else outline.subtree(node)


def _texts(node: Node) -> tuple[str, ...]:
    return (
        (node.name, node.description) if node.secure else (node.name, node.description, node.value)
    )


def _role_test(role: str | None) -> Callable[[Node], bool]:
    """``roles_equal`` with the query normalized once."""
    if role is None:
        return lambda node: True
    wanted = neutral_role(role)
    return lambda node: neutral_role(node.role) == wanted


def text_test(cond: UiCondition) -> Callable[[str], bool] | None:
    """Whether one text holds the condition's ``text`` as the matcher compares it (None
    without a text): what a read on demand keeps of the cells it reads."""
    if cond.text is None:
        return None
    needle = _fold(cond.text)
    return lambda text: needle in _fold(text)


def _matcher(cond: UiCondition) -> Callable[[Node], bool]:
    """The condition's test for one node, with its needles folded once."""
    role_matches = _role_test(cond.role)
    holds = text_test(cond)
    wanted = None if cond.value is None else cond.value.strip().casefold()

    def matches(node: Node) -> bool:
        if not role_matches(node):
            return False
        if holds is not None and not any(holds(text) for text in _texts(node)):
            return False
        return wanted is None or (not node.secure and node.value.strip().casefold() == wanted)

    return matches


def evaluate(cond: UiCondition, outline: Outline) -> Evaluation:
    """Whether the outline shows what the condition expects, and which elements match.

    A vanished anchor confines the condition to nothing: present fails, absent holds.
    """
    matches = _matcher(cond)
    anchor = anchor_node(cond, outline)
    asked = anchor is not None and is_hidden(anchor)
    found = tuple(
        node.ref
        for node in _scope(cond, outline)
        if matches(node) and (asked or not is_hidden(node))
    )
    present = bool(found)
    return Evaluation(satisfied=present != (cond.until == "absent"), present=present, matches=found)


class _Likeness:
    """How close texts come to one needle: 1.0 when they contain it, else a ratio.

    ``quick`` gives an upper bound of the exact ratio at a fraction of its cost,
    so ranking thousands of nodes only pays for the exact ratio near the top.
    """

    def __init__(self, needle: str) -> None:
        self._needle = needle
        self._matcher = difflib.SequenceMatcher(autojunk=False)
        self._matcher.set_seq2(needle[:_COMPARED_CHARS])

    def score(self, texts: Iterable[str], *, quick: bool) -> float:
        best = 0.0
        for text in texts:
            folded = _fold(text)
            if not folded:
                continue
            if self._needle in folded:
                return 1.0
            self._matcher.set_seq1(folded[:_COMPARED_CHARS])
            best = max(best, self._matcher.quick_ratio() if quick else self._matcher.ratio())
        return best


class _Nearness:
    """The mean likeness of a node over the parts the condition names."""

    def __init__(self, cond: UiCondition) -> None:
        self._role = None if cond.role is None else _role_test(cond.role)
        self._text = None if cond.text is None else _Likeness(_fold(cond.text))
        self._value = None if cond.value is None else _Likeness(_fold(cond.value))

    def score(self, node: Node, *, quick: bool) -> float:
        parts: list[float] = []
        if self._text is not None:
            parts.append(self._text.score(_texts(node), quick=quick))
        if self._role is not None:
            parts.append(1.0 if self._role(node) else 0.0)
        if self._value is not None:
            parts.append(0.0 if node.secure else self._value.score((node.value,), quick=quick))
        return sum(parts) / len(parts) if parts else 0.0


def _nearest(cond: UiCondition, outline: Outline, limit: int) -> list[Node]:
    """The ``limit`` best-scoring nodes in scope (labelled and earlier ones win ties).

    Only the best few dozen by the quick bound are scored exactly, which keeps a
    failure message on a 4,096-node tree well under a second.
    """
    nearness = _Nearness(cond)
    bounds = sorted(
        (
            (nearness.score(node, quick=True), index, node)
            for index, node in enumerate(_scope(cond, outline))
        ),
        key=lambda item: (-item[0], item[1]),
    )
    best: list[tuple[tuple[float, bool, int], Node]] = []
    for bound, index, node in bounds[: max(limit, _EXACT_RANKED)]:
        if len(best) == limit and bound < -best[-1][0][0]:
            break
        best.append(((-nearness.score(node, quick=False), not node.label, index), node))
        best.sort(key=lambda item: item[0])
        del best[limit:]
    return [node for _, node in best]


def _quote(text: str) -> str:
    short = text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"
    return quote(short)


def describe_node(node: Node) -> str:
    """``@e5 button "Save"``: enough to tell the agent what is there; no password value."""
    words = [node.ref, node.role]
    if node.name or node.description:
        words.append(_quote(node.name or node.description))
        if node.name_inferred:
            words.append("(label inferred)")
    if node.secure:
        words.append("(password field)")
    elif node.value and node.value != node.name:
        words.append(f"value {_quote(node.value)}")
    return " ".join(words)


def closest(cond: UiCondition, outline: Outline, limit: int = 3) -> list[str]:
    """What the UI shows instead: the offending matches of an absent condition,
    else the elements nearest to the expectation, best first."""
    anchor = cond.anchor
    if anchor is not None and _resolve(outline, anchor) is None:
        return [f"{anchor} is no longer in the UI"]
    if cond.until == "absent":
        matches = evaluate(cond, outline).matches[:limit]
        if matches:
            return [describe_node(outline.nodes[ref]) for ref in matches]
    return [describe_node(node) for node in _nearest(cond, outline, limit)]


def describe(cond: UiCondition) -> str:
    """One line such as ``button with text "Save" inside @e3 to be present``."""
    subject = cond.role or "element"
    if cond.exact and cond.anchor is not None:
        subject += f" {cond.anchor}"
    if cond.text is not None:
        subject += f" with text {_quote(cond.text)}"
    if cond.value is not None:
        subject += f" with value {_quote(cond.value)}"
    if not cond.exact and cond.anchor is not None:
        subject += f" inside {cond.anchor}"
    return f"{subject} to be {'gone' if cond.until == 'absent' else 'present'}"


def condition_json(cond: UiCondition) -> dict[str, object]:
    """The condition in wire names, for traces and verification details."""
    fields: dict[str, object | None] = {
        "ref": cond.ref,
        "scopeRef": cond.scope_ref,
        "scopeExact": cond.scope_exact if cond.scope_ref is not None else None,
        "text": cond.text,
        "role": cond.role,
        "value": cond.value,
        "until": cond.until,
        "gone": cond.until == "absent",
        "timeoutMs": cond.timeout_ms,
    }
    return {key: value for key, value in fields.items() if value is not None}
