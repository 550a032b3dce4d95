"""Toolkit naming quirks, undone before a name or value leaves the backend.

GTK 4 (4.8) names unlabelled widgets after their type (``GtkSourceView``,
``AdwLeaflet``, ``GtkMenuButton``) and names a button whose label child also
carries the text twice (gnome-calculator's ``7 7``); Chromium and Gecko leave
U+FFFC object-replacement characters where embedded objects sit, and Gecko,
whose offsets count UTF-16 units, answers the second unit of a character
beyond the BMP with U+FEFF (``x😀y`` reads ``x😀\ufeffy``). None of these is
text a person sees, so each is removed here. Pure string logic: no calls, no
knowledge of trees.

Names and descriptions are app-controlled and unbounded, so both are cut to
:data:`TEXT_CAP` characters here, before anything keeps them, and only short
names are memoized: the cache holds at most :data:`CACHED_NAMES` names of at
most :data:`CACHED_NAME_CHARS` characters, whatever an app puts in its labels.
"""

from __future__ import annotations

import functools
import re

from actui.backends.base import TEXT_CAP

TYPE_NAME = re.compile(r"^(Gtk|Adw|Gdk)[A-Z]\w*$")
OBJECT_REPLACEMENT = "\ufffc"
CACHED_NAMES = 8192
CACHED_NAME_CHARS = 256
"""Longer names are cleaned on every call: at most 8,192 × 256 characters are cached."""
UNSEEN = str.maketrans("", "", "\ufffc\ufeff")


def clean_name(name: str, toolkit: str) -> str:
    """The name a person would read: no type names, no doubled GTK 4 names, no U+FFFC."""
    if len(name) > CACHED_NAME_CHARS:
        return _clean_name(name, toolkit)
    return _cached_clean_name(name, toolkit)


def _clean_name(name: str, toolkit: str) -> str:
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


_cached_clean_name = functools.lru_cache(maxsize=CACHED_NAMES)(_clean_name)


def clean_text(text: str) -> str:
    """Text without object-replacement characters (embedded objects are children
    already) and without Gecko's U+FEFF fillers, cut at ``TEXT_CAP``."""
    text = text[:TEXT_CAP]
    if OBJECT_REPLACEMENT in text or "\ufeff" in text:
        return text.translate(UNSEEN)
    return text
