"""Writes a flat ODF text document: N paragraphs of two lines each, then one phrase.

``python3 long_document.py OUT.fodt N "PHRASE"``: about 25 paragraphs fill an A4
page, so the phrase ends the last page. The documents tests and benchmarks open
(Writer) or convert to PDF (Evince) come from here.
"""

from __future__ import annotations

import sys
from pathlib import Path


def flat_text(paragraphs: int, phrase: str) -> str:
    body = "\n".join(
        f"<text:p>Paragraph {i} of the sample, with words enough to fill a line or two of the "
        "page so that the document grows long.</text:p>"
        for i in range(paragraphs)
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"
 office:mimetype="application/vnd.oasis.opendocument.text">
<office:body><office:text>{body}<text:p>The last phrase: {phrase}.</text:p></office:text>
</office:body></office:document>
"""


if __name__ == "__main__":
    out, count, phrase = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    Path(out).write_text(flat_text(count, phrase))
