"""Rendering a result's text: views and diffs within the call's budget, and what a session said.

Owns the running call's token budget (``RESULT_BUDGET``), the once-a-session
lines (a root's label, how to open a fold) and the lines that drain news into
a result (window changes, a page's console). It reads states and never takes,
saves or waits: a tool hands it what was observed.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from actui.backends.base import RootInfo
from actui.outline.diff import Changes, changes_json, compute_changes, diff_or_view
from actui.outline.model import Outline
from actui.outline.view import (
    MIN_VIEW_TOKENS,
    PAGE_TOKENS,
    RECEIPT,
    UNREAD,
    WINDOW_TOKENS,
    ViewLines,
    render_view,
)
from actui.outline.windows import windowed
from actui.results.typed import Capture, RootView, Shown, StateSummary
from actui.results.views import REACH_NOTES, console_line, root_delta_lines, root_label
from actui.runtime.deltas import Announced, RootDelta
from actui.runtime.imaging import scale_of
from actui.runtime.store import State
from actui.tokens import estimate_tokens

RESULT_BUDGET: ContextVar[int | None] = ContextVar("actui_result_budget", default=None)
"""The running call's ``maxTokens`` (a context variable: concurrent calls each keep theirs)."""

ConsoleFn = Callable[[RootInfo], tuple[str, ...]]
"""Drains a root's console messages (a page's; nothing for a desktop window)."""


def observation(state: State, shown: Shown) -> StateSummary:
    """A saved state as its result returns it: ids, the root, and the image's coordinate
    space when the state has an image (never the view text itself: the text carries it,
    and a model may be shown both)."""
    capture = None
    if state.image_size:
        width, height = state.image_size
        capture = Capture(state.state_id, width, height, scale_of(state), state.captured_at)
    return StateSummary(
        state_id=state.state_id,
        base_state_id=state.base_state_id,
        target=RootView(state.root_ref, state.root),
        node_count=len(state.outline),
        shown=shown,
        windows=windowed(state.outline),
        capture=capture,
    )


FIRST_VIEW = Shown("full")
"""How a fresh observation is shown: its first view."""


def view_budget(state: State, above: str) -> int:
    """Tokens left for a view of ``state`` below the lines ``above`` it in the result:
    of ``maxTokens`` when the call gives one, else of the default for its kind of root."""
    asked = RESULT_BUDGET.get()
    budget = asked or (PAGE_TOKENS if state.root.kind == "browser_page" else WINDOW_TOKENS)
    return max(MIN_VIEW_TOKENS, budget - estimate_tokens(above) - 1)


class Renderer:
    """The text of one session's results, which remembers what it already told the agent."""

    def __init__(self, announced: Announced, console: ConsoleFn) -> None:
        self._announced = announced
        self._console = console
        self._labels: dict[str, str] = {}
        """The label each root ref was last named with (``named``)."""
        self._receipt_shown = False
        """Whether a view has said how to open a fold (``RECEIPT``): once a session."""
        self._recent = ViewLines()

    def named(self, ref: str, root: RootInfo) -> str:
        """``@r1 app — "title"`` where this session has not shown that label yet, else ``@r1``.

        The agent read the label in the last result that named the root; saying
        it again on every call costs tokens and tells nothing. A changed title
        or URL is said again.
        """
        label = root_label(root)
        if self._labels.get(ref) == label:
            return ref
        self._labels[ref] = label
        return f"{ref} {label}"

    def window_news(self, pid: int) -> tuple[list[str], tuple[RootDelta, ...]]:
        """``pid``'s window changes no result has reported yet, and their lines."""
        news = tuple(self._announced.take(pid))
        return [f"meanwhile, {line}" for line in root_delta_lines(news)], news

    def console_lines(self, root: RootInfo) -> tuple[list[str], tuple[str, ...]]:
        """A page's console messages drained for this result, and their lines (nothing
        for desktop roots)."""
        messages = tuple(self._console(root))
        return [console_line(m) for m in messages], messages

    def fold_text(self, state: State, reason: str | None = None, above: str = "") -> str:
        """The first view of ``state`` (``outline.view``), within what the result has left."""
        return self._receipt_once(
            render_view(
                state.outline, state.state_id, view_budget(state, above), reason, self._recent
            ).text
        )

    def changes(self, base: State, successor: Outline) -> Changes:
        """What changed from ``base`` to ``successor`` (a transaction credits its steps
        with it before :meth:`diff_text` shows it)."""
        return compute_changes(base.outline, successor, self._recent)

    def diff_text(
        self, base: State, successor: State, above: str = "", changes: Changes | None = None
    ) -> tuple[str, Shown]:
        """The diff from ``base`` (``changes`` when already computed), or the view when that
        is shorter or the diff asks for it, within what the result has left below the lines
        ``above``."""
        budget = view_budget(successor, above)
        if successor.root.accessibility == "not_answering":
            # its tree was not read: elements a diff would call removed are only unseen
            note = REACH_NOTES["not_answering"]
            view = render_view(successor.outline, successor.state_id, budget, UNREAD, self._recent)
            return f"{note}\n{self._receipt_once(view.text)}", Shown("full", reason=UNREAD)
        if changes is None:
            changes = self.changes(base, successor.outline)
        text, reason = diff_or_view(
            changes, successor.outline, base.state_id, successor.state_id, budget, self._recent
        )
        if reason is not None:
            return self._receipt_once(text), Shown("full", reason=reason)
        return text, Shown("diff", changes=tuple(changes_json(changes)))

    def _receipt_once(self, view: str) -> str:
        """``view`` without its last line on how to open a fold when an earlier view of
        this session said it: the agent has read it, and each fold still counts what it
        holds (``▸ (5 more: …)``)."""
        if not view.endswith("\n" + RECEIPT):
            return view
        if self._receipt_shown:
            return view.removesuffix("\n" + RECEIPT)
        self._receipt_shown = True
        return view
