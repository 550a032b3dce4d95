"""A fresh observation of a root, saved and rendered in full: what ``observe_ui`` and
``launch_browser`` return.

Composes the observation service (take in the lane, save), the image policy
(capture when the outline cannot tell elements apart, OCR in visual mode) and
the renderer (header, news, the first view, the image's note).
"""

from __future__ import annotations

from dataclasses import dataclass

from actui.backends.base import RootInfo, Snapshot
from actui.outline.model import Outline
from actui.results.observations import AttachedImage, Observed
from actui.results.rendering import FIRST_VIEW, Renderer, observation
from actui.results.tool_result import ToolResult
from actui.results.views import observation_header, reach_note
from actui.runtime.imaging import IMAGE_MAX, IMAGE_NOTES, Ocr, image_geometry, image_reason
from actui.runtime.observer import Observer
from actui.runtime.store import ObserveMode, State
from actui.runtime.waiting import observed_outline


@dataclass(frozen=True)
class Looker:
    """The collaborators of a full observation."""

    observer: Observer
    renderer: Renderer
    ocr: Ocr

    async def look(self, root: RootInfo) -> State:
        """A fresh semantic look at ``root``, saved but neither captured nor rendered: what
        a replay resolves its selectors against, where no one reads the text (docs/replay.md,
        "Speed")."""
        snapshot, epoch, outline = await self._taken(root, "semantic")
        return self.observer.save(snapshot, outline, epoch, mode="semantic")

    async def _taken(self, root: RootInfo, mode: ObserveMode) -> tuple[Snapshot, int, Outline]:
        """A snapshot of ``root`` taken in its lane, its epoch, and its outline."""
        key = root.resource_key or f"desktop-pid:{root.pid}"
        snapshot, epoch = await self.observer.snapshot_at_epoch(root, key)
        scale, _ = image_geometry(snapshot.root, mode)
        return snapshot, epoch, observed_outline(snapshot, None, scale)

    async def observe(self, root: RootInfo, mode: ObserveMode, tool: str) -> ToolResult:
        """A fresh observation of ``root``, saved as a new state and rendered in full."""
        observer, renderer = self.observer, self.renderer
        snapshot, epoch, outline = await self._taken(root, mode)
        reason = image_reason(outline, mode)
        image = None
        if reason is not None:
            image = await observer.backend_for(root).capture(root, max_dimension=IMAGE_MAX[mode])
        ocr = None
        if image is not None and mode == "visual":
            outline, ocr = await self.ocr.enrich(outline, image.png)
        state = observer.save(snapshot, outline, epoch, mode=mode)
        head = observation_header(tool, mode, renderer.named(state.root_ref, root))
        news, changes = renderer.window_news(root.pid)
        if snapshot.partial:
            news.append(
                f"partial: {snapshot.partial}. What was read is shown; elements marked "
                "truncated were not read further. Observe again to read more."
            )
        if reason is not None and image is None and snapshot.root.capabilities.capture == "none":
            news.append(
                "no screenshot: this root has capture: none (its pixels cannot be read "
                "here), so its tree is all there is to read."
            )
        if snapshot.root.capabilities.geometry == "approximate":
            news.append(
                "coordinates approximate: where this window's content (or its open menu) "
                "is on the screen was estimated, so x/y may land a few pixels off; act "
                "by @e ref where you can."
            )
        note = reach_note(snapshot.root, mode)
        if note is not None:
            news.append(note)
        console, messages = renderer.console_lines(root)
        above = "\n".join([head, *news, *console])
        text = above + "\n" + renderer.fold_text(state, above=above)
        images: list[tuple[bytes, str]] = []
        shown = None
        if image is not None and reason is not None:
            images.append((image.png, "image/png"))
            shown = AttachedImage(
                reason, image.width, image.height, image.source, tuple(image.warnings)
            )
            text += "\n" + IMAGE_NOTES[reason]
        observed = Observed(
            observation(state, FIRST_VIEW),
            timings_ms=dict(snapshot.timings_ms),
            source=snapshot.source,
            window_changes=changes,
            partial=snapshot.partial,
            accessibility=snapshot.root.accessibility if note is not None else None,
            console=messages,
            image=shown,
            ocr=ocr,
        )
        return ToolResult(text, observed, images)
