"""What a tool call returns: the text the model reads, images, and the typed result.

The structured details a client receives are the typed result's wire form
(``details``), so the two never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from actui.results.bounds import bound_details
from actui.results.observations import (
    ElementText,
    Expanded,
    Inspected,
    Observed,
    OutputPage,
    PageShown,
    ToolError,
    Waited,
    WindowClosed,
)
from actui.results.typed import Execution, Found, RootsFound, Wire

TypedResult = (
    Execution
    | RootsFound
    | Found
    | Observed
    | Waited
    | WindowClosed
    | PageShown
    | Expanded
    | Inspected
    | OutputPage
    | ElementText
    | ToolError
)
"""Every tool's typed result; ``ToolResult.details`` is its wire form."""


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
