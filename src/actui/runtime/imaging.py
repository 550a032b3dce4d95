"""Image policy of an observation: when a screenshot is shown, at what size, and OCR on it.

Owns the rules of docs/design-notes.md §2 (which mode shows the image, and
why), the image's coordinate space (its scale from screen pixels) and the one
OCR slot of a session. It must not take snapshots, save states or render text.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from actui.backends.base import JsonObject, RootInfo
from actui.errors import ActuiError
from actui.outline.model import Outline
from actui.runtime.ocr import recognize
from actui.runtime.store import State
from actui.runtime.visual import add_visual_evidence

IMAGE_MAX = {"fused": 900, "visual": 1600}
"""The longest side, in pixels, of an image per observation mode that shows one."""

IMAGE_NOTES = {
    "sparse_ax_targets": "The accessible tree is nearly empty, so a screenshot is attached; "
    "act on it with x/y in its pixels.",
    "unlabeled_ax_targets": "Most elements have no label, so a screenshot is attached to "
    "tell them apart; x/y are in its pixels.",
    "fallback_recovery": "Screenshot attached (visual mode); x/y are in its pixels.",
}


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
    """The image pixels per screen pixel a state's coordinates are in."""
    return state.meta.scale


@dataclass(frozen=True)
class OcrReport:
    """What OCR made of an observation's image: the lines read and the elements only the
    picture showed, or the error that left the outline as it was."""

    lines: int = 0
    picture_only: int = 0
    error: str | None = None

    def to_wire(self) -> JsonObject:
        if self.error is not None:
            return {"engine": "tesseract", "error": self.error}
        return {"engine": "tesseract", "lines": self.lines, "pictureOnly": self.picture_only}


class Ocr:
    """Text evidence read from an image, one recognition at a time (two cores)."""

    def __init__(self) -> None:
        self._slot = asyncio.Semaphore(1)

    async def enrich(self, outline: Outline, png: bytes) -> tuple[Outline, OcrReport]:
        """``outline`` with the image's text folded in; OCR failing degrades the
        observation (the report says why), never fails it."""
        async with self._slot:
            try:
                secrets = [n.rect for n in outline if n.secure and n.rect is not None]
                boxes = await recognize(png, blank=secrets)
            except ActuiError as exc:
                return outline, OcrReport(error=exc.message)
        enriched = add_visual_evidence(outline, boxes)
        return enriched, OcrReport(lines=len(boxes), picture_only=len(enriched) - len(outline))
