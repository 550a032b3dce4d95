"""What a tool call returns: the text the model reads, images, and the typed result.

The structured details a client receives are the typed result's wire form
(``details``), so the two never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from actui.results.bounds import bound_details
from actui.results.typed import Wire


class TypedResult(Protocol):
    """What a tool found or did, as a typed value: each result class of ``actui.results``
    (an error is a :class:`~actui.results.observations.ToolError`); its wire form is the
    call's ``details``."""

    def to_wire(self) -> Wire: ...


@dataclass
class ToolResult:
    """What a tool returns: model-visible text, the typed result, and images."""

    text: str
    value: TypedResult
    """What the call found or did (an error is a :class:`ToolError`), read by attribute."""
    images: list[tuple[bytes, str]] = field(default_factory=list)
    is_error: bool = False
    tool: str = ""
    """The tool that ran, named in ``details`` once the call has run it."""

    @property
    def details(self) -> Wire:
        """The structured content: the value's wire form, with the tool's name, and no
        string longer than the output's field cap (``output.bound_details``)."""
        wire = self.value.to_wire()
        if self.tool:
            wire = {**wire, "tool": self.tool}
        return bound_details(wire)
