"""A GTK 3 window whose app-controlled text is hostile: a title and a name that forge lines.

Run with Debian's ``/usr/bin/python3`` (python3-gi) in the sandbox environment:
``gtk_hostile.py TITLE [--churn KB]``. The window is titled TITLE (newlines and
all) and holds a button "Ready" described by TITLE, a label named like the title and a
text view holding TITLE. With
``--churn KB`` a second button's accessible name is KB kilobytes long and
changes every 20 ms (a counter in front), as a log view or a ticker would,
without the cost of laying the text out. Prints ``ready`` once shown.
"""

from __future__ import annotations

import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def main() -> int:
    title = sys.argv[1]
    churn_kb = int(sys.argv[sys.argv.index("--churn") + 1]) if "--churn" in sys.argv else 0
    window = Gtk.Window(title=title)
    window.set_default_size(320, 160)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    ready = Gtk.Button(label="Ready")
    ready.get_accessible().set_description(title)
    box.add(ready)
    label = Gtk.Label(label="status")
    label.get_accessible().set_name(title)
    box.add(label)
    view = Gtk.TextView()
    view.get_buffer().set_text(title)
    box.add(view)
    if churn_kb:
        ticker = Gtk.Button(label="ticker")
        filler = "x" * (churn_kb * 1024)
        count = [0]

        def churn() -> bool:
            count[0] += 1
            ticker.get_accessible().set_name(f"{count[0]} {filler}")
            return True

        churn()
        GLib.timeout_add(20, churn)
        box.add(ticker)
    window.add(box)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    print("ready", flush=True)
    Gtk.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
