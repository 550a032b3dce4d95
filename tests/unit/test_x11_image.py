"""Pure image work of the X11 capture: pixel order, shrinking, PNG encoding."""

from __future__ import annotations

import struct
import zlib

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.x11.image import (
    RgbImage,
    downscale,
    encode_png,
    scaled_size,
    zpixmap_to_rgb,
)


def decode_png(png: bytes) -> RgbImage:
    """A strict little decoder for what we write: 8-bit RGB, filter 0, CRCs checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, payload = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + payload) & 0xFFFFFFFF
        if kind == b"IHDR":
            header = payload
        elif kind == b"IDAT":
            idat += payload
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, colour, interlace) == (8, 2, 0)
    raw = zlib.decompress(idat)
    stride = width * 3 + 1
    assert len(raw) == stride * height
    assert all(raw[row * stride] == 0 for row in range(height))
    rgb = b"".join(raw[row * stride + 1 : (row + 1) * stride] for row in range(height))
    return RgbImage(width, height, rgb)


def pixel(image: RgbImage, x: int, y: int) -> tuple[int, int, int]:
    at = (y * image.width + x) * 3
    return (image.rgb[at], image.rgb[at + 1], image.rgb[at + 2])


def test_lsb_first_zpixmap_is_read_as_bgrx() -> None:
    image = zpixmap_to_rgb(bytes([0x30, 0x20, 0x10, 0x00]), 1, 1, msb_first=False)
    assert pixel(image, 0, 0) == (0x10, 0x20, 0x30)


def test_msb_first_zpixmap_is_read_as_xrgb() -> None:
    image = zpixmap_to_rgb(bytes([0x00, 0x10, 0x20, 0x30]), 1, 1, msb_first=True)
    assert pixel(image, 0, 0) == (0x10, 0x20, 0x30)


def test_full_hd_at_1000_becomes_1000_by_563() -> None:
    assert scaled_size(1920, 1080, 1000) == (1000, 563)


def test_an_image_within_the_limit_keeps_its_size() -> None:
    assert scaled_size(640, 480, 900) == (640, 480)


@given(st.integers(1, 5000), st.integers(1, 5000), st.integers(1, 2000))
def test_scaled_longer_side_is_the_limit_and_no_side_is_empty(w: int, h: int, limit: int) -> None:
    sw, sh = scaled_size(w, h, limit)
    assert max(sw, sh) == min(max(w, h), limit)
    assert sw >= 1 and sh >= 1


@given(
    st.integers(1, 60),
    st.integers(1, 60),
    st.integers(1, 40),
    st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
)
def test_shrinking_a_flat_colour_keeps_the_colour_exactly(
    w: int, h: int, limit: int, colour: tuple[int, int, int]
) -> None:
    image = RgbImage(w, h, bytes(colour) * (w * h))
    sw, sh = scaled_size(w, h, limit)
    small = downscale(image, sw, sh)
    assert small.rgb == bytes(colour) * (sw * sh)


def test_a_one_pixel_stroke_survives_shrinking_as_a_grey_line() -> None:
    """Nearest-neighbour would drop every odd column; box averaging keeps them visible."""
    w, h = 200, 10
    rows = bytearray(b"\xff" * (w * h * 3))
    for y in range(h):
        at = (y * w + 101) * 3
        rows[at : at + 3] = b"\x00\x00\x00"
    small = downscale(RgbImage(w, h, bytes(rows)), 100, 5)
    darkest = min(pixel(small, x, 2)[0] for x in range(100))
    assert darkest <= 128


@given(st.integers(1, 40), st.integers(1, 40), st.data())
def test_png_round_trips_every_pixel(w: int, h: int, data: st.DataObject) -> None:
    rgb = data.draw(st.binary(min_size=w * h * 3, max_size=w * h * 3))
    image = RgbImage(w, h, rgb)
    assert decode_png(encode_png(image)) == image
