"""Which URLs a browser page may be sent to.

Only web, local-file, data and blank pages: nothing that starts another
program (``mailto:``, ``javascript:``, custom handlers). A URL that does not
even parse (``http://[::1``) is refused like one of the wrong scheme, never
with an exception from ``urllib``. The contract runs this rule on every URL
parameter, once, so the error names the parameter; the tools and the browser
backend receive only URLs that passed it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from actui.errors import FieldRule
from actui.quoting import quote

_HINT = "Give a full URL such as https://example.org/ (http(s), file:, data: or about:blank)."


def check_url(url: str) -> str:
    """``url`` without surrounding blanks, or a :class:`FieldRule` saying what is wrong."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        _ = parts.port  # a bad port is found only when read
    except ValueError as exc:
        raise FieldRule("", f"{quote(url, 80)} is not a valid URL ({exc}).", _HINT) from exc
    scheme = parts.scheme.lower()
    web = scheme in ("http", "https") and bool(parts.netloc)
    if not (web or scheme in ("file", "data") or text.lower() == "about:blank"):
        raise FieldRule(
            "", f"{quote(url, 80)} is not an absolute URL of a page this tool opens.", _HINT
        )
    return text
