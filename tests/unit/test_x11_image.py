"""Pure image work of the X11 capture: pixel order, shrinking, PNG encoding."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from actui.backends.x11.image import downscale, encode_png, scaled_size, zpixmap_to_rgb


def pixel(image: Image.Image, x: int, y: int) -> tuple[int, int, int]:
    r, g, b = image.getpixel((x, y))  # type: ignore[misc]
    return (r, g, b)


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
    image = Image.new("RGB", (w, h), colour)
    sw, sh = scaled_size(w, h, limit)
    small = downscale(image, sw, sh)
    assert small.size == (sw, sh)
    assert small.tobytes() == bytes(colour) * (sw * sh)


def test_a_one_pixel_stroke_survives_shrinking_as_a_grey_line() -> None:
    """Nearest-neighbour would drop every odd column; box averaging keeps them visible."""
    w, h = 200, 10
    rows = bytearray(b"\xff" * (w * h * 3))
    for y in range(h):
        at = (y * w + 101) * 3
        rows[at : at + 3] = b"\x00\x00\x00"
    small = downscale(Image.frombytes("RGB", (w, h), bytes(rows)), 100, 5)
    darkest = min(pixel(small, x, 2)[0] for x in range(100))
    assert darkest <= 128


@given(st.integers(1, 40), st.integers(1, 40), st.data())
def test_png_round_trips_every_pixel(w: int, h: int, data: st.DataObject) -> None:
    rgb = data.draw(st.binary(min_size=w * h * 3, max_size=w * h * 3))
    png = encode_png(Image.frombytes("RGB", (w, h), rgb))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(png)) as decoded:
        assert (decoded.mode, decoded.size) == ("RGB", (w, h))
        assert decoded.tobytes() == rgb


def test_a_short_zpixmap_is_refused() -> None:
    with pytest.raises(ValueError, match="expected"):
        zpixmap_to_rgb(b"\x00" * 7, 1, 2, msb_first=False)
