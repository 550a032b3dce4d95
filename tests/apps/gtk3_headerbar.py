"""A GTK 3 window that draws its own frame: a header bar, so client-side decorations with a
shadow around the content even where the compositor would draw a title bar (sway).

Run with Debian's python3 (python3-gi): ``/usr/bin/python3 tests/apps/gtk3_headerbar.py``.
A small button ("Tap") counts its clicks into a label (``taps: N``) and prints ``taps=N``.
"""

from __future__ import annotations

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def main() -> None:
    window = Gtk.Window(title="Header bar probe")
    bar = Gtk.HeaderBar(title="Header bar probe", show_close_button=True)
    window.set_titlebar(bar)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=12)
    label = Gtk.Label(label="taps: 0")
    button = Gtk.Button(label="Tap")
    button.set_size_request(24, 14)
    button.set_halign(Gtk.Align.START)
    count = [0]

    def tapped(_button: Gtk.Button) -> None:
        count[0] += 1
        label.set_text(f"taps: {count[0]}")
        print(f"taps={count[0]}", flush=True)

    button.connect("clicked", tapped)
    box.pack_start(label, False, False, 0)
    box.pack_start(button, False, False, 0)
    window.add(box)
    window.set_default_size(320, 200)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
