"""What a tool call returns: the text the model reads, images, and the structured details."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from actui.observations import ElementText, Expanded, Inspected, OutputPage, ToolError
from actui.results import Execution, Found, RootsFound

TypedResult = (
    Execution | RootsFound | Found | Expanded | Inspected | OutputPage | ElementText | ToolError
)
"""The typed results tools build so far; ``details`` holds the wire form of each."""


@dataclass
class ToolResult:
    """What a tool returns: model-visible text, images, and structured details."""

    text: str
    details: dict[str, Any]
    images: list[tuple[bytes, str]] = field(default_factory=list)
    is_error: bool = False
    value: TypedResult | None = None
    """The typed result where a tool builds one (an act's execution, the roots or the
    elements found, an element inspected or expanded, a page of text, an error);
    ``details`` holds its wire form."""
