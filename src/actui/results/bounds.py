"""Bounded output: no tool result or error exceeds what an agent can take in.

A text within 48 KiB and 2,000 lines passes unchanged. A longer one is kept
whole (up to 16 MiB) as an immutable ``@oN`` entry in a private temporary
directory, and the agent gets a preview plus a trailer telling it how to refine
the call or exactly how to read on. Pages are cut at UTF-8 character
boundaries, so every page decodes and the pages concatenate to the original.
This module must not know what the text means; it never sees images and never
decides what is secret (password values never reach it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import OrderedDict
from dataclasses import dataclass

from actui.backends.base import JsonObject
from actui.errors import SchedulerClosed, UnknownRef
from actui.tokens import estimate_tokens

KIB = 1024
MIB = 1024 * KIB
VISIBLE_BYTES = 48 * KIB
VISIBLE_LINES = 2000
PREVIEW_BYTES = 16 * KIB
PREVIEW_LINES = 1996
PAGE_BYTES = 16 * KIB
ELEMENT_PAGE_CHARS = 12288
ENTRY_LIMIT = 16 * MIB
STORE_LIMIT = 64 * MIB
FIELD_CAP = VISIBLE_BYTES
"""Characters of any one string in structured content: no field outgrows the visible text."""

_REFINE_HINTS = {
    "search_ui": "Use a more selective predicate (text, role, scopeRef)",
    "find_roots": "Use more selective filters (pid, title)",
    "evaluate_browser": "Return only the fields you need, an aggregate, or a slice",
    "observe_ui": "Use search_ui, or expand_ui on a more specific ref",
    "expand_ui": "Use search_ui, or expand_ui on a more specific ref",
}
_GENERIC_HINT = "Ask for something narrower"


def bound_details(details: JsonObject) -> JsonObject:
    """``details`` with every string longer than :data:`FIELD_CAP` cut, at any depth.

    The tools cap each field they know to be app-controlled; this is the floor
    under them, so no structured content carries megabytes the text did not.
    """
    return {key: _bound(item) for key, item in details.items()}


def _bound(value: object) -> object:
    if isinstance(value, str):
        return value if len(value) <= FIELD_CAP else value[:FIELD_CAP] + "…"
    if isinstance(value, dict):
        return {key: _bound(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_bound(item) for item in value]
    return value


@dataclass(frozen=True)
class OutputPage:
    """One page of an ``@o`` entry; the next page starts at ``offset + limit``.

    ``total_bytes`` is what was stored; ``complete`` is False when the original
    was longer than the per-entry limit and only its prefix was kept.
    """

    text: str
    offset: int
    limit: int
    total_bytes: int
    has_more: bool
    complete: bool


@dataclass(frozen=True)
class _Entry:
    path: str
    stored_bytes: int
    complete: bool


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def _char_boundary(data: bytes, limit: int) -> int:
    """The largest cut ``<= limit`` that does not split a UTF-8 character."""
    if len(data) <= limit:
        return len(data)
    cut = limit
    while cut > 0 and _is_continuation(data[cut]):
        cut -= 1
    return cut


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _preview_cut(data: bytes) -> int:
    """Where the preview ends: after at most 1,996 lines and 16 KiB."""
    end = -1
    for _ in range(PREVIEW_LINES):
        end = data.find(b"\n", end + 1, PREVIEW_BYTES + 1)
        if end == -1:
            break
    limit = PREVIEW_BYTES if end == -1 else end
    return _char_boundary(data, limit)


def _token_cut(data: bytes, budget: int) -> int:
    """The longest prefix of ``data`` (whole lines where one fits) within ``budget`` tokens."""
    if budget <= 0:
        return 0
    text = data.decode("utf-8")
    spent = end = 0
    for line in text.splitlines(keepends=True):
        cost = estimate_tokens(line)
        if spent + cost > budget:
            break
        spent += cost
        end += len(line)
    else:
        return len(data)
    if end == 0:  # not even one line: as many characters of it as fit
        low, high = 0, len(text)
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if estimate_tokens(text[:mid]) <= budget else (low, mid - 1)
        end = low
    return len(text[:end].encode("utf-8"))


class OutputStore:
    """The session's ``@o`` entries: private files, oldest evicted beyond the budget."""

    def __init__(self, *, entry_limit: int = ENTRY_LIMIT, store_limit: int = STORE_LIMIT) -> None:
        self._entry_limit = entry_limit
        self._store_limit = store_limit
        self._dir: str | None = None
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._stored_bytes = 0
        self._next = 1
        self._closed = False

    def bound(self, text: str, *, tool: str, max_tokens: int | None = None) -> str:
        """``text`` itself if it fits (in ``max_tokens`` too, when given), else a preview
        and a trailer naming its ``@o`` ref."""
        hint = _REFINE_HINTS.get(tool, _GENERIC_HINT)
        return self._envelope(text, "output truncated", f"{hint}, or read", max_tokens)

    def bound_error(self, message: str, max_tokens: int | None = None) -> str:
        """Errors are bounded too, so a huge one cannot flood the agent."""
        return self._envelope(message, "error truncated", "Read", max_tokens)

    def read(self, ref: str, offset: int) -> OutputPage:
        """One 16 KiB page from ``offset``, realigned forward to a character start."""
        entry = self._entries.get(ref)
        if entry is None:
            raise UnknownRef(self._unknown_reason(ref))
        start = max(0, min(offset, entry.stored_bytes))
        with open(entry.path, "rb") as file:
            file.seek(start)
            chunk = file.read(PAGE_BYTES + 4)
        skip = 0
        while skip < len(chunk) and _is_continuation(chunk[skip]):
            skip += 1
        page = chunk[skip : skip + _char_boundary(chunk[skip:], PAGE_BYTES)]
        start += skip
        return OutputPage(
            text=page.decode("utf-8"),
            offset=start,
            limit=len(page),
            total_bytes=entry.stored_bytes,
            has_more=start + len(page) < entry.stored_bytes,
            complete=entry.complete,
        )

    def at_line_start(self, ref: str, offset: int) -> bool:
        """Whether ``offset`` of a stored entry starts a line (the entry's start does)."""
        entry = self._entries.get(ref)
        if entry is None or offset <= 0:
            return True
        with open(entry.path, "rb") as file:
            file.seek(offset - 1)
            return file.read(1) == b"\n"

    def close(self) -> None:
        """Delete every entry and the directory; later reads fail, later stores are refused."""
        self._closed = True
        self._entries.clear()
        self._stored_bytes = 0
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _envelope(self, text: str, what: str, read_on: str, max_tokens: int | None) -> str:
        data = text.encode("utf-8", "replace")  # a lone surrogate becomes "?"
        fits = len(data) <= VISIBLE_BYTES and _line_count(text) <= VISIBLE_LINES
        if fits and (max_tokens is None or estimate_tokens(text) <= max_tokens):
            return text
        ref, entry = self._store(data)
        cut = _preview_cut(data)
        budget = f" (maxTokens {max_tokens})" if max_tokens is not None else ""

        def enveloped(cut: int) -> str:
            trailer = (
                f"[{what}: showing {cut} of {len(data)} bytes{budget}. {read_on} the rest "
                f'with read_text({{"ref": "{ref}", "offset": {cut}}}).'
            )
            if not entry.complete:
                trailer += f" Only the first {entry.stored_bytes} bytes were stored."
            return f"{data[:cut].decode('utf-8')}\n\n{trailer}]"

        if max_tokens is None:
            return enveloped(cut)
        room = max_tokens - estimate_tokens(enveloped(0))
        while True:
            cut = min(cut, _token_cut(data, room))
            shown = enveloped(cut)
            over = estimate_tokens(shown) - max_tokens
            if over <= 0 or cut == 0:
                return shown
            room -= over

    def _store(self, data: bytes) -> tuple[str, _Entry]:
        if self._closed:
            raise SchedulerClosed("actui is shutting down; output can no longer be stored.")
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="actui-output-")  # mode 0700
        kept = data[: _char_boundary(data, self._entry_limit)]
        ref = f"@o{self._next}"
        self._next += 1
        path = os.path.join(self._dir, ref[1:])
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(kept)
        entry = _Entry(path, len(kept), complete=len(kept) == len(data))
        self._entries[ref] = entry
        self._stored_bytes += len(kept)
        while self._stored_bytes > self._store_limit and len(self._entries) > 1:
            _, oldest = self._entries.popitem(last=False)
            self._stored_bytes -= oldest.stored_bytes
            os.remove(oldest.path)
        return ref, entry

    def _unknown_reason(self, ref: str) -> str:
        number = ref[2:] if ref.startswith("@o") else ""
        if self._closed:
            why = "stored output is deleted at shutdown"
        elif number.isdigit() and 0 < int(number) < self._next:
            why = f"it was evicted to keep stored output under {self._store_limit // MIB} MiB"
        else:
            why = "no output with that ref was stored in this session"
        return f"{ref} cannot be read: {why}. Re-run the call that produced it, narrowed."
