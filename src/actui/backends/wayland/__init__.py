"""The Wayland half of the Linux desktop backend on sway and on a headless gnome-shell."""
