"""What a tool call returns: the text the model reads, images, and the structured details."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from actui.results import Execution, Found, RootsFound


@dataclass
class ToolResult:
    """What a tool returns: model-visible text, images, and structured details."""

    text: str
    details: dict[str, Any]
    images: list[tuple[bytes, str]] = field(default_factory=list)
    is_error: bool = False
    value: Execution | RootsFound | Found | None = None
    """The typed result where a tool builds one (an act's execution, the roots or the
    elements found); ``details`` holds its wire form."""
