"""AT-SPI's numeric role and state enumerations, as names.

Roles and states travel over D-Bus as numbers (``GetRole``, ``GetState``,
``Cache.GetItems``); this module turns them into the lowercase names the rest
of actui reads. Numbers are used instead of ``GetRoleName`` because toolkits
disagree on the strings (GTK 4 says ``window`` for a frame and ``button`` for a
push button) but agree on the numbers. This module only maps; it makes no calls.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

# AtspiRole, in enumeration order (index = number), spaces as GetRoleName uses.
ROLE_NAMES: tuple[str, ...] = (
    "invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas",
    "check box", "check menu item", "color chooser", "column header", "combo box",
    "date editor", "desktop icon", "desktop frame", "dial", "dialog", "directory pane",
    "drawing area", "file chooser", "filler", "focus traversable", "font chooser", "frame",
    "glass pane", "html container", "icon", "image", "internal frame", "label",
    "layered pane", "list", "list item", "menu", "menu bar", "menu item", "option pane",
    "page tab", "page tab list", "panel", "password text", "popup menu", "progress bar",
    "push button", "radio button", "radio menu item", "root pane", "row header",
    "scroll bar", "scroll pane", "separator", "slider", "spin button", "split pane",
    "status bar", "table", "table cell", "table column header", "table row header",
    "tearoff menu item", "terminal", "text", "toggle button", "tool bar", "tool tip",
    "tree", "tree table", "unknown", "viewport", "window", "extended", "header", "footer",
    "paragraph", "ruler", "application", "autocomplete", "editbar", "embedded", "entry",
    "chart", "caption", "document frame", "heading", "page", "section",
    "redundant object", "form", "link", "input method window", "table row", "tree item",
    "document spreadsheet", "document presentation", "document text", "document web",
    "document email", "comment", "list box", "grouping", "image map", "notification",
    "info bar", "level bar", "title bar", "block quote", "audio", "video", "definition",
    "article", "landmark", "log", "marquee", "math", "rating", "timer", "static",
    "math fraction", "math root", "subscript", "superscript", "description list",
    "description term", "description value", "footnote", "content deletion",
    "content insertion", "mark", "suggestion", "push button menu",
)  # fmt: skip

# AtspiStateType, in enumeration order (bit number = index).
STATE_NAMES: tuple[str, ...] = (
    "invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable",
    "enabled", "expandable", "expanded", "focusable", "focused", "has_tooltip",
    "horizontal", "iconified", "modal", "multi_line", "multiselectable", "opaque",
    "pressed", "resizable", "selectable", "selected", "sensitive", "showing",
    "single_line", "stale", "transient", "vertical", "visible", "manages_descendants",
    "indeterminate", "required", "truncated", "animated", "invalid_entry",
    "supports_autocompletion", "selectable_text", "is_default", "visited", "checkable",
    "has_popup", "read_only",
)  # fmt: skip

SECURE_ROLES = frozenset({"password text"})


def role_name(number: int) -> str:
    """The role's name; numbers newer than this table read as ``role <n>``."""
    if 0 <= number < len(ROLE_NAMES):
        return ROLE_NAMES[number]
    return f"role {number}"


def state_names(words: Iterable[int]) -> frozenset[str]:
    """The names of the bits set in AT-SPI's state set (32-bit words, low word first)."""
    return _state_names(tuple(int(word) for word in words))


@functools.lru_cache(maxsize=1024)
def _state_names(words: tuple[int, ...]) -> frozenset[str]:
    """Memoized: a window's hundreds of elements share a few dozen state sets."""
    names: set[str] = set()
    for word_index, word in enumerate(words):
        base = word_index * 32
        bits = int(word) & 0xFFFFFFFF
        while bits:
            low = bits & -bits
            bit = base + low.bit_length() - 1
            names.add(STATE_NAMES[bit] if bit < len(STATE_NAMES) else f"state {bit}")
            bits ^= low
    names.discard("invalid")
    return frozenset(names)
