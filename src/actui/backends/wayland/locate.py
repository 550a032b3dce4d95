"""Where a window is on the screen, found by its own picture in the screen's (pure).

gnome-shell 43 tells each window's size but not its position. It does render
the focused window alone (``ScreenshotWindow``: the window's whole surface,
its client-side shadow included, so the picture's (0, 0) is the surface's,
where AT-SPI's surface-local extents start) and the whole screen
(``Screenshot``): the same pixels, so the window's interior appears in the
screen's picture exactly, byte for byte. The shadow is drawn over other
content there, so only a central part of the window is compared. A part that
appears more than once (a blank dialog), or not at all (covered, or redrawn
between the two pictures), places nothing: the caller then has no position
rather than a guess. It must not talk to a compositor.
"""

from __future__ import annotations

from PIL import Image as PilImage

SAMPLE_ROWS = 9
"""Rows of the central part compared at each candidate, besides the one searched for."""


def find_within(screen: PilImage.Image, window: PilImage.Image) -> tuple[int, int] | None:
    """The screen position of ``window``'s (0, 0), when its central part appears once."""
    width, height = window.size
    left, top = width // 4, height // 4
    part = window.convert("RGB").crop((left, top, width - left, height - top))
    spot = _unique(screen.convert("RGB"), part)
    return None if spot is None else (spot[0] - left, spot[1] - top)


def _unique(screen: PilImage.Image, part: PilImage.Image) -> tuple[int, int] | None:
    """The one place ``part`` appears in ``screen`` exactly; None for none or several."""
    sw, sh = screen.size
    pw, ph = part.size
    if pw <= 0 or ph <= 0 or pw > sw or ph > sh:
        return None
    whole, piece = screen.tobytes(), part.tobytes()
    stride, span = sw * 3, pw * 3
    middle = max(range(ph), key=lambda r: _colours(piece[r * span : (r + 1) * span]))
    needle = piece[middle * span : (middle + 1) * span]  # its most varied row: few false hits
    checks = sorted({(ph - 1) * i // SAMPLE_ROWS for i in range(SAMPLE_ROWS + 1)})
    found: list[tuple[int, int]] = []
    for y in range(sh - ph + 1):
        line = whole[(y + middle) * stride : (y + middle + 1) * stride]
        at = line.find(needle)
        while at >= 0:
            if at % 3 == 0 and all(
                whole[(y + r) * stride + at : (y + r) * stride + at + span]
                == piece[r * span : (r + 1) * span]
                for r in checks
            ):
                found.append((at // 3, y))
                if len(found) > 1:
                    return None
            at = line.find(needle, at + 1)
    return found[0] if found else None


def _colours(row: bytes) -> int:
    """How many different pixels one RGB row has."""
    return len({row[i : i + 3] for i in range(0, len(row), 3)})
