"""What a tool call returns: the text the model reads, images, and the structured details."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolResult:
    """What a tool returns: model-visible text, images, and structured details."""

    text: str
    details: dict[str, Any]
    images: list[tuple[bytes, str]] = field(default_factory=list)
    is_error: bool = False
