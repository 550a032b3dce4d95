"""Chromium pages over the DevTools protocol (see ``backend.CdpBackend``)."""

from actui.backends.cdp.backend import CdpBackend

__all__ = ["CdpBackend"]
