"""The AT-SPI2 backend: desktop applications over the accessibility bus."""

from actui.backends.atspi.backend import AtspiBackend

__all__ = ["AtspiBackend"]
