"""Chromium pages over the DevTools protocol (see ``backend.CdpBackend``)."""

from actui.backends.cdp.backend import CdpBackend, EvalResult

__all__ = ["CdpBackend", "EvalResult"]
