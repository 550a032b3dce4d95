"""The platform backends: the seam they share (``base``, ``browsing``), the registry
that picks them (``registry``), and each platform's package below it."""
