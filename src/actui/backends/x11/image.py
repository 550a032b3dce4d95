"""Pixel conversion, downscaling and PNG encoding of captured X11 images, with Pillow.

Owns pure pixel work only: reading a 32-bit ZPixmap as RGB, shrinking it to
a size limit, and writing a PNG. It must not talk to the X server.
"""

from __future__ import annotations

import io
import math

from PIL import Image

PNG_LEVEL = 1
"""zlib level for captures: screenshots of UIs are flat colour, so level 1 is
a little larger than 6 and several times faster (bench_x11 ``capture``)."""


def zpixmap_to_rgb(data: bytes, width: int, height: int, *, msb_first: bool) -> Image.Image:
    """Drop the pad byte of a 32-bit ZPixmap: BGRX when LSB-first, XRGB when MSB-first."""
    if len(data) < width * height * 4:
        raise ValueError(f"pixel data holds {len(data)} bytes, {width * height * 4} expected")
    order = "XRGB" if msb_first else "BGRX"
    return Image.frombuffer("RGB", (width, height), data, "raw", order, 0, 1)


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


def downscale(image: Image.Image, width: int, height: int) -> Image.Image:
    """Shrink by averaging each output pixel's box of source pixels.

    A box filter keeps thin strokes such as text as grey lines where
    nearest-neighbour sampling would drop them, and costs one pass.
    """
    if (width, height) == image.size:
        return image
    return image.resize((width, height), Image.Resampling.BOX)


def encode_png(image: Image.Image, *, level: int = PNG_LEVEL) -> bytes:
    """An 8-bit RGB PNG."""
    out = io.BytesIO()
    image.convert("RGB").save(out, "PNG", compress_level=level)
    return out.getvalue()
