"""The wire faces: the ``actui`` command, the demo, MCP over stdio and Streamable HTTP,
and the guard on the MCP server's stdin.

Each hands its calls to ``actui.tools``; nothing below imports this package.
"""
