"""Which URLs a browser page may be sent to: one rule for the tools and the backend.

Only web, local-file, data and blank pages: nothing that starts another
program (``mailto:``, ``javascript:``, custom handlers). A URL that does not
even parse (``http://[::1``) is refused like one of the wrong scheme, with an
error naming the field, never an exception from ``urllib``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from actui.errors import InvalidParams
from actui.quoting import quote

_HINT = "Give a full URL such as https://example.org/ (http(s), file:, data: or about:blank)."


def check_url(url: str, field: str = "url") -> str:
    """``url`` without surrounding blanks, or an error naming ``field`` and what is wrong."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        _ = parts.port  # a bad port is found only when read
    except ValueError as exc:
        raise InvalidParams(field, f"{quote(url, 80)} is not a valid URL ({exc}).", _HINT) from exc
    scheme = parts.scheme.lower()
    web = scheme in ("http", "https") and bool(parts.netloc)
    if not (web or scheme in ("file", "data") or text.lower() == "about:blank"):
        raise InvalidParams(
            field, f"{quote(url, 80)} is not an absolute URL of a page this tool opens.", _HINT
        )
    return text
