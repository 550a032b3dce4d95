"""Pixel conversion, downscaling and PNG encoding of captured X11 images.

Owns pure byte work only: turning a ZPixmap (4 bytes per pixel) into packed
RGB, shrinking it to a size limit, and writing a PNG with :mod:`zlib`. It must
not talk to the X server. numpy and Pillow are not dependencies, so every loop
here runs at C speed through slicing, big-integer arithmetic and strided
slice assignment: a per-pixel Python loop would cost
hundreds of milliseconds on a full window.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass

_MAX_BOX_LOG2 = 3


@dataclass(frozen=True)
class RgbImage:
    """Packed 8-bit RGB rows, top to bottom, no padding."""

    width: int
    height: int
    rgb: bytes


def zpixmap_to_rgb(data: bytes, width: int, height: int, *, msb_first: bool) -> RgbImage:
    """Drop the pad byte of a 32-bit ZPixmap: BGRX when LSB-first, XRGB when MSB-first."""
    count = width * height
    if len(data) < count * 4:
        raise ValueError(f"pixel data holds {len(data)} bytes, {count * 4} expected")
    out = bytearray(count * 3)
    red, green, blue = (1, 2, 3) if msb_first else (2, 1, 0)
    out[0::3] = data[red : count * 4 : 4]
    out[1::3] = data[green : count * 4 : 4]
    out[2::3] = data[blue : count * 4 : 4]
    return RgbImage(width, height, bytes(out))


def scaled_size(width: int, height: int, max_dimension: int) -> tuple[int, int]:
    """Each side becomes side × limit ÷ longer side rounded half up, at least 1.

    Unchanged when it already fits.
    """
    longer = max(width, height)
    if longer <= max_dimension:
        return width, height
    return (
        max(1, math.floor(width * max_dimension / longer + 0.5)),
        max(1, math.floor(height * max_dimension / longer + 0.5)),
    )


def downscale(image: RgbImage, width: int, height: int) -> RgbImage:
    """Shrink by averaging a box of source pixels for every output pixel.

    The box side is the power of two at or above the shrink ratio (at most 8),
    starting at the output pixel's source position, so thin strokes such as
    text survive where nearest-neighbour sampling would drop them. A row is one
    big integer; two rows (or a row and itself shifted by some pixels) are
    averaged byte by byte with the carry-free identity
    ``(a & b) + ((a ^ b) >> 1)``, so a box costs a handful of C-speed integer
    operations per row. Rounding alternates down and up between halvings so
    the result is not biased darker. Output columns are then gathered with one
    strided slice per column over the whole image.
    """
    if (width, height) == (image.width, image.height):
        return image
    log_x = _box_log2(image.width, width)
    log_y = _box_log2(image.height, height)
    row_bytes = image.width * 3
    low_seven = int.from_bytes(b"\x7f" * row_bytes, "little")
    source_rows: dict[int, int] = {}

    def source(row: int) -> int:
        if row not in source_rows:
            data = image.rgb[row * row_bytes : (row + 1) * row_bytes]
            source_rows[row] = int.from_bytes(data, "little")
        return source_rows[row]

    def average(a: int, b: int, up: bool) -> int:
        half = ((a ^ b) >> 1) & low_seven
        return (a | b) - half if up else (a & b) + half

    rows = bytearray(row_bytes * height)
    for out_row, start in enumerate(_box_starts(image.height, height, 1 << log_y)):
        for stale in [row for row in source_rows if row < start]:
            del source_rows[stale]
        level = [source(row) for row in range(start, start + (1 << log_y))]
        up = False
        while len(level) > 1:
            level = [average(a, b, up) for a, b in zip(level[0::2], level[1::2], strict=True)]
            up = not up
        value = level[0]
        for step in range(log_x):
            value = average(value, value >> (24 << step), up)
            up = not up
        rows[out_row * row_bytes : (out_row + 1) * row_bytes] = value.to_bytes(row_bytes, "little")
    out = bytearray(width * 3 * height)
    out_stride = width * 3
    for out_col, start in enumerate(_box_starts(image.width, width, 1 << log_x)):
        for channel in range(3):
            out[out_col * 3 + channel :: out_stride] = rows[start * 3 + channel :: row_bytes]
    return RgbImage(width, height, bytes(out))


def _box_log2(source: int, target: int) -> int:
    """log2 of the box side: covers the shrink ratio, fits in the image, at most 8."""
    wanted = max(0, math.ceil(math.log2(source / target)))
    return min(_MAX_BOX_LOG2, wanted, source.bit_length() - 1)


def _box_starts(source: int, target: int, box: int) -> list[int]:
    """The first source index of each output pixel's box, kept inside the image."""
    ratio = source / target
    return [max(0, min(source - box, int(i * ratio))) for i in range(target)]


def encode_png(image: RgbImage, *, level: int = 6) -> bytes:
    """An 8-bit RGB PNG (filter type 0 on every row; zlib does the rest)."""
    row_bytes = image.width * 3
    raw = bytearray((row_bytes + 1) * image.height)
    for row in range(image.height):
        start = row * (row_bytes + 1) + 1
        raw[start : start + row_bytes] = image.rgb[row * row_bytes : (row + 1) * row_bytes]
    header = struct.pack(">IIBBBBB", image.width, image.height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(bytes(raw), level)),
            _chunk(b"IEND", b""),
        )
    )


def _chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)
