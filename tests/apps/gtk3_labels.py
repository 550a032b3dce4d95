"""A GTK 3 form whose fields have no names of their own: one is labelled only through a
mnemonic label far from it (the labelled-by relation), one only by the label beside it.

Run with Debian's python3 (python3-gi): ``/usr/bin/python3 tests/apps/gtk3_labels.py``.
Prints each field's text as ``name=value`` lines on stdout when Submit is pressed.
"""

from __future__ import annotations

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def main() -> None:
    window = Gtk.Window(title="Labels fixture")
    window.set_default_size(480, 240)
    grid = Gtk.Grid(row_spacing=12, column_spacing=12, margin=16)
    window.add(grid)

    email = Gtk.Entry()
    grid.attach(email, 1, 0, 1, 1)
    far = Gtk.Label.new_with_mnemonic("_Email address")
    far.set_mnemonic_widget(email)  # the relation is all that ties them: it sits two rows below
    grid.attach(far, 2, 2, 1, 1)

    grid.attach(Gtk.Label(label="Phone"), 0, 1, 1, 1)
    phone = Gtk.Entry()
    grid.attach(phone, 1, 1, 1, 1)

    submit = Gtk.Button(label="Submit")
    grid.attach(submit, 1, 3, 1, 1)

    def submitted(_button: Gtk.Button) -> None:
        print(f"email={email.get_text()}\nphone={phone.get_text()}", flush=True)
        Gtk.main_quit()

    submit.connect("clicked", submitted)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
