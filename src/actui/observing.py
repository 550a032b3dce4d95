"""A fresh observation of a root, saved and rendered in full: what ``observe_ui`` and
``launch_browser`` return.

Composes the observation service (take in the lane, save), the image policy
(capture when the outline cannot tell elements apart, OCR in visual mode) and
the renderer (header, news, the first view, the image's note).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from actui.backends.base import RootInfo
from actui.imaging import IMAGE_MAX, IMAGE_NOTES, Ocr, image_geometry, image_reason
from actui.observer import Observer
from actui.rendering import Renderer, observation_details
from actui.runtime.store import ObserveMode
from actui.runtime.waiting import observed_outline
from actui.tool_result import ToolResult
from actui.views import observation_header, reach_note


@dataclass(frozen=True)
class Looker:
    """The collaborators of a full observation."""

    observer: Observer
    renderer: Renderer
    ocr: Ocr

    async def observe(self, root: RootInfo, mode: ObserveMode, tool: str) -> ToolResult:
        """A fresh observation of ``root``, saved as a new state and rendered in full."""
        observer, renderer = self.observer, self.renderer
        key = root.resource_key or f"desktop-pid:{root.pid}"
        snapshot, epoch = await observer.snapshot_at_epoch(root, key)
        scale, _ = image_geometry(snapshot.root, mode)
        outline = observed_outline(snapshot, None, scale)
        details: dict[str, Any] = {}
        reason = image_reason(outline, mode)
        image = None
        if reason is not None:
            image = await observer.backend_for(root).capture(root, max_dimension=IMAGE_MAX[mode])
        if image is not None and mode == "visual":
            outline = await self.ocr.enrich(outline, image.png, details)
        state = observer.save(snapshot, outline, epoch, mode=mode)
        head = observation_header(tool, mode, renderer.named(state.root_ref, root))
        details.update(observation_details(state, "full"))
        details["timingsMs"] = dict(snapshot.timings_ms)
        details["source"] = snapshot.source
        news = renderer.window_news(root.pid, details)
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
        above = "\n".join([head, *news, *renderer.console_lines(root, details)])
        text = above + "\n" + renderer.fold_text(state, above=above)
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
