"""What a tool call returns: the text the model reads, images, and the structured details."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from actui.results import Execution, RootsFound


@dataclass
class ToolResult:
    """What a tool returns: model-visible text, images, and structured details."""

    text: str
    details: dict[str, Any]
    images: list[tuple[bytes, str]] = field(default_factory=list)
    is_error: bool = False
    execution: Execution | None = None
    """An act's execution, typed (``details["execution"]`` is its wire form)."""
    value: Execution | RootsFound | None = None
    """The typed result where a tool builds one (an act's execution, the roots found);
    ``details`` holds its wire form."""
