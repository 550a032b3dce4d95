"""The eleven tools, composed from the runtime pieces: ``Computer``.

``Computer`` is the async Python API and what the MCP server calls. Each tool
validates its arguments through the contract, works on immutable states under
the scheduler, and returns a :class:`ToolResult` whose text is bounded. It
holds no platform code: backends come in through the seam.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from actui import contract
from actui.actions import Prepared, aggregate, deliver, prepare, reconcile
from actui.backends.base import Backend, RootInfo, Snapshot
from actui.conditions import (
    UiCondition,
    check_scope,
    closest,
    condition_json,
    describe,
    parse_condition,
)
from actui.conditions import evaluate as evaluate_condition
from actui.config import Config, load_config
from actui.errors import (
    ActuiError,
    BackendUnavailable,
    InvalidParams,
    PreconditionFailed,
    SecureTextUnreadable,
    StaleDocument,
    TargetGone,
    UnknownRef,
    UnknownState,
)
from actui.outline.diff import changes_json, compute_changes, render_changes
from actui.outline.fold import fold_header, label_line, path_text, render_fold
from actui.outline.model import Outline
from actui.outline.search import rank_text, render_search, search
from actui.output import OutputStore, page_chars
from actui.runtime.deltas import SETTLE_WINDOW_S, root_deltas, settle
from actui.runtime.roots import (
    RootRegistry,
    match_root,
    pick_default,
    promote_modal,
    window_score,
)
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import State, StateStore, new_state_id
from actui.runtime.waiting import WaitResult, observed_outline, wait_until
from actui.views import root_delta_lines, root_json, root_line, trace_summary

if TYPE_CHECKING:
    from actui.backends.cdp import CdpBackend, EvalResult

log = logging.getLogger(__name__)

MAX_NODES = 4096
MAX_DEPTH = 64
TOP_N = 12


@dataclass
class ToolResult:
    """What a tool returns: model-visible text, images, and structured details."""

    text: str
    details: dict[str, Any]
    images: list[tuple[bytes, str]] = field(default_factory=list)
    is_error: bool = False


IMAGE_MAX = {"fused": 900, "visual": 1600}


def image_geometry(root: RootInfo, mode: str) -> tuple[float, tuple[int, int] | None]:
    """Image pixels per screen pixel, and the image size, for an observation mode.

    A semantic observation has no image, so it offers no coordinate space.
    """
    frame = root.frame
    limit = IMAGE_MAX.get(mode)
    if limit is None or frame is None or frame.empty:
        return 1.0, None
    scale = min(1.0, limit / max(frame.w, frame.h))
    return scale, (max(1, round(frame.w * scale)), max(1, round(frame.h * scale)))


IMAGE_NOTES = {
    "sparse_ax_targets": "The accessible tree is nearly empty, so a screenshot is attached; "
    "act on it with x/y in its pixels.",
    "unlabeled_ax_targets": "Most elements have no label, so a screenshot is attached to "
    "tell them apart; x/y are in its pixels.",
    "fallback_recovery": "Screenshot attached (visual mode); x/y are in its pixels.",
}


def image_reason(outline: Outline, mode: str) -> str | None:
    """Why an observation shows its image, or None (reference §1.2)."""
    if mode == "visual":
        return "fallback_recovery"
    if mode != "fused":
        return None
    if len(outline) < 3:
        return "sparse_ax_targets"
    labeled = sum(1 for node in outline if node.label)
    return "unlabeled_ax_targets" if labeled * 3 < len(outline) else None


_URL_SCHEMES = ("http://", "https://", "file:", "data:", "about:blank")


def check_url(url: str, field: str) -> str:
    """Only web, local-file, data and blank URLs: nothing that starts other programs."""
    text = url.strip()
    if not text.lower().startswith(_URL_SCHEMES):
        raise InvalidParams(
            field,
            f"{url[:80]!r} is not an absolute http(s), file:, data: or about:blank URL.",
            "Give a full URL such as https://example.org/.",
        )
    return text


def _scale(state: State) -> float:
    value = state.extra.get("scale", 1.0)
    return float(value) if isinstance(value, (int, float)) else 1.0


def _default_desktop(env: Mapping[str, str]) -> Backend:
    from actui.backends.linux import LinuxBackend

    return LinuxBackend(env=env)


class Computer:
    """One agent session: backends, states, scheduler, refs and output pages."""

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        desktop: Backend | None = None,
    ) -> None:
        self.env: Mapping[str, str] = dict(os.environ if env is None else env)
        self._desktop = desktop
        self._browser: CdpBackend | None = None
        self.store = StateStore()
        self.scheduler = Scheduler()
        self.roots = RootRegistry()
        self.output = OutputStore()

    @property
    def desktop(self) -> Backend:
        if self._desktop is None:
            if not self.env.get("DBUS_SESSION_BUS_ADDRESS"):
                raise BackendUnavailable(
                    "no desktop session: DBUS_SESSION_BUS_ADDRESS is not set. Run inside a "
                    "desktop session, or start one with `actui sandbox run -- <command>`."
                )
            self._desktop = _default_desktop(self.env)
        return self._desktop

    @property
    def browser(self) -> CdpBackend:
        if self._browser is None:
            from actui.backends.cdp import CdpBackend

            self._browser = CdpBackend(env=self.env)
        return self._browser

    def config(self) -> Config:
        return load_config(self.env)

    async def close(self) -> None:
        await self.scheduler.close()
        if self._desktop is not None:
            await self._desktop.close()
        if self._browser is not None:
            await self._browser.close()
        self.output.close()

    # ------------------------------------------------------------------ entry

    async def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Run one tool call; contract errors and agent-visible failures become text."""
        try:
            params = contract.validate(tool, arguments)
            handler = getattr(self, f"_tool_{tool}")
            result: ToolResult = await handler(params)
        except ActuiError as exc:
            return self._error(tool, exc.code, exc.message)
        except Exception as exc:  # a bug must not reach the agent as a traceback
            log.exception("%s failed unexpectedly", tool)
            return self._error(
                tool,
                "internal_error",
                f"internal error ({type(exc).__name__}: {exc}). "
                "The server is still running; retry or observe again.",
            )
        result.details["tool"] = tool
        result.text = self.output.bound(result.text, tool=tool)
        return result

    def _error(self, tool: str, code: str, message: str) -> ToolResult:
        text = self.output.bound_error(f"{tool} failed: {message}")
        return ToolResult(text, {"tool": tool, "error": {"code": code, "message": text}}, [], True)

    # ------------------------------------------------------------ Python API
    # One typed method per tool; each accepts the contract's parameter model or
    # the same keyword arguments an agent sends (camelCase wire names).

    async def _typed(self, tool: str, params: contract.Params | None, args: Any) -> ToolResult:
        if params is not None:
            args = {**params.model_dump(exclude_none=True, by_alias=True), **args}
        return await self.call(tool, args)

    async def find_roots(self, p: contract.FindRoots | None = None, /, **a: Any) -> ToolResult:
        return await self._typed("find_roots", p, a)

    async def observe_ui(self, p: contract.ObserveUi | None = None, /, **a: Any) -> ToolResult:
        return await self._typed("observe_ui", p, a)

    async def search_ui(self, p: contract.SearchUi | None = None, /, **a: Any) -> ToolResult:
        return await self._typed("search_ui", p, a)

    async def expand_ui(self, p: contract.ExpandUi | None = None, /, **a: Any) -> ToolResult:
        return await self._typed("expand_ui", p, a)

    async def inspect_ui(self, p: contract.InspectUi | None = None, /, **a: Any) -> ToolResult:
        return await self._typed("inspect_ui", p, a)

    async def act_ui(self, p: contract.ActUi | None = None, /, **a: Any) -> ToolResult:
        return await self._typed("act_ui", p, a)

    async def read_text(self, p: contract.ReadText | None = None, /, **a: Any) -> ToolResult:
        return await self._typed("read_text", p, a)

    async def wait_for(self, p: contract.WaitFor | None = None, /, **a: Any) -> ToolResult:
        return await self._typed("wait_for", p, a)

    async def launch_browser(
        self, p: contract.LaunchBrowser | None = None, /, **a: Any
    ) -> ToolResult:
        return await self._typed("launch_browser", p, a)

    async def navigate_browser(
        self, p: contract.NavigateBrowser | None = None, /, **a: Any
    ) -> ToolResult:
        return await self._typed("navigate_browser", p, a)

    async def evaluate_browser(
        self, p: contract.EvaluateBrowser | None = None, /, **a: Any
    ) -> ToolResult:
        return await self._typed("evaluate_browser", p, a)

    async def act(
        self,
        action: str,
        target: str | None = None,
        params: Mapping[str, Any] | None = None,
        *,
        state_id: str | None = None,
    ) -> ToolResult:
        """The seeds' one-step shorthand: ``act(action="typeText", target="@e4", params=…)``.

        Runs on ``state_id``, or on the newest state this session saved.
        """
        state = self.store.get(state_id) if state_id else self.store.newest()
        if state is None:
            return self._error("act_ui", "invalid_params", "stateId: no state yet; observe first.")
        step: dict[str, Any] = {"action": action, **(params or {})}
        if target is not None:
            step["ref"] = target
        return await self.call("act_ui", {"stateId": state.state_id, "actions": [step]})

    # -------------------------------------------------------------- discovery

    def _has_desktop(self) -> bool:
        return self._desktop is not None or bool(self.env.get("DBUS_SESSION_BUS_ADDRESS"))

    async def _all_roots(self, p: contract.FindRoots, cfg: Config) -> list[RootInfo]:
        pages_wanted = (
            cfg.browser_use
            and self._browser is not None
            and p.pid in (None, 0)
            and not p.bundleId
            and (not p.app or p.app.strip().lower() == "browser")
        )
        roots: list[RootInfo] = []
        if self._has_desktop() or not pages_wanted:
            roots += await self.desktop.list_roots(pid=p.pid)
        if pages_wanted and self._browser is not None:
            roots += await self._browser.list_roots()
        return roots

    async def _tool_find_roots(self, p: contract.FindRoots) -> ToolResult:
        cfg = self.config()
        roots = await self._all_roots(p, cfg)
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
        scored.sort(
            key=lambda sr: (-sr[0], not sr[1].is_focused, sr[1].z_order, -window_score(sr[1]))
        )
        top = scored[:TOP_N]
        if not cfg.browser_use:
            top = [(score, r) for score, r in top if r.kind != "browser_page"]
        lines = [
            f"found {len(scored)} roots; returned {len(top)}."
            + (" Refine with text, app, pid or kind." if len(scored) > len(top) else "")
            + " Pass an @r to observe_ui."
        ]
        windows = []
        for score, root in top:
            ref = self.roots.ref_for(root)
            lines.append(root_line(ref, root))
            windows.append({**root_json(ref, root), "score": round(score, 3)})
        if not top:
            lines = [
                "no roots match these filters."
                if (p.text or p.app or p.pid or p.kind)
                else "no windows are open on this desktop."
            ]
        return ToolResult(
            "\n".join(lines),
            {
                "windows": windows,
                "totalMatches": len(scored),
                "returned": len(top),
                "hasMore": len(scored) > len(top),
                "config": {"browser_use": cfg.browser_use, "headless": cfg.headless},
            },
        )

    # ------------------------------------------------------------ observation

    def _backend_for(self, root: RootInfo) -> Backend:
        if root.kind == "browser_page":
            if not self.config().browser_use:
                raise BackendUnavailable(
                    "browser use is turned off (browser_use = false); browser pages are "
                    "not available."
                )
            return self.browser
        return self.desktop

    def _check_document(self, state: State) -> None:
        """Refuse a state whose page has navigated away since it was observed."""
        seen = state.extra.get("generation", 0)
        now = self._backend_for(state.root).document_generation(state.root)
        if now != seen:
            raise StaleDocument(state.root_ref)

    async def _resolve(self, root: RootInfo) -> RootInfo:
        """The root's current record, or TargetGone if it closed."""
        backend = self._backend_for(root)
        fresh = match_root(root, await backend.list_roots(pid=root.pid))
        self.roots.ref_for(fresh)
        return fresh

    async def _snapshot(self, root: RootInfo) -> Snapshot:
        return await self._backend_for(root).snapshot(
            root, max_nodes=MAX_NODES, max_depth=MAX_DEPTH
        )

    def _save(
        self,
        snapshot: Snapshot,
        outline: Outline,
        epoch: int,
        base: State | None = None,
        mode: str | None = None,
    ) -> State:
        root = snapshot.root
        mode = mode or (str(base.extra.get("mode", "fused")) if base else "fused")
        scale, image_size = image_geometry(root, mode)
        state = State(
            state_id=new_state_id(),
            resource_key=root.resource_key or f"desktop-pid:{root.pid}",
            epoch=epoch,
            root_ref=self.roots.ref_for(root),
            root=root,
            outline=outline,
            captured_at=snapshot.captured_at,
            base_state_id=base.state_id if base else None,
            image_size=image_size,
            extra={
                "mode": mode,
                "scale": scale,
                "generation": self._backend_for(root).document_generation(root),
            },
        )
        self.store.put(state)
        return state

    def _observation_details(self, state: State, view: str) -> dict[str, Any]:
        root = state.root
        return {
            "stateId": state.state_id,
            "baseStateId": state.base_state_id,
            "view": view,
            "target": root_json(state.root_ref, root),
            "capture": {
                "stateId": state.state_id,
                "width": state.image_size[0] if state.image_size else 0,
                "height": state.image_size[1] if state.image_size else 0,
                "coordinateSpace": "window-relative-screenshot-pixels",
                "timestamp": state.captured_at,
            },
            "nodeCount": len(state.outline),
        }

    def _fold_text(self, state: State, reason: str | None = None) -> str:
        fold = render_fold(state.outline)
        return fold_header(fold, state.state_id, reason) + "\n" + fold.text

    async def _tool_observe_ui(self, p: contract.ObserveUi) -> ToolResult:
        if p.root:
            wanted = self.roots.get(p.root)
            siblings = await self._backend_for(wanted).list_roots(pid=wanted.pid)
            root = promote_modal(match_root(wanted, siblings), siblings)
            self.roots.ref_for(root)
        else:
            chosen = pick_default(await self.desktop.list_roots())
            if chosen is None:
                raise TargetGone("no windows are open on this desktop. Launch an app first.")
            root = chosen
        return await self._observe(root, p.mode, "observe_ui")

    async def _observe(self, root: RootInfo, mode: str, tool: str) -> ToolResult:
        """A fresh observation of ``root``, saved as a new state and rendered in full."""
        key = root.resource_key or f"desktop-pid:{root.pid}"

        async def job(epoch: int) -> tuple[Snapshot, int]:
            return await self._snapshot(root), epoch

        snapshot, epoch = await self.scheduler.read(key, job)
        scale, _ = image_geometry(snapshot.root, mode)
        state = self._save(snapshot, observed_outline(snapshot, None, scale), epoch, mode=mode)
        head = f'{tool} {mode} {state.root_ref} {root.app_name} — "{root.title}"'
        if root.url:
            head += f" {root.url}"
        details = self._observation_details(state, "full")
        details["timingsMs"] = dict(snapshot.timings_ms)
        details["source"] = snapshot.source
        text = "\n".join([head, *self._console(root, details), self._fold_text(state)])
        images: list[tuple[bytes, str]] = []
        reason = image_reason(state.outline, mode)
        if reason is not None:
            image = await self._backend_for(root).capture(root, max_dimension=IMAGE_MAX[mode])
            if image is not None:
                images.append((image.png, "image/png"))
                details["imageReason"] = reason
                details["image"] = {
                    "width": image.width,
                    "height": image.height,
                    "source": image.source,
                    "warnings": list(image.warnings),
                }
                text += "\n" + IMAGE_NOTES[reason]
        return ToolResult(text, details, images)

    def _console(self, root: RootInfo, details: dict[str, Any]) -> list[str]:
        """Drain a page's console messages into the result (nothing for desktop roots)."""
        if root.kind != "browser_page" or self._browser is None:
            return []
        messages = list(self._browser.console(root))
        if messages:
            details["console"] = messages
        return [f"console: {m}" for m in messages]

    # ---------------------------------------------------------- cached queries

    def _state(self, state_id: str) -> State:
        try:
            return self.store.get(state_id)
        except UnknownState as exc:
            raise InvalidParams("stateId", exc.message) from None

    async def _tool_search_ui(self, p: contract.SearchUi) -> ToolResult:
        state = self._state(p.stateId)
        result = search(state.outline, text=p.text, role=p.role, capability=p.capability)
        matches = [
            {
                "ref": m.ref,
                "role": m.role,
                "label": m.label,
                "path": m.path,
                "matchReason": m.reason,
                "score": round(m.score, 3),
                "capabilities": list(m.caps),
            }
            for m in result.matches
        ]
        return ToolResult(
            render_search(result),
            {
                "stateId": state.state_id,
                "matches": matches,
                "totalMatches": result.total,
                "returned": len(matches),
                "hasMore": result.total > len(matches),
            },
        )

    async def _tool_expand_ui(self, p: contract.ExpandUi) -> ToolResult:
        state = self._state(p.stateId)
        node = state.node(p.ref)
        fold = render_fold(state.outline, max_depth=p.depth, start=node.ref)
        text = "\n".join([label_line(node), fold.text])
        return ToolResult(text, {"stateId": state.state_id, "ref": node.ref, "shown": fold.shown})

    async def _tool_inspect_ui(self, p: contract.InspectUi) -> ToolResult:
        state = self._state(p.stateId)
        node = state.node(p.ref)
        rect = node.rect
        lines = [
            label_line(node),
            "path: " + path_text(state.outline, node),
            f"role: {node.role} (platform: {node.raw_role})",
            "rect: "
            + (
                json.dumps({"x": rect.x, "y": rect.y, "w": rect.w, "h": rect.h}) if rect else "none"
            ),
            "states: " + (", ".join(sorted(node.states)) or "none"),
            "actions: " + (", ".join(node.actions) or "none"),
            "capabilities: " + (", ".join(sorted(node.caps)) or "none"),
        ]
        if node.secure:
            lines.append("value: (password field: never shown)")
        elif node.value:
            shown = node.value[:200]
            more = node.value_length > len(shown)
            lines.append("value: " + json.dumps(shown) + (" … (read_text for all)" if more else ""))
        target = {
            "ref": node.ref,
            "role": node.role,
            "rawRole": node.raw_role,
            "name": node.name,
            "description": node.description,
            "value": "" if node.secure else node.value[:200],
            "states": sorted(node.states),
            "actions": list(node.actions),
            "capabilities": sorted(node.caps),
            "rect": {"x": rect.x, "y": rect.y, "w": rect.w, "h": rect.h} if rect else None,
            "childCount": len(node.children),
        }
        return ToolResult("\n".join(lines), {"stateId": state.state_id, "target": target})

    # ------------------------------------------------------------- read text

    async def _tool_read_text(self, p: contract.ReadText) -> ToolResult:
        if p.ref.startswith("@o"):
            page = self.output.read(p.ref, p.offset)
            text = page.text
            if page.has_more:
                text += (
                    f"\n[{page.offset + page.limit} of {page.total_bytes} bytes; continue with "
                    f'read_text({{ref:"{p.ref}", offset:{page.offset + page.limit}}})]'
                )
            return ToolResult(
                text,
                {
                    "ref": p.ref,
                    "offset": page.offset,
                    "limit": page.limit,
                    "totalBytes": page.total_bytes,
                    "hasMore": page.has_more,
                    "complete": page.complete,
                },
            )
        if not p.stateId:
            raise InvalidParams("stateId", "is required to read an @e ref.", "Pass the stateId.")
        state = self._state(p.stateId)
        node = state.node(p.ref)
        if node.secure:
            raise SecureTextUnreadable(node.ref)
        if node.wire is None:
            raise UnknownRef(f"ref: {node.ref} has no live element to read.")
        self._check_document(state)
        root = await self._resolve(state.root)
        backend = self._backend_for(root)
        wire = node.wire

        async def job(_epoch: int) -> str:
            sliced = await backend.read_text(root, wire, 0, 1 << 30)
            return sliced.text

        full = await self.scheduler.read_at(state.resource_key, state.epoch, job)
        text, has_more = page_chars(full, p.offset)
        shown = text
        if has_more:
            next_offset = p.offset + len(text)
            shown += (
                f"\n[characters {p.offset}-{next_offset} of {len(full)}; continue with "
                f'read_text({{ref:"{p.ref}", stateId:"{state.state_id}", offset:{next_offset}}})]'
            )
        return ToolResult(
            shown,
            {
                "ref": p.ref,
                "offset": p.offset,
                "limit": len(text),
                "totalChars": len(full),
                "hasMore": has_more,
                "text": text,
            },
        )

    # ------------------------------------------------------------------ waits

    def _condition(
        self, raw: contract.Condition | None, field: str, state: State
    ) -> UiCondition | None:
        if raw is None:
            return None
        cond = parse_condition(raw.model_dump(exclude_none=True), field=field)
        check_scope(cond, state.outline, field=field)
        return cond

    async def _wait(
        self, state: State, root: RootInfo, cond: UiCondition, *, in_lane: bool = False
    ) -> WaitResult:
        """Wait for ``cond`` on fresh snapshots; ``in_lane`` when the caller holds the lane."""
        backend = self._backend_for(root)

        async def take() -> Snapshot:
            if in_lane:
                return await self._snapshot(root)

            async def job(_epoch: int) -> Snapshot:
                return await self._snapshot(root)

            return await self.scheduler.read(state.resource_key, job)

        return await wait_until(backend, root, cond, state.outline, take, scale=_scale(state))

    def _diff_text(self, base: State, successor: State) -> tuple[str, str, dict[str, Any]]:
        changes = compute_changes(base.outline, successor.outline)
        if changes.full_view_reason:
            return (
                self._fold_text(successor, changes.full_view_reason),
                "full",
                {"viewReason": changes.full_view_reason},
            )
        text = render_changes(changes, successor.outline, base.state_id, successor.state_id)
        return text, "diff", {"changes": changes_json(changes)}

    async def _tool_wait_for(self, p: contract.WaitFor) -> ToolResult:
        state = self._state(p.stateId)
        raw = p.model_dump(exclude_none=True, exclude={"stateId"})
        cond = parse_condition(raw, field="")
        check_scope(cond, state.outline, field="")
        root = await self._resolve(state.root)
        waited = await self._wait(state, root, cond)
        successor = self._save(
            waited.snapshot,
            waited.outline,
            self.scheduler.epoch(state.resource_key),
            base=state,
        )
        verb = "disappeared" if cond.until == "absent" else "appeared"
        head = (
            f"{describe(cond)} {verb} after {waited.elapsed_ms} ms"
            if waited.satisfied
            else f"timed out after {waited.elapsed_ms} ms waiting for {describe(cond)}"
        )
        if not waited.satisfied:
            near = closest(cond, waited.outline)
            if near:
                head += "; closest: " + "; ".join(near)
        body, view, extra = self._diff_text(state, successor)
        details = self._observation_details(successor, view)
        details.update(extra)
        details.update(
            found=waited.satisfied and cond.until == "present",
            gone=waited.satisfied and cond.until == "absent",
            timedOut=not waited.satisfied,
            elapsedMs=waited.elapsed_ms,
            checks=waited.checks,
            waitedBy="events" if waited.event_driven else "polling",
            condition=condition_json(cond),
            matches=list(waited.evaluation.matches),
        )
        return ToolResult(head + "\n" + body, details)

    # --------------------------------------------------------------- browser

    def _browser_state(self, state_id: str) -> State:
        state = self._state(state_id)
        if state.root.kind != "browser_page":
            raise InvalidParams(
                "stateId",
                f"state {state_id} is of a desktop window, not a browser page.",
                "Use act_ui for native windows, or a stateId from launch_browser.",
            )
        self._backend_for(state.root)
        return state

    async def _tool_launch_browser(self, p: contract.LaunchBrowser) -> ToolResult:
        if not self.config().browser_use:
            raise BackendUnavailable("browser use is turned off (browser_use = false).")
        url = check_url(p.url or "about:blank", "url")
        root = await self.browser.launch(url, headed=self.config().browser_headed or None)
        return await self._observe(root, "semantic", "launch_browser")

    async def _page_write(
        self, state: State, work: Callable[[RootInfo], Awaitable[RootInfo]]
    ) -> RootInfo:
        """Run ``work`` as a write on the page's lane and observe the result."""
        self.scheduler.check_current(state.resource_key, state.epoch)
        root = await self._resolve(state.root)
        after: list[RootInfo] = []

        async def job(_epoch: int) -> None:
            after.append(await work(root))

        await self.scheduler.write(state.resource_key, state.epoch, job)
        return after[0]

    async def _page_successor(
        self, state: State, root: RootInfo, tool: str, extra_text: list[str]
    ) -> ToolResult:
        navigated = self.browser.document_generation(root) != state.extra.get("generation", 0)
        snapshot = await self._snapshot(root)
        outline = observed_outline(snapshot, None if navigated else state.outline, _scale(state))
        successor = self._save(
            snapshot, outline, self.scheduler.epoch(state.resource_key), base=state
        )
        if navigated:
            body, view = self._fold_text(successor, "navigated to a new document"), "full"
            extra: dict[str, Any] = {"viewReason": "navigated"}
        else:
            body, view, extra = self._diff_text(state, successor)
        details = self._observation_details(successor, view)
        details.update(extra)
        head = f'{tool} {successor.root_ref} "{snapshot.root.title}" {snapshot.root.url}'
        text = "\n".join([head, *extra_text, *self._console(root, details), body])
        return ToolResult(text, details)

    async def _tool_navigate_browser(self, p: contract.NavigateBrowser) -> ToolResult:
        state = self._browser_state(p.stateId)
        url = check_url(p.url, "url")
        browser = self.browser

        async def go(root: RootInfo) -> RootInfo:
            return await browser.navigate(root, url)

        root = await self._page_write(state, go)
        return await self._page_successor(state, root, "navigate_browser", [])

    async def _tool_evaluate_browser(self, p: contract.EvaluateBrowser) -> ToolResult:
        state = self._browser_state(p.stateId)
        browser = self.browser
        results: list[EvalResult] = []

        async def run(root: RootInfo) -> RootInfo:
            results.append(await browser.evaluate(root, p.expression))
            return root

        root = await self._page_write(state, run)
        result = results[0]
        if result.exception is not None:
            lines = [f"exception: {result.exception}"]
        else:
            lines = ["value: " + result.value_json]
        lines += [f"console: {line}" for line in result.console]
        outcome = await self._page_successor(state, root, "evaluate_browser", lines)
        outcome.details["value"] = result.value_json if result.exception is None else None
        outcome.details["exception"] = result.exception
        return outcome

    # ------------------------------------------------------------------- act

    async def _tool_act_ui(self, p: contract.ActUi) -> ToolResult:
        state = self._state(p.stateId)
        cfg = self.config()
        headless = cfg.headless
        expect = self._condition(p.expect, "expect", state)
        require = self._condition(p.require, "require", state)
        waits = [
            self._condition(step.until, f"actions[{i}].until", state)
            for i, step in enumerate(p.actions)
        ]
        focus = False
        prepared: list[Prepared | None] = []
        for index, step in enumerate(p.actions):
            if step.action == "wait":
                prepared.append(None)
                continue
            item = prepare(step, index, state, headless=headless, focus_established=focus)
            focus = (
                focus
                or item.establishes_focus
                or (
                    not headless and item.request.kind == "click" and item.request.point is not None
                )
            )
            prepared.append(item)
        key = state.resource_key
        self.scheduler.check_current(key, state.epoch)
        self._check_document(state)
        root = await self._resolve(state.root)
        backend = self._backend_for(root)
        if require is not None:
            held = await self._wait(state, root, require)
            if not held.satisfied:
                near = closest(require, held.outline)
                raise PreconditionFailed(describe(require), require.timeout_ms, near)
        steps: list[dict[str, Any]] = []
        stopped_at: int | None = None

        before: list[RootInfo] = []

        async def run(_epoch: int) -> None:
            nonlocal stopped_at
            before.extend(await backend.list_roots())
            for index, step in enumerate(p.actions):
                item = prepared[index]
                if item is None:
                    trace = await self._wait_step(state, root, step.ms, waits[index])
                else:
                    item = replace(item, request=replace(item.request, root=root))
                    trace = await deliver(
                        backend, item, headless=headless, policy=cfg.delivery_policy
                    )
                steps.append(trace)
                if trace["outcome"] == "didnt":
                    stopped_at = index
                    return

        await self.scheduler.write(key, state.epoch, run)
        new_epoch = self.scheduler.epoch(key)
        stopped = stopped_at is not None
        outcome = aggregate([s["outcome"] for s in steps], stopped)
        verification: dict[str, Any] | None = None
        successor_snapshot: Snapshot | None = None
        successor_outline: Outline | None = None
        try:
            if expect is not None and stopped:
                verification = {"status": "skipped", **condition_json(expect)}
            elif expect is not None:
                preexisting = evaluate_condition(expect, state.outline).satisfied
                waited = await self._wait(state, root, expect)
                successor_snapshot, successor_outline = waited.snapshot, waited.outline
                status = (
                    ("preexisting" if preexisting else "verified") if waited.satisfied else "failed"
                )
                verification = {"status": status, **condition_json(expect)}
                if status == "failed":
                    verification["closest"] = closest(expect, waited.outline)
            settled = verification is not None and verification["status"] != "failed"
            after = await settle(
                before, backend.list_roots, window_s=0.0 if settled else SETTLE_WINDOW_S
            )
            deltas = root_deltas(before, after, self.roots.ref_for)
            if any(d["change"] == "closed" and d["ref"] == state.root_ref for d in deltas):
                raise TargetGone(f"{state.root_ref} closed during the transaction")
            if successor_snapshot is None:
                successor_snapshot = await self._snapshot(match_root(root, after))
                successor_outline = observed_outline(
                    successor_snapshot, state.outline, _scale(state)
                )
        except TargetGone as exc:
            deltas = await self._closing_deltas(state, before, backend)
            return self._terminal(state, steps, stopped_at, outcome, expect, exc, deltas)
        assert successor_outline is not None
        check = str(verification["status"]) if verification else None
        outcome = reconcile(outcome, check, stopped)
        trace: dict[str, Any] = {
            "outcome": outcome,
            "steps": steps,
            "actionCount": len(steps),
            "stoppedAt": stopped_at,
            "backgroundFirst": all(s.get("backgroundFirst", True) for s in steps),
            "escalatedToForeground": any(s.get("escalatedToForeground") for s in steps),
            "verification": verification,
            "rootDelta": deltas,
        }
        for s in steps:
            if s.get("escalatedToForeground"):
                trace["escalationReason"] = s["escalationReason"]
                trace["backgroundAttempt"] = s["backgroundAttempt"]
                break
        delivered = [s for s in steps if "delivery" in s]
        if delivered:
            trace["delivery"] = delivered[-1]["delivery"]
            trace["deliveryPolicy"] = delivered[-1]["deliveryPolicy"]
        successor = self._save(successor_snapshot, successor_outline, new_epoch, base=state)
        body, view, extra = self._diff_text(state, successor)
        head = [
            f"act_ui: {len(steps)} of {len(p.actions)} steps run in {root.app_name} — "
            f'"{root.title}"; outcome {outcome}'
            + (f"; check {verification['status']}" if verification else ""),
            trace_summary(trace),
            *root_delta_lines(deltas),
        ]
        if verification and verification["status"] == "failed":
            head.append(
                f"postcondition_failed: expected {describe(expect)}"  # type: ignore[arg-type]
                + (
                    "; the UI shows instead: " + "; ".join(verification["closest"])
                    if verification.get("closest")
                    else ""
                )
            )
        details = self._observation_details(successor, view)
        details.update(extra)
        details["execution"] = trace
        details["outcome"] = outcome
        if verification and verification["status"] == "failed":
            details["error"] = {"code": "postcondition_failed", "message": head[-1]}
        return ToolResult("\n".join([*head, body]), details)

    async def _wait_step(
        self, state: State, root: RootInfo, ms: int | None, cond: UiCondition | None
    ) -> dict[str, Any]:
        if cond is None:
            await asyncio.sleep((ms or 0) / 1000)
            return {"action": "wait", "ms": ms, "outcome": "worked"}
        waited = await self._wait(state, root, cond, in_lane=True)
        step: dict[str, Any] = {
            "action": "wait",
            "until": condition_json(cond),
            "outcome": "worked" if waited.satisfied else "didnt",
            "elapsedMs": waited.elapsed_ms,
        }
        if not waited.satisfied:
            step["error"] = {
                "code": "timeout",
                "message": f"timed out waiting for {describe(cond)}",
            }
        return step

    async def _closing_deltas(
        self, state: State, before: list[RootInfo], backend: Backend
    ) -> list[dict[str, Any]]:
        """Deltas when the acted-on root closed; its ``closed`` entry is always there."""
        try:
            after = await settle(before, backend.list_roots)
        except ActuiError:
            after = [r for r in before if r.native_id != state.root.native_id]
        deltas = root_deltas(before, after, self.roots.ref_for)
        if not any(d["change"] == "closed" and d["ref"] == state.root_ref for d in deltas):
            closed = root_deltas([state.root], [], self.roots.ref_for)
            deltas = closed + deltas
        return deltas

    def _terminal(
        self,
        state: State,
        steps: list[dict[str, Any]],
        stopped_at: int | None,
        outcome: str,
        expect: UiCondition | None,
        exc: TargetGone,
        deltas: list[dict[str, Any]],
    ) -> ToolResult:
        """The acted-on window closed: no successor state exists (reference §5.9)."""
        verification = None
        if expect is not None:
            status = "verified" if expect.until == "absent" else "failed"
            verification = {"status": status, **condition_json(expect)}
            outcome = reconcile(outcome, status, stopped_at is not None)
        trace = {
            "outcome": outcome,
            "steps": steps,
            "stoppedAt": stopped_at,
            "verification": verification,
            "rootDelta": deltas,
        }
        text = "\n".join(
            [
                f"act_ui: the actions were delivered and {state.root_ref} "
                f'"{state.root.title}" closed; outcome {outcome}. No successor state exists: '
                "run find_roots, then observe_ui.",
                trace_summary(trace),
                *root_delta_lines(deltas),
            ]
        )
        return ToolResult(
            text,
            {
                "status": "target_closed",
                "baseStateId": state.state_id,
                "target": root_json(state.root_ref, state.root),
                "execution": trace,
                "outcome": outcome,
                "error": {"code": "target_closed", "message": exc.message},
            },
        )
