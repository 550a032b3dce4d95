"""The catalog: every tool, in the order agents see them, and all that is derived from them.

Each tool is declared once, in its handler's module (a :class:`~actui.tools.contract.Tool`);
this module only lists the declarations, so adding a tool is its module and one line
here (``docs/contributing.md``). The MCP tool list, the exported OpenAI / Anthropic
function schemas, ``docs/tools.md`` and the dispatch read the tools from here.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Literal

from actui.backends.base import JsonObject
from actui.errors import InvalidParams
from actui.tools import browser, discovery, queries, transaction, waits
from actui.tools.contract import Params, Tool, input_schema, validate

TOOLS: tuple[Tool[Any], ...] = (
    discovery.FIND_ROOTS,
    discovery.OBSERVE_UI,
    queries.SEARCH_UI,
    queries.EXPAND_UI,
    queries.INSPECT_UI,
    transaction.ACT_UI,
    queries.READ_TEXT,
    waits.WAIT_FOR,
    browser.LAUNCH_BROWSER,
    browser.NAVIGATE_BROWSER,
    browser.EVALUATE_BROWSER,
)
BY_NAME: Mapping[str, Tool[Any]] = {tool.name: tool for tool in TOOLS}
TOOL_NAMES = tuple(BY_NAME)


def tool_named(name: str) -> Tool[Any]:
    """The tool called ``name``, or the InvalidParams an agent reads for a name it made up."""
    tool = BY_NAME.get(name)
    if tool is None:
        raise InvalidParams(
            "tool", f"unknown tool {name!r}.", f"Use one of: {', '.join(TOOL_NAMES)}."
        )
    return tool


def validate_call(name: str, arguments: Mapping[str, object] | None) -> Params:
    """A call's arguments checked against its tool's parameters (InvalidParams names the field)."""
    params: Params = validate(tool_named(name), arguments)
    return params


def export_schemas(fmt: Literal["mcp", "openai", "anthropic"]) -> list[JsonObject]:
    """Tool definitions in the shape each client family expects."""
    out: list[JsonObject] = []
    for tool in TOOLS:
        schema = input_schema(tool.params)
        if fmt == "mcp":
            out.append(
                {
                    "name": tool.name,
                    "description": tool.description,
                    "inputSchema": schema,
                    "outputSchema": tool.result,
                    "annotations": tool.hints.to_mcp(),
                }
            )
        elif fmt == "openai":
            out.append(
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": schema,
                    },
                }
            )
        else:
            out.append({"name": tool.name, "description": tool.description, "input_schema": schema})
    return copy.deepcopy(out)
