"""A Tk window that is one entry, and says what a click selected in it.

Tk has no AT-SPI bridge: an agent reaches it in visual mode (a screenshot, x/y). A
double-click selects a word, a triple-click the whole line; after each click's release
(the last of a multi-click's) the fixture prints ``selected=<text>`` (empty when nothing
is selected).

Run with Debian's python3 (python3-tk): ``/usr/bin/python3 tests/apps/tk_entry.py``.
"""

from __future__ import annotations

import sys
import tkinter

LINE = "alpha beta gamma delta"


def main() -> None:
    root = tkinter.Tk()
    root.title("Tk entry")
    entry = tkinter.Entry(root, font=("DejaVu Sans", 14), width=30)
    entry.insert(0, LINE)
    entry.pack(fill="both", expand=True, ipady=20)

    def report() -> None:
        selected = entry.selection_get() if entry.selection_present() else ""
        print(f"selected={selected}", flush=True)

    pending: list[str] = []

    def released(_event: object) -> None:
        # once the releases of one click are over: Tk's own bindings have selected by then
        while pending:
            root.after_cancel(pending.pop())
        pending.append(root.after(300, report))

    entry.bind("<ButtonRelease-1>", released, add="+")
    root.after(0, lambda: print("ready", flush=True))
    sys.exit(root.mainloop())


if __name__ == "__main__":
    main()
