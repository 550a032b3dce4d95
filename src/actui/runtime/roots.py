"""The cumulative root registry and root ranking.

``@r`` refs are keyed by the backend's native identity and never reassigned,
so an agent's ``@r3`` keeps meaning the same window across listings
(docs/design-notes.md §1). This module holds no platform code and never lists roots itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from actui.backends.base import RootInfo
from actui.errors import TargetGone, UnknownRef


def window_score(root: RootInfo) -> int:
    """What an agent most likely means: modal, then focused (docs/design-notes.md §1)."""
    return (
        180 * root.is_modal
        + 100 * root.is_focused
        + 40 * (not root.is_minimized)
        + 20 * root.is_onscreen
        + 10 * bool(root.window_id)
        + 2 * bool(root.title.strip())
    )


class RootRegistry:
    def __init__(self) -> None:
        self._refs: dict[str, str] = {}
        self._roots: dict[str, RootInfo] = {}
        self._issued = 0

    def ref_for(self, root: RootInfo) -> str:
        ref = self._refs.get(root.native_id) or self._stand_in_for(root)
        if ref is None:
            self._issued += 1
            ref = f"@r{self._issued}"
        self._refs[root.native_id] = ref
        self._roots[ref] = root
        return ref

    def _stand_in_for(self, root: RootInfo) -> str | None:
        """The ref of the tree-less stand-in listed for ``root``'s window before its app's
        tree was readable: the same window keeps its ref when its tree arrives (a window
        listed in the moment after it mapped got a second ref a moment later)."""
        if not root.window_id or root.accessibility == "none":
            return None
        for ref, known in self._roots.items():
            if (
                known.accessibility == "none"
                and known.window_id == root.window_id
                and known.pid == root.pid
                and self._refs.get(known.native_id) == ref
            ):
                return ref
        return None

    def get(self, ref: str) -> RootInfo:
        root = self._roots.get(ref)
        if root is None:
            raise UnknownRef(f"root: {ref} was never issued in this session. Run find_roots.")
        return root


def match_root(wanted: RootInfo, candidates: Sequence[RootInfo]) -> RootInfo:
    """Re-find ``wanted`` among a fresh listing: native id, then window id, then title."""
    for root in candidates:
        if root.native_id == wanted.native_id:
            return root
    if wanted.window_id:
        for root in candidates:
            if root.window_id == wanted.window_id:
                return root
    titled = [
        r for r in candidates if r.pid == wanted.pid and r.title.strip() and r.title == wanted.title
    ]
    if len(titled) == 1:
        return titled[0]
    kind = "page" if wanted.kind == "browser_page" else "window"
    process = f" (pid {wanted.pid})" if wanted.pid > 0 else ""
    raise TargetGone(
        f"the {kind} {wanted.title or wanted.app_name!r}{process} is gone. "
        "Run find_roots, then observe_ui.",
        pid=wanted.pid,
    )


def pick_default(roots: Sequence[RootInfo]) -> RootInfo | None:
    """The root an agent means when it names none: the best-scoring one."""
    if not roots:
        return None
    return max(roots, key=lambda r: (window_score(r), -r.z_order))


def promote_modal(root: RootInfo, siblings: Sequence[RootInfo]) -> RootInfo:
    """A modal window of the same app in front of ``root`` is what input reaches.

    A modal behind the requested root is not promoted: it does not get the
    root's input (docs/design-notes.md §1).
    """
    in_front = [
        r
        for r in siblings
        if r.is_modal
        and r.pid == root.pid
        and r.native_id != root.native_id
        and (r.z_order < root.z_order or (r.is_focused and not root.is_focused))
    ]
    return min(in_front, key=lambda r: r.z_order) if in_front else root


_BROWSERS = frozenset(
    {
        "chrome",
        "google-chrome",
        "google-chrome-stable",
        "chromium",
        "chromium-browser",
        "microsoft-edge",
        "microsoft-edge-stable",
        "brave",
        "brave-browser",
        "vivaldi",
        "vivaldi-stable",
        "opera",
        "firefox",
        "firefox-esr",
    }
)


def is_browser_app(root: RootInfo) -> bool:
    """A browser's own window or page: what ``browser_use = false`` refuses."""
    if root.kind == "browser_page":
        return True
    name = root.app_name.strip().lower().rsplit("/", 1)[-1].removesuffix(".desktop")
    return name in _BROWSERS or name.replace(" ", "-") in _BROWSERS
