"""The eleven tools: ``Computer``, the async Python API and the MCP server's core.

Each call validates its arguments through the contract, dispatches to a
handler, and bounds the text it returns; errors become agent-readable text,
never tracebacks. Handlers for the read-only tools live here; ``act_ui`` is
in ``transaction`` and the browser tools in ``browser_tools``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any

from actui import browser_tools, contract, transaction
from actui.backends.base import RootInfo, TextSlice
from actui.conditions import (
    UiCondition,
    check_scope,
    closest,
    condition_json,
    condition_of,
    describe,
)
from actui.config import Config
from actui.errors import (
    ActuiError,
    BackendUnavailable,
    InvalidParams,
    SecureTextUnreadable,
    TargetGone,
    UnknownState,
)
from actui.outline.fold import label_line, path_text, render_fold
from actui.outline.search import rank_text, render_search, search
from actui.output import ELEMENT_PAGE_CHARS, bound_details
from actui.quoting import inline, quote
from actui.reaching import Reached, has_unread, read_below, search_unread
from actui.runtime.roots import (
    is_browser_app,
    match_root,
    pick_default,
    promote_modal,
    window_score,
)
from actui.runtime.store import State
from actui.session import RESULT_BUDGET, TOP_N, Session, ToolResult, scale_of
from actui.views import TITLE_CAP, node_json, root_json, root_line

log = logging.getLogger(__name__)


def _asked_budget(arguments: Mapping[str, Any] | None) -> int | None:
    """A valid ``maxTokens`` of the call, so even its contract error keeps to it."""
    asked = (arguments or {}).get("maxTokens") if isinstance(arguments, Mapping) else None
    if not isinstance(asked, int) or isinstance(asked, bool):
        return None
    return asked if contract.MIN_TOKENS <= asked <= contract.MAX_TOKENS else None


class Computer(Session):
    """One agent session: the eleven tools over shared session services."""

    async def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Run one tool call; contract errors and agent-visible failures become text."""
        budget = RESULT_BUDGET.set(_asked_budget(arguments))
        try:
            return await self._call(tool, arguments)
        finally:
            RESULT_BUDGET.reset(budget)

    async def _call(self, tool: str, arguments: Mapping[str, Any] | None) -> ToolResult:
        try:
            self.reload_config()
            params = contract.validate(tool, arguments)
            if isinstance(params, contract.ToolParams):  # "300" is 300 once validated
                RESULT_BUDGET.set(params.maxTokens)
            handler = getattr(self, f"_tool_{tool}")
            result: ToolResult = await handler(params)
        except ActuiError as exc:
            ended = await self.exit_of(exc.pid) if isinstance(exc, TargetGone) else None
            if ended is not None:
                return self.exited_result(tool, exc.message, ended)
            # "gone" or "unavailable" may have a cause a backend knows: say it
            known = self.notices() if isinstance(exc, (TargetGone, BackendUnavailable)) else []
            why = [notice for notice in known if notice not in exc.message]
            # an error may quote what an app controls: it stays on one line
            return self.error_result(tool, exc.code, inline(" ".join([exc.message, *why])))
        except Exception as exc:  # a bug must not reach the agent as a traceback
            log.exception("%s failed unexpectedly", tool)
            return self.error_result(
                tool,
                "internal_error",
                f"internal error ({type(exc).__name__}: {inline(str(exc))}). "
                "The server is still running; retry or observe again.",
            )
        result.details["tool"] = tool
        result.details = bound_details(result.details)
        result.text = self.output.bound(result.text, tool=tool, max_tokens=RESULT_BUDGET.get())
        return result

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
        try:
            state = self.store.get(state_id) if state_id else self.store.newest()
        except UnknownState as exc:
            return self.error_result("act_ui", exc.code, f"stateId: {exc.message}")
        if state is None:
            return self.error_result(
                "act_ui", "invalid_params", "stateId: no state yet. Call observe_ui first."
            )
        step: dict[str, Any] = {"action": action, **(params or {})}
        if target is not None:
            step["ref"] = target
        return await self.call("act_ui", {"stateId": state.state_id, "actions": [step]})

    # -------------------------------------------------------------- discovery

    async def _all_roots(self, p: contract.FindRoots, cfg: Config) -> tuple[list[RootInfo], str]:
        """The roots, and why the browser's pages are missing from them, if they are.

        A browser that fails to list (hung, stopped) is its own failure while a
        desktop is listed: its pages are left out with a notice.
        """
        await self.attach_configured_browser()
        pages_wanted = (
            cfg.browser_use
            and self._browser is not None
            and p.pid in (None, 0)
            and not p.bundleId
            and (not p.app or p.app.strip().lower() == "browser")
        )
        roots: list[RootInfo] = []
        if self.has_desktop() or not pages_wanted:
            roots += await self.desktop.list_roots(pid=p.pid)
        if pages_wanted and self._browser is not None:
            try:
                roots += await self._browser.list_roots()
            except ActuiError as exc:
                if not self.has_desktop():
                    raise
                return roots, f"the browser's pages are not listed: {exc.message}"
        return roots, ""

    async def _tool_find_roots(self, p: contract.FindRoots) -> ToolResult:
        cfg = self.config()
        listed, unlisted = await self._all_roots(p, cfg)
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
            allowed = cfg.browser_use or not is_browser_app(root)
            lines.append(root_line(ref, root) + ("" if allowed else " [browser_use_disabled]"))
            windows.append(
                {**root_json(ref, root), "score": round(score, 3), "browserUseAllowed": allowed}
            )
        self.announced.shown(listed, {root.pid for _, root in top})
        if not top:
            lines = [
                "no roots match these filters."
                if (p.text or p.app or p.pid or p.kind)
                else "no windows are open on this desktop."
            ]
        notices = [*self.notices(), *([unlisted] if unlisted else [])]
        return ToolResult(
            "\n".join([*lines, *(f"note: {inline(n)}" for n in notices)]),
            {
                "notices": notices,
                "windows": windows,
                "totalMatches": len(scored),
                "returned": len(top),
                "hasMore": len(scored) > len(top),
                "config": {"browser_use": cfg.browser_use, "headless": cfg.headless},
            },
        )

    async def _tool_observe_ui(self, p: contract.ObserveUi) -> ToolResult:
        if p.root:
            wanted = self.roots.get(p.root)
            siblings = await self.backend_for(wanted).list_roots(pid=wanted.pid)
            self.announced.listed(wanted.pid, siblings, self.roots.ref_for)
            root = promote_modal(match_root(wanted, siblings), siblings)
            self.roots.ref_for(root)
        else:
            chosen = pick_default(await self.desktop.list_roots())
            if chosen is None:
                raise TargetGone("no windows are open on this desktop. Launch an app first.")
            root = chosen
        return await self.observe(root, p.mode, "observe_ui")

    # ---------------------------------------------------------- cached queries

    async def _tool_search_ui(self, p: contract.SearchUi) -> ToolResult:
        state = self.state(p.stateId)
        result = search(state.outline, text=p.text, role=p.role, capability=p.capability)
        text = (p.text or "").strip()
        reached: list[Reached] = []
        if text and has_unread(state) and not any(m.reason == "exact" for m in result.matches):
            state, reached = await self._search_unread(state, text)
            result = search(state.outline, text=p.text, role=p.role, capability=p.capability)
        matches = [
            {
                "ref": m.ref,
                "role": m.role,
                "label": m.label,
                "labelInferred": m.inferred,
                "path": m.path,
                "matchReason": m.reason,
                "score": round(m.score, 3),
                "capabilities": list(m.caps),
                "actions": list(m.actions),
            }
            for m in result.matches
        ]
        details: dict[str, Any] = {
            "stateId": state.state_id,
            "matches": matches,
            "totalMatches": result.total,
            "returned": len(matches),
            "hasMore": result.total > len(matches),
        }
        lines = [render_search(result)]
        if reached:
            lines.append(f"read on demand into stateId {state.state_id}:")
            lines += [c.note(state.state_id) for c in reached]
            details["baseStateId"] = state.base_state_id
            details["unread"] = [c.json() for c in reached]
        return ToolResult("\n".join(lines), details)

    async def _search_unread(self, state: State, text: str) -> tuple[State, list[Reached]]:
        """What the state left unread (hidden subtrees, rows of windowed containers), read
        for ``text``; the successor state is saved."""
        backend = self.backend_for(state.root)

        async def job(_epoch: int) -> tuple[State, list[Reached]]:
            return await search_unread(backend, state, text, state.epoch, scale_of(state))

        successor, reached = await self.scheduler.read_at(state.resource_key, state.epoch, job)
        self.store.put(successor)
        return successor, reached

    async def _tool_expand_ui(self, p: contract.ExpandUi) -> ToolResult:
        state = self.state(p.stateId)
        node = state.node(p.ref)
        lines = [label_line(node)]
        base = state.state_id
        if node.unread and node.wire:
            state = await self._read_below(state, node.ref)
            node = state.node(node.ref)
            lines.append(f"read on demand into stateId {state.state_id} (it was not shown):")
        fold = render_fold(state.outline, max_depth=p.depth, start=node.ref)
        lines.append(fold.text)
        details: dict[str, Any] = {
            "stateId": state.state_id,
            "target": node_json(node),
            "shown": fold.shown,
        }
        if state.state_id != base:
            details["baseStateId"] = base
        return ToolResult("\n".join(lines), details)

    async def _read_below(self, state: State, ref: str) -> State:
        """What ``ref`` held unread, read into a saved successor state."""
        backend = self.backend_for(state.root)

        async def job(_epoch: int) -> State:
            return await read_below(backend, state, ref, state.epoch, scale_of(state))

        successor = await self.scheduler.read_at(state.resource_key, state.epoch, job)
        self.store.put(successor)
        return successor

    async def _tool_inspect_ui(self, p: contract.InspectUi) -> ToolResult:
        state = self.state(p.stateId)
        node = state.node(p.ref)
        rect = node.rect
        lines = [
            label_line(node),
            "path: " + path_text(state.outline, node),
            f"role: {node.role} (platform: {inline(node.raw_role)})",
            "rect: "
            + (
                json.dumps({"x": rect.x, "y": rect.y, "w": rect.w, "h": rect.h}) if rect else "none"
            ),
            "states: " + (", ".join(sorted(node.states)) or "none"),
            "actions: " + (", ".join(quote(action) for action in node.actions) or "none"),
            "capabilities: " + (", ".join(sorted(node.caps)) or "none"),
        ]
        if node.secure:
            lines.append("value: (password field: never shown)")
        elif node.value:
            shown = node.value[:200]
            more = node.value_length > len(shown)
            lines.append("value: " + json.dumps(shown) + (" … (read_text for all)" if more else ""))
        return ToolResult("\n".join(lines), {"stateId": state.state_id, "target": node_json(node)})

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
        state = self.state(p.stateId)
        node = state.node(p.ref)
        if node.secure:
            raise SecureTextUnreadable(node.ref)
        if node.wire is None:
            raise InvalidParams(
                "ref",
                f"{node.ref} is picture-only (seen in the image, not an accessible element), "
                "so it has no live text.",
                "Its text is its label; use inspect_ui, or act on it by coordinates.",
            )
        self.check_document(state)
        root = await self.resolve(state.root)
        backend = self.backend_for(root)
        wire = node.wire

        async def job(_epoch: int) -> TextSlice:
            return await backend.read_text(root, wire, p.offset, ELEMENT_PAGE_CHARS)

        sliced = await self.scheduler.read_at(state.resource_key, state.epoch, job)
        text, total = sliced.text, sliced.total_chars
        next_offset = p.offset + len(text)
        has_more = next_offset < total
        shown = text
        if has_more:
            shown += (
                f"\n[characters {p.offset}-{next_offset} of {total}; continue with "
                f'read_text({{ref:"{p.ref}", stateId:"{state.state_id}", offset:{next_offset}}})]'
            )
        return ToolResult(
            shown,
            {
                "ref": p.ref,
                "offset": p.offset,
                "limit": len(text),
                "totalChars": total,
                "hasMore": has_more,
                "text": text,
            },
        )

    # ------------------------------------------------------------------ waits

    async def _tool_wait_for(self, p: contract.WaitFor) -> ToolResult:
        state = self.state(p.stateId)
        cond = condition_of(p)
        check_scope(cond, state.outline, field="")
        started = time.monotonic()
        try:
            root = await self.resolve(state.root)
            waited = await self.wait(state, root, cond)
        except TargetGone as exc:
            if cond.until != "absent":
                raise
            # Nothing is shown by a window that closed: the absence came true.
            return self._gone_with_window(state.root_ref, state.root, cond, started, exc)
        successor = self.save(
            waited.snapshot,
            waited.outline,
            waited.epoch,
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
        details = self.observation_details(successor, "diff")
        details.update(
            found=waited.satisfied,
            gone=waited.satisfied and cond.until == "absent",
            timedOut=not waited.satisfied,
            elapsedMs=waited.elapsed_ms,
            checks=waited.checks,
            waitedBy="events" if waited.event_driven else "polling",
            condition=condition_json(cond),
            matches=list(waited.evaluation.matches),
        )
        above = "\n".join([head, *self.window_news(root.pid, details)])
        body, view, extra = self.diff_text(state, successor, above)
        details.update(extra, view=view)
        if waited.reached:
            body += f"\nread on demand into stateId {successor.state_id}:\n"
            body += "\n".join(r.note(successor.state_id) for r in waited.reached)
            details["unread"] = [r.json() for r in waited.reached]
        return ToolResult(f"{above}\n{body}", details)

    def _gone_with_window(
        self, ref: str, root: RootInfo, cond: UiCondition, started: float, exc: TargetGone
    ) -> ToolResult:
        elapsed = round((time.monotonic() - started) * 1000)
        details: dict[str, Any] = {
            "found": True,
            "gone": True,
            "timedOut": False,
            "windowClosed": True,
            "elapsedMs": elapsed,
            "condition": condition_json(cond),
            "reason": inline(exc.message),
        }
        text = (
            f"{describe(cond)} disappeared after {elapsed} ms: its window {ref} "
            f"{quote(root.title, TITLE_CAP)} closed. No successor state exists: "
            "run find_roots, then observe_ui."
        )
        return ToolResult("\n".join([text, *self.window_news(root.pid, details)]), details)

    async def _tool_act_ui(self, p: contract.ActUi) -> ToolResult:
        return await transaction.act_ui(self, p)

    async def _tool_launch_browser(self, p: contract.LaunchBrowser) -> ToolResult:
        return await browser_tools.launch_browser(self, p)

    async def _tool_navigate_browser(self, p: contract.NavigateBrowser) -> ToolResult:
        return await browser_tools.navigate_browser(self, p)

    async def _tool_evaluate_browser(self, p: contract.EvaluateBrowser) -> ToolResult:
        return await browser_tools.evaluate_browser(self, p)
