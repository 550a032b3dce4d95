"""What a call returns: typed results, their text, their bounds and their output schemas.

Never imports ``actui.tools``; ``actui.runtime`` never imports this package.
"""
