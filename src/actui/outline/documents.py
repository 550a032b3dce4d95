"""A document that shows only part of itself: how its place reads, and what a look that
did not find a text in it says.

Some applications list only what is on screen of a document: LibreOffice Writer lists
the paragraphs on screen, and says how many pages the document has and which one holds
the caret (``Pages``). A search, a read or a condition that did not find a text there
has not looked at the document's other pages, so the result says so in one line, with
how a person brings them on screen; it never says the text is absent from the document.
This module only decides and words it.
"""

from __future__ import annotations

from dataclasses import dataclass

from actui.backends.base import Pages
from actui.outline.conditions import UiCondition, anchor_node
from actui.outline.model import Node, Outline
from actui.outline.roles import roles_equal

PAGE_TEXT_ROLES = ("paragraph", "heading")
"""What a scan of a document's pages off screen reads the text of (``Backend.scan_pages``)."""
BRING_ON_SCREEN = "ctrl+End, Page Down, or the app's own Find"
"""How a person brings a document's other pages on screen (keys an agent sends too)."""


def pages_text(pages: Pages) -> str:
    """``caret on page 1 of 193``, or ``193 pages`` when the caret's page is not said."""
    if pages.caret >= 1:
        return f"caret on page {pages.caret:,} of {pages.total:,}"
    return f"{pages.total:,} page{'' if pages.total == 1 else 's'}"


def pages_json(pages: Pages) -> dict[str, object]:
    """The page count for ``details`` (``caretPage`` null when not said)."""
    return {"caretPage": pages.caret or None, "total": pages.total}


def pages_may_hold(role: str | None, capability: str | None) -> bool:
    """Whether a search with these filters could be met by a document's text off screen,
    so that scrolling its view is worth it: no capability asked for, and no role or one
    of :data:`PAGE_TEXT_ROLES` (a search for a button moves no page)."""
    if capability and capability.strip():
        return False
    return not (role and role.strip()) or any(roles_equal(role, r) for r in PAGE_TEXT_ROLES)


@dataclass(frozen=True)
class PartShown:
    """A document in an outline whose application exposes only what is on screen."""

    ref: str
    role: str
    pages: Pages

    def note(self, looked: str, scopable: bool = False) -> str:
        """The one line a look that found nothing adds: ``looked`` says what was not done
        to the other pages (``searched``, ``checked``, ``read``); ``scopable`` adds that a
        condition scoped to the document scrolls it (see :func:`scrolled_for`)."""
        scope = (
            f", or give the condition scopeRef {self.ref}: it then scrolls the view down to look"
            if scopable
            else ""
        )
        return (
            f"{self.ref} {self.role} exposes only what is on screen ({pages_text(self.pages)}): "
            f"text on its other pages was not {looked}. Bring it on screen as a person does "
            f"({BRING_ON_SCREEN}), then look again{scope}."
        )

    def to_wire(self) -> dict[str, object]:
        return {"ref": self.ref, "role": self.role, **pages_json(self.pages)}


def partly_wire(parts: tuple[PartShown, ...]) -> dict[str, object]:
    """``{"partlyShown": [...]}`` for a result's ``details``; nothing when there are none."""
    return {"partlyShown": [part.to_wire() for part in parts]} if parts else {}


def partly_shown(outline: Outline, within: Node | None = None) -> tuple[PartShown, ...]:
    """The documents of ``outline`` (inside ``within``, the element itself included) that
    have pages besides the one on screen, in outline order."""
    nodes = outline if within is None else outline.subtree(within)
    return tuple(
        PartShown(node.ref, node.role, node.pages)
        for node in nodes
        if node.pages is not None and node.pages.partial
    )


def unmatched_in(cond: UiCondition, outline: Outline) -> tuple[PartShown, ...]:
    """The partly shown documents a condition that found no match in ``outline`` did not
    look all through: those inside its anchor (anywhere without one). A condition on one
    element (``ref``, ``scopeExact``) is decided by that element, so it has none. For
    ``until: absent`` a holding condition is such a case: the text is gone from the
    screen, not shown to be gone from the document."""
    if cond.exact:
        return ()
    within = None if cond.anchor is None else anchor_node(cond, outline)
    if cond.anchor is not None and within is None:
        return ()
    return partly_shown(outline, within)


def scrolled_for(cond: UiCondition, outline: Outline) -> tuple[PartShown, ...]:
    """The partly shown documents a condition not met may scroll to look for its text:
    only the one it is scoped to (``scopeRef`` on the document itself). Scrolling moves
    what the person at the desktop sees, so a condition that merely did not name the
    document (a wait for "Saved" in a status bar) leaves its view where it is."""
    return tuple(part for part in unmatched_in(cond, outline) if part.ref == cond.scope_ref)


def condition_notes(cond: UiCondition, parts: tuple[PartShown, ...]) -> list[str]:
    """The lines a condition that found nothing adds for ``parts`` (``unmatched_in``):
    each says the other pages were not checked, and how to have them scrolled to where
    the condition was not scoped to that document."""
    return [part.note("checked", scopable=part.ref != cond.scope_ref) for part in parts]
