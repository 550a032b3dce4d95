"""Text an agent reads: root lines, observation headers, transaction summaries.

Pure rendering of already-decided results. Outline folding, search and diffs
render themselves in ``actui.outline``; this module only composes the lines
around them. Every string an app or page controls (app names, titles, URLs,
console messages, step reasons and errors that quote them) goes through
``actui.quoting``, so none can start a line of its own, and through the caps
below, so structured content is bounded like the text. It must not decide
outcomes or touch a backend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from actui.backends.base import RootInfo, TextFormat
from actui.outline.documents import pages_json
from actui.outline.fold import INSPECT_LABEL_CAP
from actui.outline.model import Node, Outline
from actui.outline.windows import window_json
from actui.quoting import clip, inline, quote
from actui.results.typed import TITLE_CAP, URL_CAP, Execution, KeyboardFocus, StepTrace, Wire
from actui.runtime.deltas import RootDelta

NODE_VALUE_CAP = 200
"""Characters of a value in an element's structured details; read_text pages the rest."""


def window_label(root: RootInfo) -> str:
    """``app — "title"``: how a result names the window it is about."""
    return f"{inline(root.app_name, TITLE_CAP)} — {quote(root.title, TITLE_CAP)}"


def root_label(root: RootInfo) -> str:
    """How a header names a root: app and title (a page: its title), then any URL."""
    label = quote(root.title, TITLE_CAP) if root.kind == "browser_page" else window_label(root)
    return label + (f" {quote(root.url, URL_CAP)}" if root.url else "")


def observation_header(tool: str, mode: str, named: str) -> str:
    """The first line of a full observation (observe_ui); ``named`` is the root's ref and
    its label where the agent has not seen it (``Session.named``)."""
    return f"{tool} {mode} {named}"


def page_header(tool: str, named: str) -> str:
    """The first line of a browser tool's successor observation."""
    return f"{tool} {named}"


def console_line(message: str) -> str:
    """One page console message (or dialog, or uncaught exception), quoted."""
    return f"console: {quote(message)}"


def root_line(ref: str, root: RootInfo) -> str:
    title = quote(root.title, TITLE_CAP)
    if root.kind == "browser_page":
        return f"{ref} browser_page {title} {quote(root.url, URL_CAP)}"
    frame = root.frame
    geometry = f"{frame.x},{frame.y} {frame.w}x{frame.h}" if frame else "no frame"
    flags = [
        name
        for name, on in (
            ("focused", root.is_focused),
            ("modal", root.is_modal),
            ("minimized", root.is_minimized),
            ("accessibility: none", root.accessibility == "none"),
            ("not answering", root.accessibility == "not_answering"),
            *((missing, True) for missing in root.capabilities.missing()),
            ("coordinates approximate", root.capabilities.geometry == "approximate"),
        )
        if on
    ]
    wid = f" window=0x{root.window_id:x}" if root.window_id else ""
    tail = f" [{', '.join(flags)}]" if flags else ""
    return (
        f"{ref} {root.kind} {inline(root.app_name, TITLE_CAP)} pid={root.pid} {title} "
        f"z={root.z_order}{wid} {geometry}{tail}"
    )


REACH_NOTES = {
    "none": "This window has no accessibility tree (accessibility: none): only its pixels "
    "can be read. Observe it with mode 'visual' for a screenshot with its text read by OCR, "
    "then act with x/y in the image's pixels.",
    "not_answering": "Its application is not answering (busy, stopped or stuck in a dialog), "
    "so its tree cannot be read now. Observe it with mode 'visual' to see it, or try again later.",
}


def reach_note(root: RootInfo, mode: str) -> str | None:
    """What an observation of a root without a readable tree should tell the agent."""
    note = REACH_NOTES.get(root.accessibility)
    if note is None or (mode == "visual" and root.accessibility == "none"):
        return None
    return note


def trace_summary(execution: Execution) -> list[str]:
    """A line per step that says more than the header (``N of N steps run …; outcome X``):
    one whose outcome differs from the act's, or that escalated, failed or has a reason.
    A plain step (the act's outcome, the configured delivery) is in structuredContent."""
    lines = []
    for index, step in enumerate(execution.steps):
        if not _telling(step, execution.outcome):
            continue
        bits = [f"{index + 1}. {step.action}"]
        if step.ref:
            bits.append(step.ref)
        bits.append(f"→ {step.outcome}")
        if step.delivery:
            bits.append(f"via {step.delivery}/{step.policy}")
        if step.escalated:
            bits.append(f"(escalated: {step.escalation_reason})")
        if step.error:
            bits.append(f"error {step.error.code}: {inline(step.error.message)}")
        elif step.reason:
            bits.append(f"({inline(step.reason)})")
        lines.append("  " + " ".join(bits))
    if execution.stopped_at is not None:
        lines.append(f"  stopped at step {execution.stopped_at + 1}; later steps were not run")
    return lines


def _telling(step: StepTrace, outcome: str) -> bool:
    return bool(step.outcome != outcome or step.escalated or step.error or step.reason)


ROOT_CHANGES = {"appeared": "new root", "closed": "closed root", "focused": "focused root"}


def root_delta_lines(deltas: Sequence[RootDelta]) -> list[str]:
    return [
        f"{ROOT_CHANGES[d.change]}: {d.kind} {quote(d.title, TITLE_CAP)} {d.ref}" for d in deltas
    ]


def focus_line(focus: KeyboardFocus | None, before: Outline, menu_command: bool) -> list[str]:
    """Where the keyboard focus is, said when it matters for the next step: after a menu
    command (the document has it again, or the dialog it opened), or when it moved to an
    element that was not focused before the steps (a dialog's field took it)."""
    if focus is None:
        return []
    was = before.get(focus.ref)
    if not menu_command and was is not None and "focused" in was.states:
        return []
    named = f" {quote(focus.name, TITLE_CAP)}" if focus.name else ""
    return [f"focus: {focus.ref} {focus.role}{named}"]


def node_json(node: Node) -> Wire:
    """One element's details without its children (never a password value).

    Name and description are cut like the label line of the text; a cut one
    carries its full length (``nameLength``, ``descriptionLength``).
    """
    rect = node.rect
    out: Wire = {
        "ref": node.ref,
        "role": node.role,
        "rawRole": clip(node.raw_role, INSPECT_LABEL_CAP),
        "name": clip(node.name, INSPECT_LABEL_CAP),
        "description": clip(node.description, INSPECT_LABEL_CAP),
        "value": "" if node.secure else node.value[:NODE_VALUE_CAP],
        "states": sorted(node.states),
        "actions": [clip(action, INSPECT_LABEL_CAP) for action in node.actions],
        "capabilities": sorted(node.caps),
        "pictureOnly": node.picture_only,
        "rect": {"x": rect.x, "y": rect.y, "w": rect.w, "h": rect.h} if rect else None,
        "childCount": len(node.children),
    }
    if node.window is not None:
        out["window"] = window_json(node.window)
    if node.pages is not None:
        out["pages"] = pages_json(node.pages)
    for field, text in (("name", node.name), ("description", node.description)):
        if len(text) > INSPECT_LABEL_CAP:
            out[f"{field}Length"] = len(text)
    return out


def format_lines(formatted: TextFormat) -> list[str]:
    """``inspect_ui``'s lines on an element's text: the caret and selection, the
    attributes of the whole text, and the runs that differ (``0–27 weight 700``)."""
    caret = str(formatted.caret) if formatted.caret >= 0 else "none"
    lines = [f"caret: {caret}"]
    if formatted.selections:
        lines.append("selected: " + ", ".join(f"{a}–{b}" for a, b in formatted.selections))
    if formatted.defaults:
        lines.append("text format: " + _attributes(formatted.defaults))
    if formatted.runs:
        runs = (f"{run.start}–{run.end} {_attributes(run.attributes)}" for run in formatted.runs)
        lines.append("runs: " + "; ".join(runs))
    return lines


def _attributes(attributes: Mapping[str, str]) -> str:
    return ", ".join(f"{key} {inline(value)}" for key, value in sorted(attributes.items()))
