"""Toolkit naming quirks, undone before a name or value leaves the backend.

GTK 4 (4.8) names unlabelled widgets after their type (``GtkSourceView``,
``AdwLeaflet``, ``GtkMenuButton``) and names a button whose label child also
carries the text twice (gnome-calculator's ``7 7``); Chromium and Gecko leave
U+FFFC object-replacement characters where embedded objects sit, and Gecko,
whose offsets count UTF-16 units, answers the second unit of a character
beyond the BMP with U+FEFF (``x😀y`` reads ``x😀\ufeffy``). None of these is
text a person sees, so each is removed here. Pure string logic: no calls, no
knowledge of trees.
"""

from __future__ import annotations

import functools
import re

TYPE_NAME = re.compile(r"^(Gtk|Adw|Gdk)[A-Z]\w*$")
OBJECT_REPLACEMENT = "\ufffc"
UNSEEN = str.maketrans("", "", "\ufffc\ufeff")


@functools.lru_cache(maxsize=8192)
def clean_name(name: str, toolkit: str) -> str:
    """The name a person would read: no type names, no doubled GTK 4 names, no U+FFFC."""
    name = clean_text(name)
    if not toolkit.lower().startswith("gtk"):
        return name
    if TYPE_NAME.match(name):
        return ""
    if toolkit.lower().startswith("gtk 4"):
        middle = len(name) // 2
        # an exact doubling around one middle space: "7 7", "Clear all Clear all"
        if len(name) % 2 == 1 and name[middle] == " " and name[:middle] == name[middle + 1 :]:
            return name[:middle]
    return name


def clean_text(text: str) -> str:
    """Text without object-replacement characters (embedded objects are children
    already) and without Gecko's U+FEFF fillers."""
    if OBJECT_REPLACEMENT in text or "\ufeff" in text:
        return text.translate(UNSEEN)
    return text
