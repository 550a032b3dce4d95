"""The neutral role vocabulary: one name per kind of control, many aliases.

Search, conditions and rendering speak neutral roles so that ``button`` finds a
GTK3 ``push button``, a GTK4 ``button`` and a web ``button`` alike. Raw roles
stay on the node for ``inspect_ui``. This module only maps names.
"""

from __future__ import annotations

import functools
import re

_ALIASES: dict[str, tuple[str, ...]] = {
    "button": ("push button", "pushbutton", "button", "push_button", "axbutton"),
    "toggle": ("toggle button", "togglebutton", "switch"),
    "checkbox": ("check box", "checkbox", "check button", "axcheckbox", "check menu item"),
    "radio": ("radio button", "radiobutton", "radio", "radio menu item", "axradiobutton"),
    "textbox": (
        "text",
        "entry",
        "textbox",
        "text field",
        "textfield",
        "searchbox",
        "search box",
        "axtextfield",
        "axtextarea",
        "editbar",
        "terminal",
    ),
    "password": ("password text", "password", "secure text field"),
    "combobox": ("combo box", "combobox", "axcombobox", "axpopupbutton"),
    "spinbutton": ("spin button", "spinbutton", "axincrementor"),
    "slider": ("slider", "scale", "axslider"),
    "label": ("label", "static", "statictext", "axstatictext", "caption", "static text"),
    "link": ("link", "axlink"),
    "menu": ("menu", "axmenu", "menubar", "menu bar", "axmenubar", "popup menu"),
    "menuitem": ("menu item", "menuitem", "axmenuitem", "menu item radio", "menuitemradio"),
    "tab": ("page tab", "tab", "axtab"),
    "tablist": ("page tab list", "tablist", "axtabgroup"),
    "list": ("list", "list box", "listbox", "axlist"),
    "listitem": ("list item", "listitem", "option"),
    "table": ("table", "tree table", "tree", "grid", "axtable", "axoutline"),
    "row": ("table row", "row", "axrow", "tree item", "treeitem"),
    "cell": ("table cell", "cell", "gridcell", "axcell"),
    "columnheader": ("column header", "table column header", "columnheader"),
    "window": ("frame", "window", "axwindow"),
    "dialog": ("dialog", "alert", "file chooser", "color chooser", "alertdialog", "axsheet"),
    "document": ("document frame", "document web", "rootwebarea", "webarea", "document"),
    "heading": ("heading",),
    "image": ("image", "icon", "img", "axImage"),
    "group": ("panel", "filler", "grouping", "group", "section", "generic", "axgroup", "box"),
    "toolbar": ("tool bar", "toolbar", "axtoolbar"),
    "statusbar": ("status bar", "statusbar"),
    "scrollbar": ("scroll bar", "scrollbar", "axscrollbar"),
    "scrollpane": ("scroll pane", "viewport", "axscrollarea"),
    "separator": ("separator",),
    "progressbar": ("progress bar", "progressbar", "level bar", "progressindicator"),
    "tooltip": ("tool tip", "tooltip"),
    "application": ("application",),
    "paragraph": ("paragraph",),
}

_NORMAL = re.compile(r"[\s_\-]+")


def normalize_role(role: str) -> str:
    """Lowercased, spaces/underscores/hyphens removed, a leading ``ax`` kept."""
    return _NORMAL.sub("", role.strip().lower())


_INDEX: dict[str, str] = {}
for _neutral, _names in _ALIASES.items():
    _INDEX[normalize_role(_neutral)] = _neutral
    for _name in _names:
        _INDEX.setdefault(normalize_role(_name), _neutral)


@functools.lru_cache(maxsize=4096)
def neutral_role(raw_role: str) -> str:
    """The neutral name of a raw platform role; unknown roles keep their own name."""
    key = normalize_role(raw_role)
    if key in _INDEX:
        return _INDEX[key]
    if key.startswith("ax") and key[2:] in _INDEX:
        return _INDEX[key[2:]]
    return raw_role.strip().lower() or "unknown"


def roles_equal(query: str, role: str) -> bool:
    """Whether a query role names the same neutral role as ``role``."""
    return neutral_role(query) == neutral_role(role)
