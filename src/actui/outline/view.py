"""The first view: what an agent reads of a window or page before it acts.

It should answer the first question without another call: the controls an
agent can act on, with their names and values, and the visible text, within a
token budget (``actui.tokens``). So, unlike the depth fold of ``expand_ui``:

- layout-only nodes (unnamed groups, sections, panels, paragraphs, line breaks
  with no capability and nothing to mark) are not lines: their children read
  at their parent's level; the pieces of text of one paragraph (split by its
  inline markup) read as one ``text`` line;
- lines are chosen by what they are worth, not by depth: focused elements and
  their paths first, then dialogs and cut-off containers, then controls and
  text in reading order (the instruction at the top of a page before the
  scores at its foot), then the rest, what is not on screen last, each with
  the path that leads to it; what is not displayed at all (``model.is_hidden``: a
  closed find bar) is never chosen, only counted in its parent's fold;
- whatever does not fit is folded into its shown parent's line as
  ``▸ (N more: 3 buttons, 2 labels)``, N counting every element it hides, and
  one receipt line says how to open a fold.

The whole text, header included, keeps to the budget; only when the focused
paths alone outgrow it are lines cut, and the receipt says so. This module
only renders; it must not search, diff or know about tools.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter, OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

from actui.outline.fold import (
    counts_summary,
    marks,
    node_line,
    quoted,
    role_counts,
    run_line,
    sibling_runs,
)
from actui.outline.model import Node, Outline, is_hidden, is_offscreen
from actui.outline.roles import normalize_role
from actui.tokens import estimate_tokens

PAGE_TOKENS = 300
"""The default budget of a browser page's first view (a MiniWoB++ task fits whole)."""
WINDOW_TOKENS = 800
"""The default budget of a desktop window's first view."""
MIN_VIEW_TOKENS = 80
"""The least a view is given when a small ``maxTokens`` is mostly spent on other lines."""
LAYOUT_ROLES = frozenset(
    {
        "group",
        "scrollpane",
        "paragraph",
        "section",
        "generic",
        "labeltext",
        "label",
        "linebreak",
        "form",
        "div",
        "span",
        "none",
        "presentation",
        "unknown",
    }
)
"""Neutral roles that only arrange their children, when a node has nothing else to say."""
DOCUMENT_PAGES = frozenset({"document text", "document presentation"})
"""Raw roles of a document's page: its paragraphs, headings and frames are its text."""
PASSIVE_CAPS = frozenset({"focus", "scroll"})
"""Capabilities that do not make a node a control (documents and panes have them)."""
MIN_LINE_TOKENS = 5
"""No line costs less (``@e1 list``): with less budget left, choosing stops."""
FOLD_RESERVE = 12
"""Tokens set aside per shown parent line for its fold suffix while choosing lines."""

Unit = tuple[Node, ...]
"""One line: a node, a run of alike blank siblings (``fold.sibling_runs``), or the texts
of one paragraph (``_text_runs``)."""
TEXT_CAP = 400
"""Characters of a paragraph's joined text shown on its line; read_text has the rest."""


def is_layout(node: Node) -> bool:
    """Whether the node only arranges its children: nothing to read, act on or mark."""
    return (
        normalize_role(node.role) in LAYOUT_ROLES
        and not node.label
        and not node.caps
        and not node.name_inferred
        and not marks(node)
    )


def _repeats(node: Node, drawn_parent: Node) -> bool:
    """Whether ``node`` is a bare text that says again what the line above it says."""
    return (
        node.role == "label"
        and not node.children
        and not node.caps
        and bool(node.label)
        and node.label == drawn_parent.label
        and not marks(node)
    )


def _is_text(node: Node) -> bool:
    """A bare piece of text: a label with nothing else to say (no children, actions, marks)."""
    return (
        node.role == "label"
        and bool(node.name)
        and not node.children
        and not node.caps
        and not node.name_inferred
        and not marks(node)
    )


def _text_runs(units: list[Unit]) -> list[Unit]:
    """``units`` with each run of bare texts that are siblings in the outline (the pieces
    of one paragraph, split by its inline markup) made one unit."""
    merged: list[list[Node]] = []
    for unit in units:
        node = unit[0]
        last = merged[-1] if merged else None
        if (
            len(unit) == 1
            and _is_text(node)
            and last is not None
            and _is_text(last[-1])
            and last[-1].parent == node.parent
        ):
            last.append(node)
        else:
            merged.append(list(unit))
    return [tuple(group) for group in merged]


def _text_line(unit: Unit) -> str:
    """``@e7 … @e9: text "Enter \\"Ann\\" and press Submit."``: the pieces joined as they
    read (``_joint``)."""
    text = unit[0].name
    for before, piece in itertools.pairwise(unit):
        text += _joint(before, piece) + piece.name
    return f"{unit[0].ref} … {unit[-1].ref}: text {quoted(text, TEXT_CAP)}"


def _joint(before: Node, piece: Node) -> str:
    """A space between two pieces of text, unless one ends right where the other begins on
    its line and a mark stands between them (``"`` in ``Enter "Ann"``): names come trimmed,
    so two words that touch had a space between them that their names lost."""
    a, b = before.rect, piece.rect
    if a is None or b is None:
        return " "
    same_line = abs(b.y - a.y) < max(1, a.h // 2)
    # a piece that wraps onto the next line has a box from that line's start: its first
    # line goes on where the piece before ended
    wrapped = b.h > a.h * 3 // 2 and b.x < a.x + a.w
    touching = same_line and (abs(b.x - (a.x + a.w)) <= 1 or wrapped)
    marked = not before.name[-1].isalnum() or not piece.name[0].isalnum()
    return "" if touching and marked else " "


def _rank(node: Node, outline: Outline) -> int:
    """Lower is shown first: focused, then dialogs, cut-off nodes and the text of a
    document's page on screen, then what can be acted on or read (in reading order, as a
    person takes a page in), then the rest, and what is not on screen (closed menus, hidden
    pages) last of all: Firefox's seven closed menus came before the page it had focused,
    and Writer's 74 toolbar buttons before the paragraphs of its page."""
    if node.focused:
        return 0
    if is_offscreen(node):
        return 4
    if node.role == "dialog" or node.truncated or "modal" in node.states:
        return 1
    parent = outline.nodes.get(node.parent) if node.parent is not None else None
    if parent is not None and parent.raw_role in DOCUMENT_PAGES:
        return 1
    if node.caps - PASSIVE_CAPS or node.label:
        return 2
    return 3


@dataclass
class _Line:
    unit: Unit
    parent: _Line | None
    depth: int
    order: int
    outline: Outline = field(repr=False)
    children: list[_Line] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.unit[0].ref

    @functools.cached_property
    def held(self) -> Counter[str]:
        """Roles of the elements of this line and of all it holds; counted only for a line
        a view folds away or a run (whose members' subtrees are not drawn open), so the
        lines a view draws are never counted."""
        if len(self.unit) > 1:
            return role_counts(d for n in self.unit for d in self.outline.subtree(n))
        held = role_counts(self.unit)
        stack = list(self.children)
        while stack:  # no recursion: an outline may be deeper than Python's stack
            line = stack.pop()
            if len(line.unit) > 1:
                held.update(line.held)
            else:
                held.update(role_counts(line.unit))
                stack.extend(line.children)
        return held

    @functools.cached_property
    def text(self) -> str:
        """The line without indent or fold; drawn only when a view weighs or shows it
        (most of a big window's lines are folded away unweighed)."""
        unit = self.unit
        if len(unit) == 1:
            return node_line(unit[0])
        if _is_text(unit[0]):
            return _text_line(unit)
        return run_line(self.outline, unit)

    @functools.cached_property
    def cost(self) -> int:
        """Tokens of the line as drawn; a parent's also sets aside its fold suffix's."""
        reserve = FOLD_RESERVE if self.children else 0
        return estimate_tokens("  " * self.depth + self.text + "\n") + reserve

    def ancestors(self) -> Iterator[_Line]:
        cur = self.parent
        while cur is not None:
            yield cur
            cur = cur.parent


@dataclass(frozen=True)
class View:
    """A rendered first view.

    ``shown`` counts the elements on lines (a run's members included),
    ``layout`` the layout-only nodes not drawn, ``folded`` the elements hidden
    in folds; the three add up to ``total``. ``cut`` is true when even the
    focused paths did not fit and lines were cut.
    """

    text: str
    shown: int
    layout: int
    folded: int
    total: int
    cut: bool


class _Tree:
    """The outline as lines: layout-only nodes dissolved, alike blank siblings run together."""

    def __init__(self, outline: Outline) -> None:
        self.outline = outline
        self.dissolved: set[str] = set()
        """Layout-only nodes whose children were drawn in their place, and texts that only
        repeat their drawn parent's label; the header counts both as layout-only."""
        self.lines: list[_Line] = []
        self.root = self._line((outline.root_node,), None)
        stack = [self.root]
        while stack:
            line = stack.pop()
            if len(line.unit) > 1:
                continue
            drawn = self._drawn_children(line.unit[0])
            for unit in _text_runs(sibling_runs(outline, drawn, ())):
                line.children.append(self._line(unit, line))
            stack.extend(reversed(line.children))
        order = 0
        stack = [self.root]
        while stack:  # reading order: pre-order over the lines
            line = stack.pop()
            line.order = order
            order += 1
            stack.extend(reversed(line.children))
        self.lines.sort(key=lambda ln: ln.order)

    def _line(self, unit: Unit, parent: _Line | None) -> _Line:
        line = _Line(unit, parent, 0 if parent is None else parent.depth + 1, 0, self.outline)
        self.lines.append(line)
        return line

    def _drawn_children(self, node: Node) -> list[Node]:
        """``node``'s children, each layout-only one replaced by its own drawn children, and
        a text that only repeats ``node``'s label (a button's own caption) left out."""
        drawn: list[Node] = []
        stack = list(reversed(self.outline.children(node)))
        while stack:
            child = stack.pop()
            if is_layout(child) or _repeats(child, node):
                self.dissolved.add(child.ref)
                stack.extend(reversed(self.outline.children(child)))
            else:
                drawn.append(child)
        return drawn


@dataclass(frozen=True)
class Place:
    """Where a line of a view sits: its unit (a node, a run, a paragraph's pieces), the key
    (first ref) of its drawn parent's line and of the line before it under that parent
    (None for the first), and whether it is its parent's only line."""

    unit: Unit
    parent: str | None
    after: str | None
    alone: bool = False
    order: int = 0
    """The line's place in reading order among all the view's lines."""

    @property
    def paragraph(self) -> bool:
        """Whether the line is the pieces of one paragraph (``@e4 … @e6: text "…"``)."""
        return len(self.unit) > 1 and _is_text(self.unit[0])

    def text(self) -> str:
        """The line as a view draws it, without indent or fold."""
        return _text_line(self.unit) if self.paragraph else node_line(self.unit[0])


@dataclass(frozen=True)
class Drawn:
    """How a view would draw an outline, for a diff to speak in the same lines: each
    drawn element's place, and the nodes no line draws (layout-only ones, captions that
    repeat their parent)."""

    places: dict[str, Place]
    dissolved: frozenset[str]


class ViewLines:
    """The lines of one session's last few outlines, by identity.

    An unchanged window hands back the very outline it had (``runtime.waiting``'s
    recent outlines), and a diff draws its successor again for the view that may
    follow; outlines are immutable, so their lines, with the text and cost each
    line worked out, serve every view of them: dissolving and weighing them again
    was most of a warm look's time. One per session (``rendering.Renderer``), so
    sessions in one process do not push each other's outlines out; a few outlines
    each, as lines weigh about 0.7 KiB a node.
    """

    def __init__(self, size: int = 4) -> None:
        self._size = size
        self._recent: OrderedDict[int, tuple[Outline, _Tree]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._recent)

    def tree(self, outline: Outline) -> _Tree:
        hit = self._recent.get(id(outline))
        if hit is not None and hit[0] is outline:
            return hit[1]
        tree = _Tree(outline)
        self._recent[id(outline)] = (outline, tree)  # the outline is kept: ids stay unique
        while len(self._recent) > self._size:
            self._recent.popitem(last=False)
        return tree


def _tree(outline: Outline, recent: ViewLines | None) -> _Tree:
    """``outline``'s lines, from ``recent`` where given (else worked out now)."""
    return _Tree(outline) if recent is None else recent.tree(outline)


def drawn(outline: Outline, recent: ViewLines | None = None) -> Drawn:
    """Every element's place among the lines of a view of ``outline`` (with room for all)."""
    tree = _tree(outline, recent)
    places = {tree.root.key: Place(tree.root.unit, None, None, alone=True)}
    for line in tree.lines:
        kids = line.children
        for at, child in enumerate(kids):
            after = kids[at - 1].key if at else None
            place = Place(child.unit, line.key, after, len(kids) == 1, child.order)
            places.update((node.ref, place) for node in child.unit)
    return Drawn(places, frozenset(tree.dissolved))


def render_view(
    outline: Outline,
    state_id: str,
    budget: int,
    reason: str | None = None,
    recent: ViewLines | None = None,
) -> View:
    """The first view of ``outline`` within ``budget`` tokens, header line included;
    ``recent``: the session's recent outlines' lines (:class:`ViewLines`)."""
    tree = _tree(outline, recent)
    required: set[str] = {tree.root.key}
    for line in tree.lines:
        if line.unit[0].focused:
            required.update([line.key, *(a.key for a in line.ancestors())])
    chosen: list[tuple[list[_Line], int]] = []
    picked: set[str] = set()
    most = len(outline)  # the header's counts are not known yet: reserve their widest
    spent = estimate_tokens(RECEIPT + "\n" + _header(outline, state_id, reason, most, most))
    for line in tree.lines:
        if line.key in required:
            picked.add(line.key)
            spent += line.cost
    for line in sorted(tree.lines, key=lambda ln: (_rank(ln.unit[0], outline), ln.order)):
        if line.key in picked or is_hidden(line.unit[0]):
            continue
        adds = [line]
        for above in line.ancestors():  # up to the first one already picked
            if above.key in picked:
                break
            adds.append(above)
        cost = sum(a.cost for a in adds)
        if spent + cost > budget:
            if budget - spent < MIN_LINE_TOKENS:
                break
            continue
        spent += cost
        picked.update(a.key for a in adds)
        chosen.append((adds, cost))
    while True:
        view, tokens = _render(tree, picked, state_id, reason)
        if tokens <= budget or not chosen:
            return view if tokens <= budget else _cut(view, budget)
        over = tokens - budget
        while chosen and over > 0:  # give back the last choices until the excess is covered
            adds, cost = chosen.pop()
            picked.difference_update(a.key for a in adds)
            over -= cost


def _header(outline: Outline, state_id: str, reason: str | None, shown: int, folded: int) -> str:
    """The state id, then what the view leaves out. Layout-only nodes are not counted
    here (structuredContent has them): they are nodes a view never draws."""
    text = f"stateId {state_id}: {len(outline)} nodes, {shown} shown"
    if folded:
        text += f", {folded} folded"
    if reason and reason not in QUIET_REASONS:
        text += f"; full view: {reason}"
    return text


UNREAD = "tree_not_read"
"""Why a state is shown whole instead of as a diff when its application did not answer:
what a diff would call removed was only not read (a sentence above the view says so)."""
QUIET_REASONS = frozenset({"diff_longer_than_view", UNREAD})
"""Reasons for a full view the header does not give: the refs of the state before still
name the same elements (structuredContent's ``viewReason`` has it), or a sentence above
the view says why; the others say the refs may not."""


RECEIPT = "▸ folds: expand_ui a ref to open one, or search_ui to find any element."


def _render(tree: _Tree, picked: set[str], state_id: str, reason: str | None) -> tuple[View, int]:
    """The view of the ``picked`` lines, and a bound on its tokens: the sum of its lines'
    estimates, which a joined text never exceeds (no piece spans a line break but blanks,
    and a run of blanks costs at most its parts)."""
    body: list[str] = []
    tokens = shown = folded = 0
    stack = [tree.root]
    while stack:
        line = stack.pop()
        shown += len(line.unit)
        text = "  " * line.depth + line.text
        if len(line.unit) > 1:  # a run says what its members hold ("together"); texts hold none
            folded += sum(line.held.values()) - len(line.unit)
        hidden = [c for c in line.children if c.key not in picked]
        tokens += line.cost - (FOLD_RESERVE if line.children else 0)
        if hidden:
            counts: Counter[str] = Counter()
            for child in hidden:
                counts.update(child.held)
            folded += sum(counts.values())
            summary = counts_summary(counts)
            if len(hidden) < len(line.children):
                summary = summary.replace(":", " more:", 1)
            text += f" ▸ {summary}"
            tokens += estimate_tokens(f" ▸ {summary}")
        body.append(text)
        stack.extend(reversed([c for c in line.children if c.key in picked]))
    layout = len(tree.dissolved)
    head = _header(tree.outline, state_id, reason, shown, folded)
    lines = [head, *body]
    tokens += estimate_tokens(head + "\n")
    if folded:
        lines.append(RECEIPT)
        tokens += estimate_tokens(RECEIPT)
    return View("\n".join(lines), shown, layout, folded, len(tree.outline), cut=False), tokens


def _cut(view: View, budget: int) -> View:
    """The focused paths outgrew the budget: keep the lines that fit, and say so."""
    lines = view.text.splitlines()
    kept: list[str] = []
    receipt = (
        f"… {{}} of {len(lines) - 1} lines cut at the budget ({budget} tokens); "
        "observe with a larger maxTokens, or search_ui."
    )
    spent = estimate_tokens(receipt) + 2
    for line in lines:
        cost = estimate_tokens(line + "\n")
        if spent + cost > budget:
            break
        kept.append(line)
        spent += cost
    text = "\n".join([*kept, receipt.format(len(lines) - len(kept))])
    return View(text, view.shown, view.layout, view.folded, view.total, cut=True)
