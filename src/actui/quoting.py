"""One rule for text an app or a page controls: it stays on its own line, quoted.

A window title, a URL, an accessible name, a console message, OCR text or an
error message quoting any of them may hold a newline followed by something that
looks like actui's own output (``outline: … stateId …``, ``act_ui: … outcome
worked``). Rendered raw, such a string would start a line of its own and forge
a header. Every such string is therefore rendered through :func:`quote` (a
JSON string literal) or, inside a sentence of actui's own, :func:`inline`
(the same escapes, without the quotes and without
escaping quotes or backslashes, for a sentence that already quotes its parts).

The escapes are JSON's (``\\n``, ``\\r``, ``\\t``, ``\\"``, ``\\\\``, ``\\uXXXX``)
applied to every character that can break or reorder a line: C0 and C1
controls, DEL, the line and paragraph separators U+2028/U+2029 (U+0085 is C1),
the bidirectional formatting characters, the byte-order mark, and lone
surrogates. The result is valid JSON string content, so an agent can decode
it. This module only renders; it never decides what is secret or how long a
text may be beyond the ``cap`` it is handed.
"""

from __future__ import annotations

import json
import re

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff"
    "\ud800-\udfff]"
)
"""Characters that may end, start or reorder a line, once JSON's own escapes are done."""


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    known = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return known.get(char) or f"\\u{ord(char):04x}"


def clip(text: str, cap: int | None) -> str:
    """``text`` cut to ``cap`` characters, with an ellipsis when cut."""
    return text if cap is None or len(text) <= cap else text[:cap] + "…"


def inline(text: str, cap: int | None = None) -> str:
    """``text`` (cut to ``cap``) with every line-breaking character escaped, unquoted."""
    return _UNSAFE.sub(_escape_one, clip(text, cap))


def quote(text: str, cap: int | None = None) -> str:
    """``text`` (cut to ``cap``) as a one-line JSON string literal."""
    dumped = json.dumps(clip(text, cap), ensure_ascii=False)
    return _UNSAFE.sub(_escape_one, dumped)
