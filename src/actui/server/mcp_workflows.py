"""``actui mcp --workflows DIR``: each recorded workflow there as one MCP tool, ``run_<name>``.

An agent that solved a task once calls its workflow the next time in one
call: the tool's parameters are the workflow's variables (a secret one
required), its result the replay's summary, with the step reached and the
divergence as structured content (``tools.replaying.REPLAYED_SCHEMA``). The
replay runs on the session's own ``ToolBox``, so its states and refs are
the session's like any other call's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import mcp_types as types

from actui.errors import ActuiError, InvalidParams
from actui.tools.dispatch import ToolBox
from actui.tools.replaying import replay, tool_spec
from actui.tools.workflow import Workflow, load, tool_name

SUFFIX = ".workflow.json"


def load_workflows(directory: Path) -> dict[str, Workflow]:
    """The workflows of ``directory`` by tool name; a bad file, or two of one name, is
    an ``InvalidParams`` naming it."""
    if not directory.is_dir():
        raise InvalidParams("--workflows", f"{directory} is not a directory.")
    found: dict[str, Workflow] = {}
    where: dict[str, Path] = {}
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        workflow = load(path)
        name = tool_name(workflow)
        if name in found:
            raise InvalidParams(
                str(path),
                f"is named {workflow.name!r} like {where[name]}.",
                'Rename one ("name" in the file).',
            )
        found[name], where[name] = workflow, path
    return found


def tools(workflows: Mapping[str, Workflow]) -> list[types.Tool]:
    return [types.Tool.model_validate(tool_spec(w)) for w in workflows.values()]


async def call(
    computer: ToolBox, workflow: Workflow, arguments: Mapping[str, object]
) -> types.CallToolResult:
    """Replay ``workflow`` with ``arguments`` as its variables' values."""
    bad = [name for name, value in arguments.items() if not isinstance(value, str)]
    try:
        if bad:
            raise InvalidParams(bad[0], "must be a string.", "Variables are typed text.")
        given = {name: str(value) for name, value in arguments.items()}
        replayed = await replay(computer, workflow, given)
    except ActuiError as exc:
        text = f"{tool_name(workflow)} failed: {exc.message}"
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
    return types.CallToolResult(
        content=[types.TextContent(text=replayed.text())],
        structured_content=replayed.to_wire(),
        is_error=not replayed.ok,
    )
