"""A GTK 3 window that renames itself after it is mapped, as Evince does: it maps as
"Document Viewer" and takes the document's name a moment later.

Run with Debian's python3 (python3-gi): ``/usr/bin/python3 tests/apps/gtk3_renames.py
[delay_ms] [title]``. Prints ``renamed=<title>`` once it has renamed its window.
"""

from __future__ import annotations

import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def main() -> None:
    delay_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    title = sys.argv[2] if len(sys.argv) > 2 else "report.pdf"
    window = Gtk.Window(title="Document Viewer")
    window.set_default_size(420, 200)
    window.add(Gtk.Label(label="A page of the document"))
    window.connect("destroy", Gtk.main_quit)

    def rename() -> bool:
        window.set_title(title)
        print(f"renamed={title}", flush=True)
        return False

    window.connect("map-event", lambda *_: GLib.timeout_add(delay_ms, rename) and False)
    window.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
