"""Which neutral capabilities an element offers, from what AT-SPI says about it.

Pure logic over interfaces, action names, states and role, shared by the
snapshot (to advertise ``caps``) and by action delivery (to choose the action
index). It makes no calls.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

# The first of these names wins when an element has several actions: toolkits
# list incidental ones (edit, expand or contract) first (docs/design-notes.md §3).
PRESS_ORDER = ("activate", "click", "press", "invoke", "open")
PRESS_WORDS = frozenset({*PRESS_ORDER, "jump", "toggle", "select", "switch"})
EXPAND_WORDS = ("expand or contract", "expand or collapse", "expand", "collapse", "open", "toggle")
# Action names that are a click by name. Others (a GTK 3 table cell's
# ``activate`` opens the row) do what a double click or Enter does.
CLICK_WORDS = ("click", "press")
SELECT_WORDS = ("select",)
# Toolkits whose bridge runs an action inside the AT-SPI call that asked for it
# (the reply goes out first, then the handler runs): an action that opens a
# modal dialog with a nested main loop (GTK 3's gtk_dialog_run) holds that
# call, so the application answers nothing until the dialog closes, and once
# any client listens to events the bridge forwards every key press
# synchronously over the same held connection and deadlocks (gdb on Thunar:
# gtk_dialog_run under dbus_connection_dispatch, then the key listener waiting
# in dbus_connection_dispatch).
ACTIONS_IN_CALL_TOOLKITS = ("gtk 3",)
TOGGLE_ROLES = frozenset(
    {
        "check box",
        "toggle button",
        "radio button",
        "check menu item",
        "radio menu item",
        "switch",
    }
)
# Roles whose only action is a press in every toolkit measured: the cap when
# their action names were not read (hidden elements, see ``snapshot``).
PRESS_ROLES = frozenset(
    {
        "push button",
        "button",
        "toggle button",
        "check box",
        "radio button",
        "menu item",
        "check menu item",
        "radio menu item",
        "link",
        "page tab",
        "combo box",
        "switch",
    }
)
READ_ONLY_VALUE_ROLES = frozenset({"progress bar", "level bar", "scroll bar"})
MENU_ROLES = frozenset({"menu", "menu item", "check menu item", "radio menu item"})
"""Menus and their items: run by their click action, never given a value (LibreOffice
puts a Value interface on its menus: they read as ``setValue,increment,decrement``)."""
SCROLL_ROLES = frozenset({"scroll pane", "viewport", "document web", "document frame", "terminal"})

_SEPARATORS = re.compile(r"[\s_\-]+")


def normalize_action(name: str) -> str:
    """Trimmed, lowercased, ``-``/``_`` as spaces, whitespace collapsed."""
    return _SEPARATORS.sub(" ", name.strip().lower()).strip()


def press_index(actions: Sequence[str]) -> int | None:
    """The action a press uses: the first of :data:`PRESS_ORDER` present, else 0."""
    if not actions:
        return None
    names = [normalize_action(a) for a in actions]
    for wanted in PRESS_ORDER:
        if wanted in names:
            return names.index(wanted)
    return 0


def action_may_hold_call(toolkit: str, name: str, *, libreoffice: bool = False) -> bool:
    """Whether acting on an element named ``name`` may open a dialog inside the AT-SPI
    call, leaving the application unable to answer (see ACTIONS_IN_CALL_TOOLKITS).

    A label ending in an ellipsis is the desktop convention for a command that
    asks for more input in a dialog before it runs. LibreOffice names its GTK 3
    plugin as its toolkit, but its own code runs the action after the reply
    (Writer's Tools › Word Count...: the call answered in 1.4 ms, the dialog
    opened and the application kept answering).
    """
    return (
        not libreoffice
        and toolkit.lower().startswith(ACTIONS_IN_CALL_TOOLKITS)
        and name.strip().endswith(("...", "\u2026"))
    )


def named_index(actions: Sequence[str], wanted: Iterable[str]) -> int | None:
    """The index of the first action named in ``wanted`` (in ``wanted``'s order)."""
    names = [normalize_action(a) for a in actions]
    for word in wanted:
        if word in names:
            return names.index(word)
    return None


@functools.lru_cache(maxsize=4096)
def derive_caps(
    role: str,
    interfaces: frozenset[str],
    actions: tuple[str, ...] | None,
    states: frozenset[str],
    *,
    parent_selects: bool = False,
    in_scroll_area: bool = False,
) -> frozenset[str]:
    """The neutral capabilities (``base.CAPABILITIES``) the element can take semantically.

    ``actions`` is None when the names were not read: press and toggle then
    follow the role (delivery reads the names when it acts). Memoized: a
    mirrored snapshot asks the same questions for every unchanged node.
    """
    caps: set[str] = set()
    acts = "Action" in interfaces
    if actions is None:
        actions = ()
        has_action = pressable = acts and role in PRESS_ROLES
    else:
        names = {normalize_action(a) for a in actions}
        has_action = acts and bool(names)
        pressable = acts and bool(names & PRESS_WORDS)
    if pressable:
        caps.add("press")
    if has_action and (role in TOGGLE_ROLES or "checkable" in states):
        caps.add("toggle")
    # A read-only GTK text view keeps its EditableText interface: only the
    # ``editable`` state says typing would work.
    if "EditableText" in interfaces and "editable" in states and "read_only" not in states:
        caps.update(("setText", "typeText"))
    if "Value" in interfaces and role not in READ_ONLY_VALUE_ROLES | MENU_ROLES:
        caps.update(("setValue", "increment", "decrement"))
    if parent_selects or "selectable" in states:
        caps.add("select")
    if "focusable" in states and "Component" in interfaces:
        caps.add("focus")
    if "Component" in interfaces and (in_scroll_area or role in SCROLL_ROLES):
        caps.add("scroll")
    if "expandable" in states or named_index(actions, EXPAND_WORDS[:4]) is not None:
        caps.add("expand")
    return frozenset(caps)
