"""Portable selectors: an element named the way a person finds it again, never by ref.

A recorded workflow cannot keep refs or state ids: they belong to one look of
one session. A :class:`Selector` keeps what a person reads instead: the
element's neutral role, its name (the platform's, or the label read beside an
unnamed field), the names of its named ancestors from the window down (the
window itself left out: its title is the window's to match), and, only when
those leave several equals on screen, its index among them (in reading
order) and how many there were.

Resolving is strict: exactly one on-screen element must match; none, or more
than one that the recorded index cannot tell apart, is an answer with the
candidates a person would look at, never a guess. This module must not
observe, act or read a file.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from actui.outline.fold import path_text
from actui.outline.model import Node, Outline, is_offscreen

CANDIDATE_CAP = 5
"""Candidates named when a selector finds none or too many."""


@dataclass(frozen=True)
class Ancestor:
    """A named ancestor on the way down from the window: its role and name."""

    role: str
    name: str


@dataclass(frozen=True)
class Selector:
    """An element by role, name and named ancestors; ``index`` of ``of`` equals breaks a tie."""

    role: str
    name: str = ""
    path: tuple[Ancestor, ...] = field(default=())
    index: int | None = None
    of: int | None = None

    def describe(self) -> str:
        """``button "OK" in panel "Form"`` (``#2 of 3`` when an index breaks a tie)."""
        text = f'{self.role} "{self.name}"' if self.name else self.role
        if self.path:
            text += " in " + " ▸ ".join(
                f'{a.role} "{a.name}"' if a.name else a.role for a in self.path
            )
        if self.index is not None:
            text += f" #{self.index + 1} of {self.of}"
        return text


@dataclass(frozen=True)
class Resolved:
    """What a selector found: ``node`` when exactly one element is it, else None and
    ``why`` (``not_found`` or ``ambiguous``) with the candidates, each as a person reads it."""

    node: Node | None
    why: str = ""
    candidates: tuple[str, ...] = ()


def _name(node: Node) -> str:
    """The name a selector keeps: the platform's or the inferred label, else the description.

    Never the value: what a field holds is what a workflow changes.
    """
    return " ".join((node.name or node.description).split())


def _path(outline: Outline, node: Node) -> tuple[Ancestor, ...]:
    return tuple(
        Ancestor(a.role, _name(a))
        for a in outline.ancestors(node)
        if a.ref != outline.root and _name(a)
    )


def _shown(outline: Outline) -> list[Node]:
    """Elements on screen, in reading order (the outline's breadth-first order)."""
    return [n for n in outline if n.ref != outline.root and not is_offscreen(n)]


def _equals(
    outline: Outline, role: str, name: str, path: tuple[Ancestor, ...] | None
) -> list[Node]:
    """On-screen elements of this role and name, under exactly these named ancestors
    (under any, when ``path`` is None)."""
    return [
        n
        for n in _shown(outline)
        if n.role == role and _name(n) == name and (path is None or _path(outline, n) == path)
    ]


def selector_of(outline: Outline, node: Node) -> Selector:
    """The selector that finds ``node`` again in a later look of the same window."""
    name, path = _name(node), _path(outline, node)
    equals = _equals(outline, node.role, name, path)
    if len(equals) <= 1:
        return Selector(node.role, name, path)
    index = next((i for i, n in enumerate(equals) if n.ref == node.ref), 0)
    return Selector(node.role, name, path, index, len(equals))


def resolve(outline: Outline, selector: Selector, *, anywhere: bool = False) -> Resolved:
    """The one element ``selector`` names in ``outline``, or why there is not one;
    ``anywhere`` leaves its path out (a person's query, not a recorded selector)."""
    path = None if anywhere else selector.path
    equals = _equals(outline, selector.role, selector.name, path)
    if len(equals) == 1 and selector.index in (None, 0):
        return Resolved(equals[0])
    told_apart = selector.index is not None and len(equals) == selector.of
    if equals and told_apart and selector.index is not None and selector.index < len(equals):
        return Resolved(equals[selector.index])
    if equals:
        named = tuple(path_text(outline, n) for n in equals[:CANDIDATE_CAP])
        return Resolved(None, "ambiguous", named)
    return Resolved(None, "not_found", _near(outline, selector))


def _near(outline: Outline, selector: Selector) -> tuple[str, ...]:
    """The on-screen elements most like what ``selector`` asked for, best first."""

    def likeness(node: Node) -> float:
        named = difflib.SequenceMatcher(None, selector.name.lower(), _name(node).lower()).ratio()
        return named + (0.5 if node.role == selector.role else 0.0)

    ranked = sorted((n for n in _shown(outline) if _name(n)), key=likeness, reverse=True)
    return tuple(path_text(outline, n) for n in ranked[:CANDIDATE_CAP])
