"""actui: state-scoped observation and action on desktop and browser UIs for AI agents."""

__version__ = "0.1.0"

from actui.tool_result import ToolResult
from actui.tools import Computer

__all__ = ["Computer", "ToolResult", "__version__"]
