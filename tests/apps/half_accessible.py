"""A GTK 3 app with one accessible window and one bare drawing window (a GdkWindow with no
widget, so no accessible object): the second is on screen but never on AT-SPI."""

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

window = Gtk.Window(title="Accessible half")
window.add(Gtk.Button(label="Press me"))
window.connect("destroy", Gtk.main_quit)
window.show_all()
attributes = Gdk.WindowAttr()
attributes.window_type = Gdk.WindowType.TOPLEVEL
attributes.wclass = Gdk.WindowWindowClass.INPUT_OUTPUT
attributes.width, attributes.height = 300, 200
attributes.title = "Raw canvas"
canvas = Gdk.Window.new(None, attributes, Gdk.WindowAttributesType.TITLE)
canvas.show()
Gtk.main()
