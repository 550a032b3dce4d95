"""The session: backends, states, scheduler, refs and output, and the shared steps.

Every tool works through these services: resolving a state's root, taking
and saving observations, waiting for conditions, rendering diffs. The tool
modules (``tools``, ``transaction``, ``browser_tools``) compose them; this
module holds no tool logic and no platform code.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from actui import contract
from actui.backends.base import Backend, ProcessExit, RootInfo, Snapshot
from actui.conditions import UiCondition, check_scope, condition_of
from actui.config import Config, load_config
from actui.errors import (
    ActuiError,
    BackendUnavailable,
    InvalidParams,
    StaleDocument,
    TargetGone,
    UnknownState,
)
from actui.ocr import recognize
from actui.outline.diff import changes_json, compute_changes, diff_or_view
from actui.outline.model import Outline
from actui.outline.view import MIN_VIEW_TOKENS, PAGE_TOKENS, RECEIPT, WINDOW_TOKENS, render_view
from actui.outline.windows import windows_json
from actui.output import OutputStore
from actui.reaching import ConditionReach
from actui.runtime.deltas import Announced
from actui.runtime.roots import RootRegistry, is_browser_app, match_root
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import State, StateStore, new_state_id
from actui.runtime.waiting import OpenedFn, WaitResult, observed_outline, wait_until
from actui.tokens import estimate_tokens
from actui.views import (
    console_line,
    exit_json,
    exit_text,
    observation_header,
    reach_note,
    root_delta_lines,
    root_json,
    root_label,
)
from actui.visual import add_visual_evidence

if TYPE_CHECKING:
    from actui.backends.cdp import CdpBackend

log = logging.getLogger(__name__)

MAX_NODES = 4096
MAX_DEPTH = 64
TOP_N = 12

RESULT_BUDGET: ContextVar[int | None] = ContextVar("actui_result_budget", default=None)
"""The running call's ``maxTokens`` (a context variable: concurrent calls each keep theirs)."""


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
    """Why an observation shows its image, or None (docs/design-notes.md §2)."""
    if mode == "visual":
        return "fallback_recovery"
    if mode != "fused":
        return None
    if len(outline) < 3:
        return "sparse_ax_targets"
    labeled = sum(1 for node in outline if node.label)
    return "unlabeled_ax_targets" if labeled * 3 < len(outline) else None


def scale_of(state: State) -> float:
    value = state.extra.get("scale", 1.0)
    return float(value) if isinstance(value, (int, float)) else 1.0


def _default_desktop(env: Mapping[str, str]) -> Backend:
    from actui.backends.linux import LinuxBackend

    return LinuxBackend(env=env)


class Session:
    """One agent session's services, shared by every tool."""

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
        self.announced = Announced()
        self.output = OutputStore()
        self._config = load_config(self.env)
        self._ocr_slot = asyncio.Semaphore(1)  # two cores: one OCR at a time
        self._browser_problem = ""
        self._labels: dict[str, str] = {}
        """The label each root ref was last named with (``named``)."""
        self._receipt_shown = False
        """Whether a view has said how to open a fold (``RECEIPT``): once a session."""

    def notices(self) -> list[str]:
        """What the backends in use say about their health (see ``Backend.notices``)."""
        backends = [b for b in (self._desktop, self._browser) if b is not None]
        notices = [notice for backend in backends for notice in backend.notices()]
        return [*notices, self._browser_problem] if self._browser_problem else notices

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

            executable = self.config().chrome_executable
            env = {**self.env, "ACTUI_CHROME_EXECUTABLE": executable} if executable else self.env
            self._browser = CdpBackend(env=env)
        return self._browser

    async def attach_configured_browser(self) -> None:
        """Attach to the browser ``cdp_port`` names, unless actui already drives a browser.

        A browser that is not there is a notice for the listing, not a failure
        of it: the desktop's windows are still listed.
        """
        cfg = self.config()
        launched = self._browser is not None and self._browser.browser_process is not None
        if not cfg.cdp_port or not cfg.browser_use or launched:
            return
        try:
            await self.browser.attach(cfg.cdp_host, int(cfg.cdp_port))
            self._browser_problem = ""
        except ActuiError as exc:
            self._browser_problem = exc.message

    def config(self) -> Config:
        """The configuration as read at the start of the current tool call."""
        return self._config

    def reload_config(self) -> None:
        """Re-read files and environment: once per tool call, not once per use."""
        self._config = load_config(self.env)

    async def close(self) -> None:
        await self.scheduler.close()
        if self._desktop is not None:
            await self._desktop.close()
        if self._browser is not None:
            await self._browser.close()
        self.output.close()

    def error_result(self, tool: str, code: str, message: str) -> ToolResult:
        text = self.output.bound_error(f"{tool} failed: {message}", RESULT_BUDGET.get())
        return ToolResult(text, {"tool": tool, "error": {"code": code, "message": text}}, [], True)

    async def exit_of(self, pid: int) -> ProcessExit | None:
        """How ``pid``'s process ended, once one of its roots vanished; None while it runs."""
        if pid <= 0 or self._desktop is None:
            return None
        try:
            return await self._desktop.process_exit(pid)
        except ActuiError:
            return None

    def exited_result(self, tool: str, gone: str, ended: ProcessExit) -> ToolResult:
        """A root is gone because its application ended: say how, not just "gone".

        Killed by a signal is a crash (``app_exited``); an exit with a code may be
        the app's normal end once its window closed, so it stays ``target_gone``.
        """
        why = f"the application (pid {ended.pid}) {exit_text(ended)}. "
        code = "app_exited" if ended.signal else TargetGone.code
        result = self.error_result(tool, code, why + gone[:1].upper() + gone[1:])
        result.details["exit"] = exit_json(ended)
        return result

    def has_desktop(self) -> bool:
        return self._desktop is not None or bool(self.env.get("DBUS_SESSION_BUS_ADDRESS"))

    def backend_for(self, root: RootInfo) -> Backend:
        if is_browser_app(root) and not self.config().browser_use:
            raise BackendUnavailable(
                "browser use is turned off (browser_use = false), so browser windows and "
                "pages are not available. Turn it on in the configuration to use them."
            )
        return self.browser if root.kind == "browser_page" else self.desktop

    def check_document(self, state: State) -> None:
        """Refuse a state whose page has navigated away since it was observed."""
        seen = state.extra.get("generation", 0)
        now = self.backend_for(state.root).document_generation(state.root)
        if now != seen:
            raise StaleDocument(state.root_ref)

    async def resolve(self, root: RootInfo) -> RootInfo:
        """The root's current record, or TargetGone if it closed."""
        return self.resolved(root, await self.backend_for(root).list_roots(pid=root.pid))

    def resolved(self, root: RootInfo, listed: list[RootInfo]) -> RootInfo:
        """The root's record in a fresh listing (noting its process's window changes)."""
        self.announced.listed(root.pid, listed, self.roots.ref_for)
        fresh = match_root(root, listed)
        self.roots.ref_for(fresh)
        return fresh

    def window_news(self, pid: int, details: dict[str, Any]) -> list[str]:
        """Lines for ``pid``'s window changes no result has reported yet (and the details)."""
        news = self.announced.take(pid)
        if news:
            details["windowChanges"] = news
        return [f"meanwhile, {line}" for line in root_delta_lines(news)]

    async def snapshot(self, root: RootInfo) -> Snapshot:
        return await self.backend_for(root).snapshot(root, max_nodes=MAX_NODES, max_depth=MAX_DEPTH)

    def save(
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
                "generation": self.backend_for(root).document_generation(root),
            },
        )
        self.store.put(state)
        return state

    def observation_details(self, state: State, view: str) -> dict[str, Any]:
        """What a successor's structured content says beside its text: ids, the root,
        and the image's coordinate space when the state has an image (never the view
        text itself: the text carries it, and a model may be shown both)."""
        root = state.root
        details: dict[str, Any] = {
            "stateId": state.state_id,
            "baseStateId": state.base_state_id,
            "view": view,
            "target": root_json(state.root_ref, root),
            "nodeCount": len(state.outline),
            **windows_json(state.outline),
            "status": "ok",
        }
        if state.image_size:
            details["capture"] = {
                "stateId": state.state_id,
                "width": state.image_size[0],
                "height": state.image_size[1],
                "scaleFactor": scale_of(state),
                "coordinateSpace": "window-relative-screenshot-pixels",
                "timestamp": state.captured_at,
            }
        return details

    def view_budget(self, state: State, above: str) -> int:
        """Tokens left for a view of ``state`` below the lines ``above`` it in the result:
        of ``maxTokens`` when the call gives one, else of the default for its kind of root."""
        asked = RESULT_BUDGET.get()
        budget = asked or (PAGE_TOKENS if state.root.kind == "browser_page" else WINDOW_TOKENS)
        return max(MIN_VIEW_TOKENS, budget - estimate_tokens(above) - 1)

    def fold_text(self, state: State, reason: str | None = None, above: str = "") -> str:
        """The first view of ``state`` (``outline.view``), within what the result has left."""
        return self._receipt_once(
            render_view(state.outline, state.state_id, self.view_budget(state, above), reason).text
        )

    def _receipt_once(self, view: str) -> str:
        """``view`` without its last line on how to open a fold when an earlier view of
        this session said it: the agent has read it, and each fold still counts what it
        holds (``▸ (5 more: …)``)."""
        if not view.endswith("\n" + RECEIPT):
            return view
        if self._receipt_shown:
            return view.removesuffix("\n" + RECEIPT)
        self._receipt_shown = True
        return view

    async def observe(self, root: RootInfo, mode: str, tool: str) -> ToolResult:
        """A fresh observation of ``root``, saved as a new state and rendered in full."""
        key = root.resource_key or f"desktop-pid:{root.pid}"
        snapshot, epoch = await self.snapshot_at_epoch(root, key)
        scale, _ = image_geometry(snapshot.root, mode)
        outline = observed_outline(snapshot, None, scale)
        details: dict[str, Any] = {}
        reason = image_reason(outline, mode)
        image = None
        if reason is not None:
            image = await self.backend_for(root).capture(root, max_dimension=IMAGE_MAX[mode])
        if image is not None and mode == "visual":
            outline = await self._with_ocr(outline, image.png, details)
        state = self.save(snapshot, outline, epoch, mode=mode)
        head = observation_header(tool, mode, self.named(state.root_ref, root))
        details.update(self.observation_details(state, "full"))
        details["timingsMs"] = dict(snapshot.timings_ms)
        details["source"] = snapshot.source
        news = self.window_news(root.pid, details)
        if snapshot.partial:
            news.append(
                f"partial: {snapshot.partial}. What was read is shown; elements marked "
                "truncated were not read further. Observe again to read more."
            )
            details["partial"] = snapshot.partial
        note = reach_note(snapshot.root, mode)
        if note is not None:
            news.append(note)
            details["accessibility"] = snapshot.root.accessibility
        above = "\n".join([head, *news, *self.console_lines(root, details)])
        text = above + "\n" + self.fold_text(state, above=above)
        images: list[tuple[bytes, str]] = []
        if image is not None and reason is not None:
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

    async def _with_ocr(self, outline: Outline, png: bytes, details: dict[str, Any]) -> Outline:
        """Text evidence from the image; OCR failing degrades the observation, never fails it."""
        async with self._ocr_slot:
            try:
                secrets = [n.rect for n in outline if n.secure and n.rect is not None]
                boxes = await recognize(png, blank=secrets)
            except ActuiError as exc:
                details["ocr"] = {"engine": "tesseract", "error": exc.message}
                return outline
        enriched = add_visual_evidence(outline, boxes)
        details["ocr"] = {
            "engine": "tesseract",
            "lines": len(boxes),
            "pictureOnly": len(enriched) - len(outline),
        }
        return enriched

    def named(self, ref: str, root: RootInfo) -> str:
        """``@r1 app — "title"`` where this session has not shown that label yet, else ``@r1``.

        The agent read the label in the last result that named the root; saying
        it again on every call costs tokens and tells nothing. A changed title
        or URL is said again.
        """
        label = root_label(root)
        if self._labels.get(ref) == label:
            return ref
        self._labels[ref] = label
        return f"{ref} {label}"

    def console_lines(self, root: RootInfo, details: dict[str, Any]) -> list[str]:
        """Drain a page's console messages into the result (nothing for desktop roots)."""
        if root.kind != "browser_page" or self._browser is None:
            return []
        messages = list(self._browser.console(root))
        if messages:
            details["console"] = messages
        return [console_line(m) for m in messages]

    def state(self, state_id: str) -> State:
        try:
            return self.store.get(state_id)
        except UnknownState as exc:
            raise InvalidParams("stateId", exc.message) from None

    def condition(
        self, raw: contract.Condition | None, field: str, state: State
    ) -> UiCondition | None:
        if raw is None:
            return None
        cond = condition_of(raw)
        check_scope(cond, state.outline, field=field)
        return cond

    async def wait(
        self,
        state: State,
        root: RootInfo,
        cond: UiCondition,
        *,
        in_lane: bool = False,
        opened: OpenedFn | None = None,
    ) -> WaitResult:
        """Wait for ``cond`` on fresh snapshots; ``in_lane`` when the caller holds the lane.

        ``opened`` reads the windows a transaction opened, where an unanchored ``cond``
        may be met too."""
        backend = self.backend_for(root)

        async def take() -> tuple[Snapshot, int]:
            if in_lane:
                return await self.snapshot(root), self.scheduler.epoch(state.resource_key)
            return await self.snapshot_at_epoch(root, state.resource_key)

        reach = ConditionReach(backend, cond, state.outline, scale_of(state))
        return await wait_until(
            backend, root, cond, state.outline, take, scale=scale_of(state), opened=opened,
            reach=reach,
        )  # fmt: skip

    async def snapshot_at_epoch(self, root: RootInfo, key: str) -> tuple[Snapshot, int]:
        """A snapshot taken in the resource's lane, with the epoch it belongs to.

        A successor saved with this epoch can never claim to be current while
        showing content from before another write.
        """

        async def job(epoch: int) -> tuple[Snapshot, int]:
            return await self.snapshot(root), epoch

        return await self.scheduler.read(key, job)

    def diff_text(
        self, base: State, successor: State, above: str = ""
    ) -> tuple[str, str, dict[str, Any]]:
        """The diff from ``base``, or the view when that is shorter or the diff asks for it,
        within what the result has left below the lines ``above``."""
        changes = compute_changes(base.outline, successor.outline)
        budget = self.view_budget(successor, above)
        text, reason = diff_or_view(
            changes, successor.outline, base.state_id, successor.state_id, budget
        )
        if reason is not None:
            return self._receipt_once(text), "full", {"viewReason": reason}
        return text, "diff", {"changes": changes_json(changes)}
