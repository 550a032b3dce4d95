"""actui: state-scoped observation and action on desktop and browser UIs for AI agents."""

__version__ = "0.1.0"

from actui.api import Computer, Expect
from actui.results.tool_result import ToolResult

__all__ = ["Computer", "Expect", "ToolResult", "__version__"]
