"""The tools: their contract, dispatch, the ``act_ui`` transaction and the one foreground
retry.

Imports ``actui.results``, ``actui.runtime``, ``actui.outline`` and the backend seam;
nothing below imports this package.
"""
