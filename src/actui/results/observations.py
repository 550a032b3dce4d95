"""Typed results of observing a root, of the questions asked about a saved state,
and of a failed call.

``observe_ui`` and ``launch_browser`` return a fresh observation, ``wait_for``
and the page writes (``navigate_browser``, ``evaluate_browser``) a successor;
``expand_ui``, ``inspect_ui`` and ``read_text`` answer from a stored state (or
an ``@o`` output page); a failed call carries its error code. Each is built
where its facts are known (``actui.tools.observing``, ``actui.tools.waits``,
``actui.tools.browser``, ``actui.tools.queries``, ``actui.tools.dispatch``), read by attribute
in the Python API, and turned into the wire's dict only by ``to_wire()``, key
for key in the order agents have always received (``actui.results.schemas``
describes the shapes to MCP clients).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from actui.backends.base import Accessibility, ProcessExit, TextFormat
from actui.outline.conditions import UiCondition, condition_json
from actui.outline.documents import PartShown, partly_wire
from actui.outline.model import Node
from actui.results.typed import StateSummary, Wire, exit_json, news_wire
from actui.results.views import node_json
from actui.runtime.deltas import RootDelta
from actui.runtime.imaging import OcrReport
from actui.runtime.reaching import ReadNote


@dataclass(frozen=True)
class AttachedImage:
    """The screenshot attached to an observation, and why it was attached."""

    reason: str
    width: int
    height: int
    source: str
    warnings: tuple[str, ...] = ()

    def to_wire(self) -> Wire:
        return {
            "imageReason": self.reason,
            "image": {
                "width": self.width,
                "height": self.height,
                "source": self.source,
                "warnings": list(self.warnings),
            },
        }


@dataclass(frozen=True)
class Observed:
    """``observe_ui`` and ``launch_browser``: a fresh state of a root, shown in full.

    ``accessibility`` is said when the root's tree cannot be read in full (the
    text says what to do instead); ``partial`` when the read stopped early.
    """

    observation: StateSummary
    timings_ms: Mapping[str, float]
    source: str
    window_changes: tuple[RootDelta, ...] = ()
    partial: str = ""
    accessibility: Accessibility | None = None
    console: tuple[str, ...] = ()
    image: AttachedImage | None = None
    ocr: OcrReport | None = None

    def to_wire(self) -> Wire:
        out: Wire = {"ocr": self.ocr.to_wire()} if self.ocr is not None else {}
        out.update(self.observation.to_wire())
        out.update(timingsMs=dict(self.timings_ms), source=self.source)
        out.update(news_wire(self.window_changes))
        if self.partial:
            out["partial"] = self.partial
        if self.accessibility is not None:
            out["accessibility"] = self.accessibility
        if self.console:
            out["console"] = list(self.console)
        if self.image is not None:
            out.update(self.image.to_wire())
        return out


@dataclass(frozen=True)
class WaitReport:
    """``wait_for``: whether the condition came true in time, how it was watched, and
    the successor it was last checked on (a diff from the state waited on)."""

    observation: StateSummary
    condition: UiCondition
    found: bool
    elapsed_ms: int
    checks: int
    waited_by: Literal["events", "polling"]
    matches: tuple[str, ...] = ()
    window_changes: tuple[RootDelta, ...] = ()
    unread: tuple[ReadNote, ...] = ()
    """What the last check read on demand into the successor."""
    partly: tuple[PartShown, ...] = ()
    """Documents the last check found no match in that expose only what is on screen."""

    @property
    def gone(self) -> bool:
        return self.found and self.condition.until == "absent"

    @property
    def timed_out(self) -> bool:
        return not self.found

    def to_wire(self) -> Wire:
        out = self.observation.to_wire()
        out.update(
            found=self.found,
            gone=self.gone,
            timedOut=self.timed_out,
            elapsedMs=self.elapsed_ms,
            checks=self.checks,
            waitedBy=self.waited_by,
            condition=condition_json(self.condition),
            matches=list(self.matches),
        )
        out.update(news_wire(self.window_changes))
        out.update(self.observation.shown.to_wire())
        if self.unread:
            out["unread"] = [u.json() for u in self.unread]
        out.update(partly_wire(self.partly))
        return out


@dataclass(frozen=True)
class WindowClosed:
    """``wait_for`` an absence that came true because the window closed: no successor."""

    condition: UiCondition
    elapsed_ms: int
    reason: str
    window_changes: tuple[RootDelta, ...] = ()

    found = True
    gone = True
    timed_out = False

    def to_wire(self) -> Wire:
        return {
            "found": True,
            "gone": True,
            "timedOut": False,
            "windowClosed": True,
            "elapsedMs": self.elapsed_ms,
            "condition": condition_json(self.condition),
            "reason": self.reason,
            **news_wire(self.window_changes),
        }


@dataclass(frozen=True)
class Evaluation:
    """A script's JSON value (None when it threw, or when it is too large for structured
    content: ``value_bytes`` then says how large, and the text carries it bounded)."""

    value: str | None
    exception: str | None
    value_bytes: int | None = None

    def to_wire(self) -> Wire:
        out: Wire = {} if self.value_bytes is None else {"valueBytes": self.value_bytes}
        out.update(value=self.value, exception=self.exception)
        return out


@dataclass(frozen=True)
class PageShown:
    """``navigate_browser`` and ``evaluate_browser``: the page's successor (a diff, or a
    view of the new document), its console, and a script's value."""

    observation: StateSummary
    console: tuple[str, ...] = ()
    evaluation: Evaluation | None = None

    def to_wire(self) -> Wire:
        out = self.observation.to_wire()
        if self.console:
            out["console"] = list(self.console)
        out.update(self.observation.shown.to_wire())
        if self.evaluation is not None:
            out.update(self.evaluation.to_wire())
        return out


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
    text_format: TextFormat | None = None
    """Its text's formatting, caret and selection, read live (None: no text to read)."""

    def to_wire(self) -> Wire:
        wire: Wire = {"stateId": self.state_id, "target": node_json(self.target)}
        if self.text_format is not None:
            wire["textFormat"] = self.text_format.to_wire()
        return wire


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
    partly: tuple[PartShown, ...] = ()
    """The element is a document that exposes only what is on screen."""

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
            **partly_wire(self.partly),
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
