"""A session's runtime: observe, save, wait and reach; resource lanes, saved states, the
roots seen and root deltas.

Never imports ``actui.results`` or ``actui.tools``.
"""
