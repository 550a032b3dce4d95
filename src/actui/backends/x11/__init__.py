"""The X11 half of the Linux desktop backend: windows, pixels and physical input."""
