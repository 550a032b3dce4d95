"""Which kinds of AT-SPI call each toolkit may be sent: never one known to crash it.

Owns the per-toolkit call table and the parsing of an application's
``ToolkitName`` / ``Version`` into a table row. It is plain data and lookups;
the bus (``bus.py``) enforces it on every call it sends, so no call site can
route around it.

Every kind of call actui sends was sent once to each real application below by
``bench/probe_toolkit_calls.py`` (2026-12-01, Debian 12, in a private desktop),
which reports per call whether it was answered, failed with a D-Bus error, killed
the application, or left it not answering. What that found:

- Qt 5.15.8 (featherpad) and Qt 6.4.2 (Qt Designer): ``Properties.GetAll`` on
  any interface (``Application``, ``Accessible``) kills the application with
  SIGSEGV. Every other kind was answered or failed with an error (``ScrollTo``:
  ``UnknownObject``).
- Qt 6.12 (PySide6, ``tests/apps/qt_form.py``): ``GetAll`` is answered with an
  error (``UnknownInterface``); nothing killed it. No Qt is sent ``GetAll``: the
  versions between were not measured, and the newest gain nothing by it.
- GTK 3.24.38 (mousepad, Thunar, zenity), GTK 4.8.3 (gnome-text-editor,
  gtk4-widget-factory), Gecko 153.8.0 (Firefox ESR), Chromium (it says version
  1.0) and LibreOffice 7.4 Calc (its GTK 3 plugin, which reports ``GTK
  3.24.38``; reads only): no kind killed or wedged them. Errors seen:
  ``GetAll`` on ``Application`` (``UnknownProperty``: GTK 3, Gecko, Chromium),
  ``ScrollTo`` and ``GrabFocus`` on GTK 4 (``NotSupported``).
- ``Cache.GetItems`` was answered by every toolkit (whether its cache is
  complete is another question, decided in ``snapshot.py``).

The first contact with an application asks only ``Get Application.ToolkitName``
and ``Get Application.Version`` (``FIRST_CONTACT``), answered everywhere; until
its toolkit is known, an application gets the conservative set: every kind
except the bulk reads in ``RISKY``. A toolkit not in the table keeps that set
(a LibreOffice naming itself ``VCL`` or ``LibreOffice`` was not seen: it
reports its GTK 3 plugin's name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

CallKind = Literal["get_all", "cache"]
"""The kinds of call some toolkit must not be sent.

``get_all``: ``org.freedesktop.DBus.Properties.GetAll`` on any interface.
``cache``: ``org.a11y.atspi.Cache.GetItems`` (one call for the whole tree).
Every other call actui sends (single properties, ``GetState``, ``GetRole``,
``GetChildren``, text, action, component, selection and value calls) was
answered or refused with an error by every toolkit probed, so it is not gated.
"""

RISKY: Final = frozenset[CallKind]({"get_all", "cache"})
FIRST_CONTACT: Final = (
    ("org.a11y.atspi.Application", "ToolkitName"),
    ("org.a11y.atspi.Application", "Version"),
)
"""The only properties asked of an application before its toolkit is known."""

Family = Literal["qt", "gtk", "gecko", "libreoffice", "chromium", "unknown"]


@dataclass(frozen=True)
class Toolkit:
    """An application's toolkit as it names itself, parsed for the table."""

    family: Family
    major: int | None
    minor: int | None

    @classmethod
    def parse(cls, name: str, version: str) -> Toolkit:
        """``("Qt", "5.15.8")`` → qt 5.15; ``("GTK", "3.24.38")`` → gtk 3.24.

        Names as the probed applications report them: Qt and GTK give their own
        version; Firefox says ``Gecko``; LibreOffice says ``VCL`` (or
        ``LibreOffice``) with its own version; Chromium says ``Chromium``.
        """
        family = _family(name.strip().lower())
        numbers = re.match(r"\s*(\d+)(?:\.(\d+))?", version)
        if numbers is None:
            return cls(family, None, None)
        major, minor = numbers.groups()
        return cls(family, int(major), int(minor) if minor is not None else None)

    @classmethod
    def from_label(cls, label: str) -> Toolkit:
        """``"GTK 3.24.38"`` (a root's ``toolkit``: name and version joined) → gtk 3.24."""
        name, _, version = label.strip().rpartition(" ")
        return cls.parse(name, version) if name else cls.parse(label, "")


def _family(name: str) -> Family:
    if name.startswith("qt"):
        return "qt"
    if name.startswith("gtk"):
        return "gtk"
    if name.startswith("gecko") or "firefox" in name or "mozilla" in name:
        return "gecko"
    if name.startswith(("vcl", "libreoffice", "openoffice")):
        return "libreoffice"
    if name.startswith(("chromium", "chrome")):
        return "chromium"
    return "unknown"


@dataclass(frozen=True)
class Row:
    """The risky kinds one toolkit family (from ``min_major`` on) may be sent."""

    family: Family
    min_major: int
    allowed: frozenset[CallKind]
    found: str
    """How this was learnt: the probe's findings behind the row."""


TABLE: Final[tuple[Row, ...]] = (
    Row("qt", 0, frozenset({"cache"}), "GetAll: SIGSEGV in Qt 5.15.8 and 6.4.2, an error in 6.12"),
    Row("gtk", 3, frozenset({"get_all", "cache"}), "all answered (GTK 3.24.38, 4.8.3)"),
    Row("gecko", 0, frozenset({"get_all", "cache"}), "all answered (Firefox ESR 153.8)"),
    Row("chromium", 0, frozenset({"get_all", "cache"}), "all answered (Chromium 156)"),
)
"""First matching row wins, so higher ``min_major`` rows of a family come first."""

CONSERVATIVE: Final = frozenset[CallKind]()
"""What an application of an unknown toolkit (or not yet identified) may be sent."""


def row_for(toolkit: Toolkit) -> Row | None:
    for row in TABLE:
        if row.family == toolkit.family and (toolkit.major or 0) >= row.min_major:
            return row
    return None


def allowed(toolkit: Toolkit) -> frozenset[CallKind]:
    """The risky kinds ``toolkit`` may be sent; :data:`CONSERVATIVE` when not in the table."""
    row = row_for(toolkit)
    return CONSERVATIVE if row is None else row.allowed


WINDOW_RELATIVE: Final = (("gtk", 4), ("unknown", 0))
"""Toolkits whose ``GetExtents(screen)`` is relative to the window (family, from major):
GTK 4 (its root reads ``(0, 0, w, h)`` wherever the window is), and a toolkit not
identified, for which a root at (0, 0) is taken as such. GTK 3, Qt, Gecko and
LibreOffice (which names its GTK 3 plugin) answer screen coordinates: LibreOffice's
frame reads (0, 0) with the window manager's title bar included while everything in
it is already on the screen, so adding the window's origin put every element one
title bar low (issue 24: a click on a menu item ran the item below)."""


def window_relative(toolkit_label: str) -> bool:
    """Whether a root of this toolkit (``RootInfo.toolkit``) at (0, 0) is window-relative."""
    toolkit = Toolkit.from_label(toolkit_label)
    return any(
        toolkit.family == family and (toolkit.major or 0) >= major
        for family, major in WINDOW_RELATIVE
    )


def is_libreoffice(app_name: str) -> bool:
    """LibreOffice reports its GTK 3 plugin as its toolkit; its process names it."""
    return app_name.lower().startswith(("soffice", "libreoffice"))


def insert_length(toolkit_label: str, text: str) -> int:
    """The length ``EditableText.InsertText`` wants for ``text``, in the toolkit's own unit.

    Measured by inserting "Grüße ✓" and reading it back (2026-12-01): Qt 5 and
    Qt 6 count UTF-16 units (the UTF-8 byte count pads the text with NULs);
    GTK 3 counts UTF-8 bytes (UTF-16 units cut it short); GTK 4 takes either.
    """
    if Toolkit.from_label(toolkit_label).family == "qt":
        return len(text.encode("utf-16-le")) // 2
    return len(text.encode())


def call_kind(interface: str, member: str) -> CallKind | None:
    """The risky kind a call is, or None for a call every toolkit probed survives."""
    if interface == "org.freedesktop.DBus.Properties" and member == "GetAll":
        return "get_all"
    if interface == "org.a11y.atspi.Cache" and member == "GetItems":
        return "cache"
    return None
