"""``find_roots`` and ``observe_ui``: which windows and pages there are, and a first look at one.

``find_roots`` lists through the backend registry and names what it found
with the session's ``@r`` refs; ``observe_ui`` asks the observation service
which root a ref reaches and hands it to the full observation
(``observing``). Neither knows which platform listed a root.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from actui.backends.base import RootInfo
from actui.backends.registry import Backends
from actui.config import Config
from actui.errors import ActuiError
from actui.outline.search import rank_text
from actui.quoting import inline
from actui.results.schemas import (
    BOOLEAN,
    INTEGER,
    OBSERVATION,
    ROOT_CAPABILITIES,
    STATE,
    STRING,
    array,
    shape,
)
from actui.results.tool_result import ToolResult
from actui.results.typed import FoundRoot, RootsFound, RootView
from actui.results.views import root_line
from actui.runtime.deltas import Announced
from actui.runtime.roots import RootRegistry, is_browser_app, window_score
from actui.tools.contract import Tool, ToolParams
from actui.tools.observing import Looker

TOP_N = 12
"""Roots a listing returns at most; the rest are counted."""


class FindRoots(ToolParams):
    text: str | None = Field(None, max_length=256, description="Ranked match on app and title.")
    app: str | None = Field(None, max_length=256, description="Exact app name.")
    bundleId: str | None = Field(None, max_length=256)
    pid: int | None = Field(None, ge=0)
    kind: Literal["window", "menu", "sheet", "popover", "dialog", "browser_page"] | None = None


class ObserveUi(ToolParams):
    root: str | None = Field(None, pattern=r"^@r\d+$", description="@r ref; default: focused.")
    mode: Literal["semantic", "fused", "visual"] = Field(
        "fused", description="fused adds a screenshot only when the tree is poor."
    )


async def _all_roots(backends: Backends, p: FindRoots, cfg: Config) -> tuple[list[RootInfo], str]:
    """The roots, and why the browser's pages are missing from them, if they are.

    A browser that fails to list (hung, stopped) is its own failure while a
    desktop is listed: its pages are left out with a notice.
    """
    await backends.attach_configured_browser()
    browser = backends.started_browser
    pages_wanted = (
        cfg.browser_use
        and browser is not None
        and p.pid in (None, 0)
        and not p.bundleId
        and (not p.app or p.app.strip().lower() == "browser")
    )
    roots: list[RootInfo] = []
    if backends.has_desktop() or not pages_wanted:
        roots += await backends.desktop.list_roots(pid=p.pid)
    if pages_wanted and browser is not None:
        try:
            roots += await browser.list_roots()
        except ActuiError as exc:
            if not backends.has_desktop():
                raise
            return roots, f"the browser's pages are not listed: {exc.message}"
    return roots, ""


async def find_roots(
    backends: Backends, refs: RootRegistry, announced: Announced, p: FindRoots
) -> ToolResult:
    cfg = backends.config()
    listed, unlisted = await _all_roots(backends, p, cfg)
    roots = listed
    if p.app:
        wanted = p.app.strip().lower()
        roots = [r for r in roots if r.app_name.strip().lower() == wanted]
    if p.kind:
        roots = [r for r in roots if r.kind == p.kind]
    scored: list[tuple[float, RootInfo]] = []
    for root in roots:
        if p.text and p.text.strip():
            ranked = rank_text(p.text, [root.app_name, root.title])
            if ranked is None:
                continue
            scored.append((ranked[1], root))
        else:
            scored.append((1.0, root))
    scored.sort(key=lambda sr: (-sr[0], not sr[1].is_focused, sr[1].z_order, -window_score(sr[1])))
    top = scored[:TOP_N]
    if not cfg.browser_use:
        top = [(score, r) for score, r in top if r.kind != "browser_page"]
    lines = [
        f"found {len(scored)} roots; returned {len(top)}."
        + (" Refine with text, app, pid or kind." if len(scored) > len(top) else "")
        + " Pass an @r to observe_ui."
    ]
    found = []
    for score, root in top:
        ref = refs.ref_for(root)
        allowed = cfg.browser_use or not is_browser_app(root)
        lines.append(root_line(ref, root) + ("" if allowed else " [browser_use_disabled]"))
        found.append(FoundRoot(RootView(ref, root), score, allowed))
    announced.shown(listed, {root.pid for _, root in top})
    if not top:
        lines = [
            "no roots match these filters."
            if (p.text or p.app or p.pid or p.kind)
            else "no windows are open on this desktop."
        ]
    notices = (*backends.notices(), *([unlisted] if unlisted else []))
    result = RootsFound(tuple(found), len(scored), notices, cfg.browser_use, cfg.headless)
    text = "\n".join([*lines, *(f"note: {inline(n)}" for n in notices)])
    return ToolResult(text, result)


async def observe_ui(looker: Looker, p: ObserveUi) -> ToolResult:
    root = await looker.observer.pick(p.root or None)
    return await looker.observe(root, p.mode, "observe_ui")


FIND_ROOTS = Tool(
    "find_roots",
    FindRoots,
    "List windows, dialogs and browser pages as @r refs. Start here to pick a target.",
    lambda s, p: find_roots(s.backends, s.roots, s.announced, p),
    shape(
        ("windows",),
        windows=array(
            shape(
                ("windowRef", "pid", "capabilities"),
                windowRef=STRING,
                pid=INTEGER,
                capabilities=ROOT_CAPABILITIES,
            )
        ),
        hasMore=BOOLEAN,
    ),
)
OBSERVE_UI = Tool(
    "observe_ui",
    ObserveUi,
    "Snapshot a root: a folded outline with @e refs and a stateId. Use before acting.",
    lambda s, p: observe_ui(s.looker, p),
    shape(STATE, **OBSERVATION),
)
