"""How a container read as a window onto its data reads: its full size and the shown range.

``table "Sheet Sheet1" 1,048,576 rows × 16,384 columns; showing A1:O33`` tells
the agent both that most of the data was not read and where the part it sees
sits. Numbers are 1-based as a person counts rows. This module only renders.
"""

from __future__ import annotations

from dataclasses import dataclass

from actui.backends.base import Window, column_letters
from actui.outline.model import Outline


def _count(number: int | None, word: str) -> str:
    if number is None or number < 0:
        return f"unknown {word}s"
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def shown_range(window: Window, last_row: int | None = None) -> str:
    """``A1:O33``, ``rows 1–24`` (with ``columns 2–5`` when not all are shown), or ``1–24``:
    the rows read, or those up to ``last_row``."""
    if not window.shown:
        return ""
    first = window.first_row + 1
    last = (window.last_row if last_row is None else last_row) + 1
    if window.rows is None:
        return f"{first:,}–{last:,}"
    if window.cells:
        start = f"{column_letters(window.first_column)}{first}"
        return f"{start}:{column_letters(window.last_column)}{last}"
    text = f"rows {first:,}–{last:,}"
    every = window.first_column == 0 and window.last_column + 1 >= (window.columns or 0)
    if not every:
        text += f", columns {window.first_column + 1:,}–{window.last_column + 1:,}"
    return text


def _screen_last(window: Window) -> int:
    return window.screen_last_row if window.screen_last_row >= 0 else window.last_row


def window_text(window: Window) -> str:
    """The size, then what is shown (and what of it was read, when not all): the line form
    of a windowed container."""
    if window.rows is None:
        size = _count(window.count, "item")
    else:
        size = f"{_count(window.rows, 'row')} × {_count(window.columns, 'column')}"
    shown = shown_range(window, _screen_last(window))
    if not shown:
        return f"{size}; none shown"
    if window.screen_last_row < 0:
        return f"{size}; showing {shown}"
    return f"{size}; showing {shown}; read {shown_range(window)} (search_ui reads the rest)"


def window_json(window: Window) -> dict[str, object]:
    """The size and shown range for ``details`` (1-based, inclusive; null when none shown),
    and the part read where that is less."""
    out: dict[str, object] = {
        "childCount": window.count,
        "rows": window.rows,
        "columns": window.columns,
    }
    shown: dict[str, object] | None = None
    if window.shown:
        shown = {
            "firstRow": window.first_row + 1,
            "lastRow": _screen_last(window) + 1,
            "firstColumn": window.first_column + 1,
            "lastColumn": window.last_column + 1,
            "range": shown_range(window, _screen_last(window)),
        }
        if window.screen_last_row >= 0:
            shown["read"] = {"lastRow": window.last_row + 1, "range": shown_range(window)}
    out["shown"] = shown
    return out


@dataclass(frozen=True)
class Windowed:
    """A windowed container of an observation, by its ref: what a result lists under
    ``windows`` so a program sees how much of each container was read."""

    ref: str
    window: Window

    def to_wire(self) -> dict[str, object]:
        return {"ref": self.ref, **window_json(self.window)}


def windowed(outline: Outline) -> tuple[Windowed, ...]:
    """The windowed containers of ``outline``, in its order."""
    return tuple(Windowed(n.ref, n.window) for n in outline if n.window is not None)
