"""Reading text off a picture: the OCR engine behind visual observations.

Owns running Tesseract (Debian's ``tesseract-ocr``, no model download at run
time) on a PNG and turning its word table into line boxes in the PNG's pixels,
with the junk filter that keeps icon glyphs out. It must not know about
outlines, refs or passwords: deciding what the text means, and what must never
be shown, is :mod:`actui.runtime.visual`'s job.

Why Tesseract and why these settings (measured on gtk3-widget-factory, 56
labels checked against AT-SPI rects; see the bench): page segmentation 11
("sparse text") suits a UI, where text is scattered in small islands, and
finds 47/56 labels; doubling the image first (nearest neighbour is as good as
bilinear) lifts that to 51/56, because UI text at 96 dpi is smaller than what
the engine was trained on. One OpenMP thread: with two, a loaded 2-core machine
sometimes took 5x longer (threads spinning against each other).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from actui.backends.base import Rect
from actui.errors import BackendUnavailable, CallTimeout

ENGINE = "tesseract"
PAGE_SEGMENTATION = "11"
UPSCALE = 2
MAX_UPSCALED_PIXELS = 16 * 1024 * 1024
"""Past this (a 2048×2048 image doubled) the picture goes to the engine as it is."""
MIN_WORD_CONFIDENCE = 50.0
"""Tesseract's 0–100 word confidence; icon glyphs read as letters score below it."""
MIN_LINE_ALNUM = 2
LINE_GAP_HEIGHTS = 1.5
"""A gap wider than this many line heights splits a line: two widgets side by side."""
_ALNUM = re.compile(r"\w", re.UNICODE)


@dataclass(frozen=True)
class TextBox:
    """One line of recognised text; ``rect`` is in the recognised image's pixels."""

    text: str
    confidence: float
    rect: Rect


async def recognize(
    png: bytes, *, blank: Sequence[Rect] = (), timeout_s: float = 20.0
) -> list[TextBox]:
    """The text lines Tesseract reads in ``png``, top to bottom.

    The ``blank`` rectangles (password fields, in image pixels) are painted
    over before the engine sees the picture, so it never reads them.

    The engine runs as a subprocess (off the event loop); it is killed when
    ``timeout_s`` passes (:class:`CallTimeout`) or the caller is cancelled.
    Raises :class:`BackendUnavailable` when the ``tesseract`` command is missing.
    """
    command = shutil.which("tesseract")
    if command is None:
        raise BackendUnavailable(
            "visual text recognition needs the tesseract command; install the Debian "
            "package tesseract-ocr, or observe in semantic or fused mode."
        )
    picture, factor = engine_input(png, blank)
    process = await asyncio.create_subprocess_exec(
        command,
        "stdin",
        "stdout",
        "--psm",
        PAGE_SEGMENTATION,
        "-l",
        "eng",
        "tsv",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
    )
    try:
        async with asyncio.timeout(timeout_s):
            out, err = await process.communicate(picture)
    except TimeoutError:
        raise CallTimeout(f"text recognition took longer than {timeout_s:g} s") from None
    finally:
        if process.returncode is None:
            process.kill()
            with contextlib.suppress(ProcessLookupError):
                await process.wait()
    if process.returncode != 0:
        message = err.decode(errors="replace").strip().splitlines()
        raise BackendUnavailable(
            f"tesseract failed (exit {process.returncode}): "
            + (message[-1] if message else "no message")
        )
    return parse_tsv(out.decode(errors="replace"), factor)


def engine_input(png: bytes, blank: Sequence[Rect] = ()) -> tuple[bytes, int]:
    """The picture to hand the engine (a PPM) and how much it was enlarged.

    Any PNG is decoded (a capture's, or a browser's screenshot), the ``blank``
    rectangles are painted white, and the result is doubled (nearest
    neighbour) unless that would pass ``MAX_UPSCALED_PIXELS``. A picture that
    cannot be decoded is refused rather than sent unmasked.
    """
    try:
        with Image.open(io.BytesIO(png)) as opened:
            picture = opened.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise BackendUnavailable(
            f"the picture cannot be decoded ({exc}); text recognition was not run on it."
        ) from None
    if blank:
        draw = ImageDraw.Draw(picture)
        for rect in blank:
            if rect.w > 0 and rect.h > 0:  # drawing clips to the picture
                corners = (rect.x, rect.y, rect.x + rect.w - 1, rect.y + rect.h - 1)
                draw.rectangle(corners, fill=(255, 255, 255))
    factor = UPSCALE
    if picture.width * picture.height * UPSCALE * UPSCALE > MAX_UPSCALED_PIXELS:
        factor = 1
    else:
        size = (picture.width * UPSCALE, picture.height * UPSCALE)
        picture = picture.resize(size, Image.Resampling.NEAREST)
    out = io.BytesIO()
    picture.save(out, "PPM")
    return out.getvalue(), factor


@dataclass(frozen=True)
class _Word:
    text: str
    confidence: float
    x: int
    y: int
    w: int
    h: int


def parse_tsv(tsv: str, factor: int = 1) -> list[TextBox]:
    """Tesseract's word table as line boxes, rects divided by ``factor``.

    Words below :data:`MIN_WORD_CONFIDENCE` or without a letter or digit are
    dropped; lines are split at wide gaps; a line needs
    :data:`MIN_LINE_ALNUM` letters or digits to count.
    """
    lines: dict[tuple[str, ...], list[_Word]] = {}
    for row in tsv.splitlines()[1:]:
        fields = row.split("\t")
        if len(fields) < 12 or fields[0] != "5":
            continue
        text = fields[11].strip()
        try:
            left, top, width, height = (int(v) for v in fields[6:10])
            confidence = float(fields[10])
        except ValueError:
            continue
        if confidence < MIN_WORD_CONFIDENCE or not _ALNUM.search(text):
            continue
        word = _Word(text, confidence, left, top, width, height)
        lines.setdefault(tuple(fields[1:5]), []).append(word)
    boxes = [
        _box(part, factor)
        for words in lines.values()
        for part in _split_at_gaps(sorted(words, key=lambda w: w.x))
    ]
    boxes = [b for b in boxes if len(_ALNUM.findall(b.text)) >= MIN_LINE_ALNUM]
    return sorted(boxes, key=lambda b: (b.rect.y, b.rect.x))


def _split_at_gaps(words: Sequence[_Word]) -> Iterator[list[_Word]]:
    height = max(w.h for w in words)
    part = [words[0]]
    for word in words[1:]:
        previous = part[-1]
        if word.x - (previous.x + previous.w) > LINE_GAP_HEIGHTS * height:
            yield part
            part = []
        part.append(word)
    yield part


def _box(words: Sequence[_Word], factor: int) -> TextBox:
    left = min(w.x for w in words)
    top = min(w.y for w in words)
    right = max(w.x + w.w for w in words)
    bottom = max(w.y + w.h for w in words)
    return TextBox(
        text=" ".join(w.text for w in words),
        confidence=round(sum(w.confidence for w in words) / len(words) / 100, 3),
        rect=Rect(
            left // factor,
            top // factor,
            max(1, -(-(right - left) // factor)),
            max(1, -(-(bottom - top) // factor)),
        ),
    )
