"""``search_ui``, ``expand_ui``, ``inspect_ui`` and ``read_text``: questions about a saved state.

They answer from the stored outline, and read the UI only for what the state
left unread (into a successor state) or for an element's live text; either
read runs in the state's lane at its epoch, so a write in between refuses it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from pydantic import Field, field_validator, model_validator

from actui.backends.base import Snapshot, TextFormat, TextSlice
from actui.errors import InvalidParams, SecureTextUnreadable
from actui.outline.documents import pages_may_hold, partly_shown
from actui.outline.fold import label_line, path_text, render_fold
from actui.outline.model import Node
from actui.outline.search import SearchResult, node_filter, render_search, search
from actui.quoting import inline, quote
from actui.results.bounds import ELEMENT_PAGE_CHARS, OutputStore
from actui.results.observations import ElementText, Expanded, Inspected, OutputPage
from actui.results.schemas import BOOLEAN, ELEMENT, INTEGER, STATE, STRING, array, shape
from actui.results.tool_result import ToolResult
from actui.results.typed import Found
from actui.results.views import format_lines
from actui.runtime.imaging import scale_of
from actui.runtime.observer import Observer
from actui.runtime.reaching import (
    PagesScanned,
    Reached,
    accepting,
    has_unread,
    read_below,
    scan_documents,
    search_unread,
)
from actui.runtime.store import State
from actui.runtime.waiting import observed_outline
from actui.tools.contract import ElementRefDoc, StateId, Tool, ToolParams
from actui.tools.session import Session


class SearchUi(ToolParams):
    stateId: StateId
    text: str | None = Field(None, max_length=256)
    role: str | None = Field(None, max_length=128)
    capability: str | None = Field(
        None, max_length=128, description="press, toggle, setText, select, scroll, ..."
    )

    @model_validator(mode="after")
    def _one_predicate(self) -> SearchUi:
        if not any((v or "").strip() for v in (self.text, self.role, self.capability)):
            raise ValueError("give at least one of text, role or capability")
        return self


class ExpandUi(ToolParams):
    stateId: StateId
    ref: ElementRefDoc
    depth: int = Field(3, description="Levels below ref, 1-8 (clamped).")

    @field_validator("depth", mode="before")
    @classmethod
    def _clamp_depth(cls, value: object) -> object:
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return max(1, min(8, int(value)))
        return value


class InspectUi(ToolParams):
    stateId: StateId
    ref: ElementRefDoc


class ReadText(ToolParams):
    ref: str = Field(pattern=r"^@[eo]\d+$", max_length=16, description="@e element or @o output.")
    offset: int = Field(0, ge=0)
    stateId: str | None = Field(None, max_length=128, description="Required for @e.")


async def search_ui(observer: Observer, p: SearchUi) -> ToolResult:
    state = observer.state(p.stateId)
    result = search(state.outline, text=p.text, role=p.role, capability=p.capability)
    text = (p.text or "").strip()
    reached: list[Reached] = []
    if text and has_unread(state) and not any(m.reason == "exact" for m in result.matches):
        passes = node_filter(p.role, p.capability)
        state, reached = await _search_unread(observer, state, text, passes)
        result = search(state.outline, text=p.text, role=p.role, capability=p.capability)
    read_into = state.state_id
    scanned: list[PagesScanned] = []
    pages = pages_may_hold(p.role, p.capability)
    if text and pages and not _found(result) and partly_shown(state.outline):
        state, scanned = await _scan_pages(observer, state, text)
        result = search(state.outline, text=p.text, role=p.role, capability=p.capability)
    done = {s.ref for s in scanned}  # their notes say which pages were searched
    partly = (
        ()
        if _found(result) or not pages
        else tuple(part for part in partly_shown(state.outline) if part.ref not in done)
    )
    base = state.base_state_id if reached or scanned else None
    found = Found(state.state_id, result, base, (*reached, *scanned), partly)
    lines = [render_search(result), *(part.note("searched") for part in partly)]
    if reached:
        lines.append(f"read on demand into stateId {read_into}:")
        lines += [c.note(read_into) for c in reached]
    lines += [s.note(state.state_id) for s in scanned]
    return ToolResult("\n".join(lines), found)


def _found(result: SearchResult) -> bool:
    """Whether a search found more than look-alikes (a fuzzy match of "Paragraph 4000" is
    any paragraph on screen)."""
    return any(m.reason != "fuzzy" for m in result.matches)


async def _search_unread(
    observer: Observer, state: State, text: str, passes: Callable[[Node], bool]
) -> tuple[State, list[Reached]]:
    """What the state left unread (hidden subtrees, rows of windowed containers), read
    for ``text``; the successor state is saved."""
    backend = observer.backend_for(state.root)

    async def job(_epoch: int) -> tuple[State, list[Reached]]:
        return await search_unread(backend, state, text, state.epoch, scale_of(state), passes)

    successor, reached = await observer.read_at(state, job)
    observer.keep(successor)
    return successor, reached


async def _scan_pages(
    observer: Observer, state: State, text: str
) -> tuple[State, list[PagesScanned]]:
    """The pages off screen of the state's partly shown documents, read for ``text``
    (``reaching.scan_documents``); where a view moved, a fresh look is saved after it."""
    root = await observer.resolve(state.root)
    backend = observer.backend_for(root)

    async def job(epoch: int) -> tuple[list[PagesScanned], Snapshot | None, int]:
        parts = partly_shown(state.outline)
        scanned = await scan_documents(backend, root, state.outline, parts, accepting(text))
        moved = any(s.scan.scrolled for s in scanned)
        return scanned, await observer.snapshot(root) if moved else None, epoch

    scanned, snapshot, epoch = await observer.read_at(state, job)
    if snapshot is None:
        return state, scanned
    outline = observed_outline(snapshot, state.outline, scale_of(state))
    return observer.save(snapshot, outline, epoch, base=state), scanned


async def expand_ui(observer: Observer, p: ExpandUi) -> ToolResult:
    state = observer.state(p.stateId)
    node = state.node(p.ref)
    lines = [label_line(node)]
    base = state.state_id
    if node.unread and node.wire:
        state = await _read_below(observer, state, node.ref)
        node = state.node(node.ref)
        lines.append(f"read on demand into stateId {state.state_id} (it was not shown):")
    fold = render_fold(state.outline, max_depth=p.depth, start=node.ref)
    lines.append(fold.text)
    expanded = Expanded(state.state_id, node, fold.shown, base if state.state_id != base else None)
    return ToolResult("\n".join(lines), expanded)


async def _read_below(observer: Observer, state: State, ref: str) -> State:
    """What ``ref`` held unread, read into a saved successor state."""
    backend = observer.backend_for(state.root)

    async def job(_epoch: int) -> State:
        return await read_below(backend, state, ref, state.epoch, scale_of(state))

    successor = await observer.read_at(state, job)
    observer.keep(successor)
    return successor


async def inspect_ui(observer: Observer, p: InspectUi) -> ToolResult:
    state = observer.state(p.stateId)
    node = state.node(p.ref)
    rect = node.rect
    lines = [
        label_line(node),
        "path: " + path_text(state.outline, node),
        f"role: {node.role} (platform: {inline(node.raw_role)})",
        "rect: "
        + (json.dumps({"x": rect.x, "y": rect.y, "w": rect.w, "h": rect.h}) if rect else "none"),
        "states: " + (", ".join(sorted(node.states)) or "none"),
        "actions: " + _actions_text(node),
        "capabilities: " + (", ".join(sorted(node.caps)) or "none"),
    ]
    if node.secure:
        lines.append("value: (password field: never shown)")
    elif node.value:
        shown = node.value[:200]
        more = node.value_length > len(shown)
        lines.append("value: " + json.dumps(shown) + (" … (read_text for all)" if more else ""))
    formatted = await _text_format(observer, state, node)
    if formatted is not None:
        lines.extend(format_lines(formatted))
    inspected = Inspected(state.state_id, node, formatted)
    return ToolResult("\n".join(lines), inspected)


async def _text_format(observer: Observer, state: State, node: Node) -> TextFormat | None:
    """The live formatting of an element that holds text an agent can edit (a document's
    paragraph, a field): read where it shows what was applied, not for every label."""
    if node.secure or node.wire is None or not node.caps & {"typeText", "setText"}:
        return None
    root = await observer.resolve(state.root)
    backend = observer.backend_for(root)
    wire = node.wire

    async def job(_epoch: int) -> TextFormat | None:
        return await backend.text_format(root, wire)

    return await observer.read_at(state, job)


def read_output(output: OutputStore, p: ReadText) -> ToolResult:
    """A page of a long result's text that an ``@o`` ref continues.

    The stored text is a result's, its app text already quoted; a page that starts inside
    a line starts with ``…``, so even a cut through a quoted string starts no line with it.
    """
    page = output.read(p.ref, p.offset)
    end = page.offset + page.limit
    head = f"read_text {p.ref}: bytes {page.offset}-{end} of {page.total_bytes}"
    cut = "" if output.at_line_start(p.ref, page.offset) else "…"
    text = f"{head}\n{cut}{page.text}"
    if page.has_more:
        text += f'\n[continue with read_text({{ref:"{p.ref}", offset:{end}}})]'
    read = OutputPage(
        p.ref, page.offset, page.limit, page.total_bytes, page.has_more, page.complete
    )
    return ToolResult(text, read)


async def read_text(s: Session, p: ReadText) -> ToolResult:
    """An ``@o`` output page, or a page of an ``@e`` element's live text."""
    if p.ref.startswith("@o"):
        return read_output(s.output, p)
    return await read_element(s.observer, p)


async def read_element(observer: Observer, p: ReadText) -> ToolResult:
    """A page of an ``@e`` element's live text."""
    if not p.stateId:
        raise InvalidParams("stateId", "is required to read an @e ref.", "Pass the stateId.")
    state = observer.state(p.stateId)
    node = state.node(p.ref)
    if node.secure:
        raise SecureTextUnreadable(node.ref)
    if node.wire is None:
        raise InvalidParams(
            "ref",
            f"{node.ref} is picture-only (seen in the image, not an accessible element), "
            "so it has no live text.",
            "Its text is its label; use inspect_ui, or act on it by coordinates.",
        )
    observer.check_document(state)
    root = await observer.resolve(state.root)
    backend = observer.backend_for(root)
    wire = node.wire

    async def job(_epoch: int) -> TextSlice:
        return await backend.read_text(root, wire, p.offset, ELEMENT_PAGE_CHARS)

    sliced = await observer.read_at(state, job)
    partly = partly_shown(state.outline, node) if node.pages is not None else ()
    read = ElementText(p.ref, p.offset, sliced.text, sliced.total_chars, partly)
    total, next_offset = read.total_chars, p.offset + read.limit
    # the text is the app's: one JSON string literal on its own line, whatever it holds
    shown = (
        f"read_text {p.ref} of {state.state_id}: characters {p.offset}-{next_offset} of "
        f"{total}\n{quote(read.text)}"
    )
    if read.has_more:
        shown += (
            "\n[continue with "
            f'read_text({{ref:"{p.ref}", stateId:"{state.state_id}", offset:{next_offset}}})]'
        )
    shown += "".join(f"\n{part.note('read')}" for part in partly)
    return ToolResult(shown, read)


def _actions_text(node: Node) -> str:
    """The element's action names, or why there are none to show.

    A look leaves the names unread where its role fixes them (hidden elements,
    GTK 3 buttons); press and toggle then come from the role, and acting reads
    the names. Saying "none" there would contradict the capabilities line.
    """
    if node.actions:
        return ", ".join(quote(action) for action in node.actions)
    if node.caps & {"press", "toggle"}:
        return "not read by the look (press and toggle follow the role; acting reads the names)"
    return "none"


SEARCH_UI = Tool(
    "search_ui",
    SearchUi,
    "Find elements in a stored state by text, role or capability. Rows a big list or "
    "sheet did not show, and parts not shown (hidden pages), are read on demand into a "
    "new stateId; a document listing only its screen is scrolled down (then up from its "
    "end) to the text, its caret left in place.",
    lambda s, p: search_ui(s.observer, p),
    shape((*STATE, "matches"), stateId=STRING, matches=array(ELEMENT), hasMore=BOOLEAN),
)
EXPAND_UI = Tool(
    "expand_ui",
    ExpandUi,
    "Show the subtree under a folded @e ref of a stored state; one marked "
    "(not shown; N items unread) is read on demand into a new stateId.",
    lambda s, p: expand_ui(s.observer, p),
    shape((*STATE, "target"), stateId=STRING, target=ELEMENT),
)
INSPECT_UI = Tool(
    "inspect_ui",
    InspectUi,
    "All details of one @e ref: states, rect, actions, capabilities.",
    lambda s, p: inspect_ui(s.observer, p),
    shape((*STATE, "target"), stateId=STRING, target=ELEMENT),
)
READ_TEXT = Tool(
    "read_text",
    ReadText,
    "Read an element's full text (@e + stateId) or continue long output (@o).",
    read_text,
    shape(("ref", "offset", "hasMore"), ref=STRING, offset=INTEGER, hasMore=BOOLEAN, text=STRING),
)
