"""The Linux desktop platform: the backend that combines AT-SPI with X11, sway or a
headless gnome-shell (``backend``; ``physical`` picks the display's side), the
private desktop it can run in (``sandbox``, its compositors on Wayland
``compositor`` and ``gnome_shell``, its command
``sandbox_cli`` and its reaper ``sandbox_reaper``), the toolkit bridges its
apps are given (``bridges``) and the probe of the desktop stack (``doctor``).

Nothing is imported here, so the sandbox's reaper and command start without
loading the accessibility stack.
"""
