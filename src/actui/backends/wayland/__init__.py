"""The Wayland half of the Linux desktop backend on sway: windows, pixels and physical input."""
