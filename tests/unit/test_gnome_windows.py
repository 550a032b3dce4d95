"""gnome-shell's window list, pairing by title, and what may be typed where (pure)."""

from __future__ import annotations

import random
from typing import Any

from dbus_fast import Variant
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image as PilImage
from test_x11_pairing import root, window

from actui.backends.atspi.window_origin import choose_window
from actui.backends.base import ActionRequest, Rect
from actui.backends.linux.physical import Desktop, desktop_kind
from actui.backends.wayland.gnome import windows_of
from actui.backends.wayland.gnome_input import keyable, secret_refusal
from actui.backends.wayland.locate import find_within
from actui.backends.x11.pairing import pair_windows

GNOME_ENV = {
    "WAYLAND_DISPLAY": "/run/x/wayland-gs",
    "ACTUI_COMPOSITOR": "gnome-shell",
    "SWAYSOCK": "/run/x/sway-ipc.sock",
}


TITLES = st.lists(st.sampled_from(["a", "b", "ab", ""]), max_size=5)


def shell_window(title: str, *, focus: bool = False, hidden: bool = False) -> dict[str, Any]:
    return {
        "title": Variant("s", title),
        "wm-class": Variant("s", "zenity"),
        "has-focus": Variant("b", focus),
        "is-hidden": Variant("b", hidden),
        "width": Variant("u", 300),
        "height": Variant("u", 120),
    }


def test_the_shells_windows_list_the_focused_first_and_the_hidden_last_without_a_place() -> None:
    found = windows_of(
        {
            11: shell_window("hidden", hidden=True),
            12: shell_window("behind"),
            13: shell_window("focused", focus=True),
        }
    )
    assert [(w.window_id, w.title, w.z_order) for w in found] == [
        (13, "focused", 0),
        (12, "behind", 1),
        (11, "hidden", 2),
    ]
    assert found[0].is_active and found[2].is_minimized
    assert {w.frame for w in found} == {Rect(0, 0, 300, 120)}  # a size, never a position
    assert {w.pid for w in found} == {0}  # gnome-shell names no process


def test_the_sandboxs_marker_makes_the_desktop_gnome_shell_even_beside_a_sway_socket() -> None:
    assert desktop_kind(GNOME_ENV) == "gnome"
    gnome = Desktop("gnome", "gnome-shell")
    assert not gnome.positions and not gnome.pids and not gnome.missing()
    assert "never placed has no frame" in gnome.notice()
    assert Desktop("sway", "sway").positions and not Desktop("sway", "sway").notice()


def test_a_window_of_untold_pid_pairs_by_title_only_where_pids_are_untold() -> None:
    roots = [root("Second window", pid=5), root("First window", pid=4)]
    windows = [window(1, "First window", pid=0), window(2, "Second window", pid=0)]
    paired = pair_windows(roots, windows, untold_pids=True)
    assert [(r.pid, r.window_id) for r in paired] == [(5, 2), (4, 1)]
    assert [r.window_id for r in pair_windows(roots, windows)] == [None, None]
    (alone,) = pair_windows([root("Other", pid=4)], windows, untold_pids=True)
    assert alone.window_id is None  # a title that matches nothing takes no window


@given(TITLES, TITLES)
def test_untold_windows_pair_at_most_once_and_only_with_a_title_they_share(
    root_titles: list[str], window_titles: list[str]
) -> None:
    roots = [root(t, pid=i + 1) for i, t in enumerate(root_titles)]
    windows = [window(i + 1, t, pid=0) for i, t in enumerate(window_titles)]
    paired = pair_windows(roots, windows, untold_pids=True)
    taken = [r.window_id for r in paired if r.window_id]
    assert len(taken) == len(set(taken))
    for r in paired:
        if r.window_id:
            shown = window_titles[r.window_id - 1]
            assert r.title and shown and (r.title in shown or shown in r.title)


@given(st.text(max_size=30))
def test_only_text_without_a_key_for_some_character_is_refused_for_a_password(text: str) -> None:
    request = ActionRequest("typeText", root("Secret"), "foreground", text=text)
    refused = secret_refusal(request)
    if keyable(text):
        assert refused is None
        assert all(c.isascii() for c in text)
    else:
        assert refused is not None and "clipboard" in refused.why
        assert any(not (" " <= c <= "~") and c not in "\n\t" for c in text)


@given(
    st.integers(0, 200),
    st.integers(0, 120),
    st.integers(40, 120),
    st.integers(30, 80),
    st.integers(0, 2**32),
)
def test_a_window_is_found_where_its_picture_was_put_on_the_screen(
    x: int, y: int, width: int, height: int, seed: int
) -> None:
    rng = random.Random(seed)
    screen = PilImage.new("RGB", (320, 200), (20, 40, 120))
    window = PilImage.frombytes(
        "RGB", (width, height), bytes(rng.randrange(256) for _ in range(width * height * 3))
    )
    screen.paste(window, (x, y))
    assert find_within(screen, window) == (x, y)


def test_a_window_whose_middle_is_plain_or_covered_is_not_placed() -> None:
    screen = PilImage.new("RGB", (320, 200), (200, 200, 200))
    plain = PilImage.new("RGB", (60, 40), (200, 200, 200))
    assert find_within(screen, plain) is None  # everywhere at once: no place
    busy = PilImage.frombytes("RGB", (60, 40), bytes(range(256)) * 28 + bytes(32))
    screen.paste(busy, (10, 10))
    screen.paste(PilImage.new("RGB", (30, 20), (0, 0, 0)), (25, 20))  # covers its middle
    assert find_within(screen, busy) is None


def test_a_window_of_untold_pid_places_a_root_only_by_title_and_only_when_told_so() -> None:
    frame = Rect(0, 0, 100, 100)
    shell = window(1, "Second window", pid=0, frame=Rect(40, 50, 100, 100))
    assert choose_window([shell], 7, "Second window", frame, untold_pids=True) is shell
    assert choose_window([shell], 7, "Other", frame, untold_pids=True) is None
    assert choose_window([shell], 7, "Second window", frame) is None  # X11: pids must match
