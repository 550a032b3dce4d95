"""Typed results of the questions asked about a saved state, and of a failed call.

``expand_ui``, ``inspect_ui`` and ``read_text`` answer from a stored state (or an
``@o`` output page); a failed call carries its error code. Each is built where
its facts are known (``actui.queries``, ``actui.tools``), read by attribute in
the Python API, and turned into the wire's dict only by ``to_wire()``, key for
key in the order agents have always received (``actui.result_schemas``
describes the shapes to MCP clients).
"""

from __future__ import annotations

from dataclasses import dataclass

from actui.backends.base import ProcessExit
from actui.outline.model import Node
from actui.results import Wire
from actui.views import exit_json, node_json


@dataclass(frozen=True)
class Expanded:
    """``expand_ui``: the element opened, how many rows were shown, and the state
    they came from (a successor when the element was read on demand)."""

    state_id: str
    target: Node
    shown: int
    base_state_id: str | None = None
    """The state asked about, when the element was read into a successor ``state_id``."""

    def to_wire(self) -> Wire:
        out: Wire = {
            "stateId": self.state_id,
            "target": node_json(self.target),
            "shown": self.shown,
        }
        if self.base_state_id is not None:
            out["baseStateId"] = self.base_state_id
        return out


@dataclass(frozen=True)
class Inspected:
    """``inspect_ui``: one element of a saved state, in full."""

    state_id: str
    target: Node

    def to_wire(self) -> Wire:
        return {"stateId": self.state_id, "target": node_json(self.target)}


@dataclass(frozen=True)
class OutputPage:
    """``read_text`` of an ``@o`` ref: where this page of a long result's text lies."""

    ref: str
    offset: int
    limit: int
    total_bytes: int
    has_more: bool
    complete: bool

    def to_wire(self) -> Wire:
        return {
            "ref": self.ref,
            "offset": self.offset,
            "limit": self.limit,
            "totalBytes": self.total_bytes,
            "hasMore": self.has_more,
            "complete": self.complete,
        }


@dataclass(frozen=True)
class ElementText:
    """``read_text`` of an ``@e`` ref: a page of the element's live text."""

    ref: str
    offset: int
    text: str
    total_chars: int

    @property
    def limit(self) -> int:
        return len(self.text)

    @property
    def has_more(self) -> bool:
        return self.offset + len(self.text) < self.total_chars

    def to_wire(self) -> Wire:
        return {
            "ref": self.ref,
            "offset": self.offset,
            "limit": self.limit,
            "totalChars": self.total_chars,
            "hasMore": self.has_more,
            "text": self.text,
        }


@dataclass(frozen=True)
class ToolError:
    """A call that failed: the tool, the error's code and the sentence the agent read."""

    tool: str
    code: str
    message: str
    exit: ProcessExit | None = None
    """How the application ended, when the root is gone because it did."""

    def to_wire(self) -> Wire:
        out: Wire = {"tool": self.tool, "error": {"code": self.code, "message": self.message}}
        if self.exit is not None:
            out["exit"] = exit_json(self.exit)
        return out
