"""A GTK 3 window holding a TreeView of N rows × 3 columns (N from argv, 100,000 by default).

Run with Debian's python3 (python3-gi): ``/usr/bin/python3 tests/apps/gtk3_big_list.py 100000
[before|attached|after]`` (when the rows are made: ``FILLS``).
Row ``i`` (from 1) reads ``Row i``, ``Item i`` and ``i*7 % 1000``. Each time the selection
changes it prints ``selected=Row i`` on stdout (flushed), so a test reads back what a
selection did. Big lists are where a look must cost what is on screen, not what exists.
"""

from __future__ import annotations

import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

DEFAULT_ROWS = 100_000


FILLS = ("before", "attached", "after")
"""When the rows are made: before the model is given to the view (the default), after it is
(each row inserted into a shown model), or once the window shows (in idle time)."""


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ROWS
    fill = sys.argv[2] if len(sys.argv) > 2 else FILLS[0]
    assert fill in FILLS, f"the fill is one of {FILLS}"
    store = Gtk.ListStore(str, str, str)

    def filled() -> bool:
        for i in range(1, rows + 1):
            store.append((f"Row {i}", f"Item {i}", str(i * 7 % 1000)))
        return False

    if fill == "before":
        filled()
    view = Gtk.TreeView(model=store)
    if fill == "attached":
        filled()
    for column, title in enumerate(("Name", "Item", "Value")):
        view.append_column(Gtk.TreeViewColumn(title, Gtk.CellRendererText(), text=column))

    def changed(selection: Gtk.TreeSelection) -> None:
        model, chosen = selection.get_selected()
        if chosen is not None:
            print(f"selected={model[chosen][0]}", flush=True)

    view.get_selection().connect("changed", changed)
    scrolled = Gtk.ScrolledWindow()
    scrolled.add(view)
    window = Gtk.Window(title=f"Big list {rows}")
    window.set_default_size(420, 560)
    window.add(scrolled)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    if fill == "after":
        GLib.idle_add(filled)
    Gtk.main()


if __name__ == "__main__":
    main()
