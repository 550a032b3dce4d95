"""Sway's window tree as the desktop's window list, and the Wayland wire encoding (pure)."""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import Rect
from actui.backends.linux.physical import desktop_kind, sway_socket, wayland_socket
from actui.backends.wayland.tree import layout_size, windows_of
from actui.backends.wayland.wire import fixed, message, read_string, string


def view(ident: int, pid: int, *, x: int, y: int, focused: bool = False, **more: Any) -> Any:
    return {
        "id": ident,
        "type": "floating_con",
        "pid": pid,
        "app_id": f"app{ident}",
        "name": f"title {ident}",
        "focused": focused,
        "rect": {"x": x, "y": y, "width": 200, "height": 122},
        "window_rect": {"x": 2, "y": 0, "width": 196, "height": 120},
        "nodes": [],
        "floating_nodes": [],
        **more,
    }


def tree(workspace: list[Any], floating: list[Any], scratch: list[Any] | None = None) -> Any:
    return {
        "type": "root",
        "rect": {"x": 0, "y": 0, "width": 1280, "height": 800},
        "nodes": [
            {
                "type": "output",
                "name": "__i3",
                "nodes": [
                    {"type": "workspace", "name": "__i3_scratch", "floating_nodes": scratch or []}
                ],
            },
            {
                "type": "output",
                "name": "HEADLESS-1",
                "nodes": [
                    {
                        "type": "workspace",
                        "name": "1",
                        "nodes": workspace,
                        "floating_nodes": floating,
                    }
                ],
            },
        ],
    }


def test_a_window_is_its_surface_on_the_screen_with_its_pid_and_focus() -> None:
    (window,) = windows_of(tree([], [view(5, 42, x=551, y=340, focused=True)]))
    assert window.window_id == 5 and window.pid == 42 and window.is_active
    assert window.frame == Rect(553, 340, 196, 120)
    assert window.title == "title 5" and window.wm_class == ("app5", "app5")


def test_floating_windows_stack_last_drawn_on_top_above_tiled_and_hidden_last() -> None:
    tiled = {**view(1, 10, x=0, y=0), "type": "con"}
    listed = windows_of(
        tree([tiled], [view(2, 20, x=10, y=10), view(3, 30, x=20, y=20)], [view(4, 40, x=0, y=0)])
    )
    assert [w.window_id for w in listed] == [3, 2, 1, 4]
    assert [w.z_order for w in listed] == [0, 1, 2, 3]
    assert [w.is_minimized for w in listed] == [False, False, False, True]


def test_a_window_sway_does_not_show_counts_as_minimized() -> None:
    (window,) = windows_of(tree([], [view(2, 20, x=10, y=10, visible=False)]))
    assert window.is_minimized


def test_containers_without_a_pid_are_not_windows() -> None:
    assert windows_of(tree([{"type": "con", "id": 9, "nodes": []}], [])) == []
    assert layout_size(tree([], [])) == (1280, 800)
    assert layout_size({}) == (1, 1)


def test_the_session_kind_comes_from_its_environment() -> None:
    assert desktop_kind({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}) == "wayland"
    assert desktop_kind({"WAYLAND_DISPLAY": "/run/w", "SWAYSOCK": "/run/s"}) == "sway"
    assert desktop_kind({"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"}) == "wayland"
    assert desktop_kind({"DISPLAY": ":0"}) == "x11"
    assert desktop_kind({}) == "none"
    assert wayland_socket({"WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": "/run/u"}) == (
        "/run/u/wayland-1"
    )
    assert wayland_socket({"WAYLAND_DISPLAY": "/abs/wayland-1"}) == "/abs/wayland-1"


def test_the_users_own_sway_is_found_by_its_socket_without_swaysock(tmp_path: Path) -> None:
    env = {"WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": str(tmp_path)}
    assert desktop_kind(env) == "wayland"
    made = tmp_path / f"sway-ipc.{os.getuid()}.4242.sock"
    made.touch()
    assert desktop_kind(env) == "sway" and sway_socket(env) == str(made)
    assert sway_socket({**env, "SWAYSOCK": "/elsewhere"}) == "/elsewhere"


@given(st.text(max_size=60))
def test_strings_round_trip_padded_to_words(text: str) -> None:
    encoded = string(text)
    assert len(encoded) % 4 == 0
    decoded, end = read_string(encoded, 0)
    assert decoded == text and end == len(encoded)


def test_a_message_header_carries_object_size_and_opcode() -> None:
    data = message(7, 3, fixed(1.5) + fixed(-2))
    assert struct.unpack("<IIii", data) == (7, (16 << 16) | 3, 384, -512)
