"""The OCR engine's pure parts: the picture it is given and how its words become lines."""

from __future__ import annotations

import struct
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from actui.backends.base import Rect
from actui.backends.x11.image import encode_png
from actui.errors import BackendUnavailable
from actui.runtime.ocr import UPSCALE, engine_input, parse_tsv, recognize

COLUMNS = "level page_num block_num par_num line_num word_num left top width height conf text"
HEADER = COLUMNS.replace(" ", "\t")


def _word(block: int, line: int, x: int, y: int, w: int, conf: float, text: str) -> str:
    return f"5\t1\t{block}\t1\t{line}\t1\t{x}\t{y}\t{w}\t20\t{conf}\t{text}"


def _tsv(*rows: str) -> str:
    return "\n".join([HEADER, *rows]) + "\n"


def test_words_of_one_line_become_one_box_in_original_pixels() -> None:
    tsv = _tsv(_word(1, 1, 100, 40, 60, 91, "Sans"), _word(1, 1, 170, 40, 90, 89, "Regular"))
    (box,) = parse_tsv(tsv, factor=2)
    assert box.text == "Sans Regular"
    assert box.rect == Rect(50, 20, 80, 10)
    assert box.confidence == pytest.approx(0.9)


def test_icon_glyphs_and_unsure_words_are_dropped() -> None:
    tsv = _tsv(
        _word(1, 1, 0, 0, 20, 83, "©"),
        _word(1, 1, 30, 0, 120, 92, "checkbutton"),
        _word(2, 1, 0, 50, 20, 9.9, "iv)"),
        _word(3, 1, 0, 90, 20, 95, "+"),
        _word(4, 1, 0, 130, 10, 93, "7"),
    )
    assert [b.text for b in parse_tsv(tsv)] == ["checkbutton"]


def test_a_wide_gap_splits_a_line_into_two_widgets() -> None:
    tsv = _tsv(_word(1, 1, 0, 0, 40, 90, "Left"), _word(1, 1, 200, 0, 60, 90, "Middle"))
    assert [b.text for b in parse_tsv(tsv)] == ["Left", "Middle"]


def test_lines_come_out_in_reading_order() -> None:
    tsv = _tsv(
        _word(2, 1, 0, 100, 40, 90, "below"),
        _word(1, 1, 300, 0, 40, 90, "right"),
        _word(3, 1, 0, 0, 40, 90, "left"),
    )
    assert [b.text for b in parse_tsv(tsv)] == ["left", "right", "below"]


def test_malformed_rows_are_ignored() -> None:
    assert parse_tsv(_tsv("5\t1\t1\t1\t1\t1\tx\t0\t1\t1\t90\tword", "garbage")) == []


@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_our_pngs_reach_the_engine_doubled_pixel_for_pixel(
    width: int, height: int, data: st.DataObject
) -> None:
    rgb = data.draw(st.binary(min_size=width * height * 3, max_size=width * height * 3))
    picture, factor = engine_input(encode_png(Image.frombytes("RGB", (width, height), rgb)))
    assert factor == UPSCALE
    header = b"P6\n%d %d\n255\n" % (width * 2, height * 2)
    assert picture.startswith(header)
    pixels = picture[len(header) :]
    for y in range(height * 2):
        for x in range(width * 2):
            out = pixels[(y * width * 2 + x) * 3 :][:3]
            assert out == rgb[((y // 2) * width + x // 2) * 3 :][:3]


def _png(width: int, height: int, color: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    body = zlib.compress(b"".join(rows))
    chunks = chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


def test_an_rgba_png_loses_its_alpha_on_the_way() -> None:
    png = _png(1, 1, 6, [b"\x00\x10\x20\x30\x40"])
    picture, factor = engine_input(png)
    assert factor == UPSCALE
    assert picture.endswith(b"\x10\x20\x30" * 4)


def test_a_png_with_filtered_rows_is_decoded_and_doubled_too() -> None:
    # row 2 is "sub"-filtered: its first pixel adds the (absent) left neighbour, so it is 0,0,0
    png = _png(1, 2, 2, [b"\x00\x01\x02\x03", b"\x01\x00\x00\x00"])
    picture, factor = engine_input(png)
    assert factor == UPSCALE
    assert picture.endswith(b"\x01\x02\x03" * 4 + b"\x00\x00\x00" * 4)


async def test_a_blank_picture_holds_no_text() -> None:
    png = encode_png(Image.new("RGB", (40, 20), "white"))
    assert await recognize(png, timeout_s=20) == []


def test_password_areas_are_painted_over_before_the_engine_sees_them() -> None:
    width, height = 6, 4
    rgb = bytes(range(width * height * 3))
    secret = Rect(1, 1, 3, 2)
    picture, factor = engine_input(
        encode_png(Image.frombytes("RGB", (width, height), rgb)), [secret]
    )
    pixels = picture[len(b"P6\n%d %d\n255\n" % (width * factor, height * factor)) :]
    for y in range(height * factor):
        for x in range(width * factor):
            out = pixels[(y * width * factor + x) * 3 :][:3]
            sx, sy = x // factor, y // factor
            inside = secret.x <= sx < secret.x + secret.w and secret.y <= sy < secret.y + secret.h
            assert (out == b"\xff\xff\xff") if inside else out == rgb[(sy * width + sx) * 3 :][:3]


def test_a_picture_that_cannot_be_decoded_is_refused_not_sent_unmasked() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"not really"
    with pytest.raises(BackendUnavailable, match="cannot be decoded"):
        engine_input(png, [Rect(0, 0, 1, 1)])
