"""What Gecko (Firefox) over AT-SPI does differently, as predicates the call sites ask.

Measured on Firefox ESR 153 in a private desktop
(tests/integration/test_corpus_firefox.py):

- ``EditableText`` (``SetTextContents``, ``InsertText``, ``DeleteText``) on a
  web page's fields answers ``true`` and changes nothing, focused or not: web
  content lives in another process and the parent's accessible only mirrors
  it. Text goes in by physical input instead, so these calls are not sent.
- A closed popup (context menus, the toolbar buttons' history menus: 23 empty
  ``menu`` children of the window on a plain page) reports neither
  ``visible`` nor ``showing``; an open one reports both. Closed ones are not
  listed.
- The first focus moved into a page (``GrabFocus`` on a field) shows as
  ``focused`` only after ~0.4 s (other fields: ~40 ms), past the settle
  budget that suits other toolkits (and over 1.5 s on a loaded machine): focus
  is waited for up to 3 s.

Pure logic: no calls. It does not decide what is read or how; the snapshot,
the reader and the action delivery do.
"""

from __future__ import annotations

EDITABLE_TEXT_IGNORED = (
    "Firefox ignores accessibility text edits on web content (it reports success and "
    "changes nothing)"
)
_SEEN = frozenset({"visible", "showing"})
FOCUS_SETTLE_S = 3.0


def is_gecko(toolkit: str) -> bool:
    """``Gecko 153.8.0``, as ``RootInfo.toolkit`` names Firefox and Thunderbird."""
    return toolkit.lower().startswith("gecko")


def ignores_editable_text(toolkit: str) -> bool:
    """Whether ``EditableText`` writes would be answered without effect (so never sent)."""
    return is_gecko(toolkit)


def focus_settle_s(toolkit: str, default: float) -> float:
    """How long a ``GrabFocus`` may take to show as ``focused``."""
    return FOCUS_SETTLE_S if is_gecko(toolkit) else default


def closed_popup(toolkit: str, states: frozenset[str]) -> bool:
    """A Gecko element that says neither ``visible`` nor ``showing``: a closed popup."""
    return is_gecko(toolkit) and not states & _SEEN
