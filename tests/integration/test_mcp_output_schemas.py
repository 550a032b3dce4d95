"""MCP metadata through the official client: annotations, output schemas, and real results.

Every tool the server lists carries annotations and an ``outputSchema``; a
session of real calls (a zenity dialog on the private desktop, our web form
in headless Chromium) reaches every tool and the results' several shapes (a
verified act, a failed check, a closed window, a timed-out wait, an ``@o``
page), and each ``structuredContent`` is validated against its tool's
schema here, not only by the client.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import jsonschema
import mcp_types as types
from computer_helpers import assert_alive
from test_browser_tools import FORM_URL, _no_desktop_env

from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent, connect
from actui.tools.catalog import BY_NAME, TOOL_NAMES


class Recorder(Agent):
    """An agent that keeps every result it got, by tool."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent.session)
        self.results: list[tuple[str, types.CallToolResult]] = []

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        result = await super().call(tool, arguments)
        self.results.append((tool, result))
        return result


async def _desktop_calls(agent: Recorder, sandbox: Sandbox) -> None:
    dialog = await sandbox.launch(
        ["zenity", "--entry", "--title=schema test", "--text=Type:"],
        stdout=asyncio.subprocess.PIPE,
    )
    await sandbox.wait_for_app(dialog.pid)
    roots = await agent.details("find_roots", {"text": "schema test"})
    state = (await agent.details("observe_ui", {"root": roots["windows"][0]["windowRef"]}))[
        "stateId"
    ]
    found = await agent.details("search_ui", {"stateId": state, "role": "textbox"})
    entry = found["matches"][0]["ref"]
    ok = await agent.find_ref(state, "OK", "button")
    await agent.details("inspect_ui", {"stateId": state, "ref": entry})
    await agent.details("expand_ui", {"stateId": state, "ref": "@e1", "depth": 2})
    typed = await agent.details(
        "act_ui",
        {
            "stateId": state,
            "actions": [{"action": "setText", "ref": entry, "text": "schema"}],
            "expect": {"ref": entry, "value": "schema"},
        },
    )
    assert typed["execution"]["verification"]["status"] == "verified"
    state = typed["stateId"]
    missed = await agent.details(
        "act_ui",
        {
            "stateId": state,
            "actions": [{"action": "focus", "ref": entry}],
            "expect": {"text": "never shown here", "timeoutMs": 200},
        },
    )
    assert missed["error"]["code"] == "postcondition_failed"
    state = missed["stateId"]
    read = await agent.details("read_text", {"stateId": state, "ref": entry})
    assert read["text"] == "schema"
    waited = await agent.details("wait_for", {"stateId": state, "text": "OK"})
    late = await agent.details(
        "wait_for", {"stateId": waited["stateId"], "text": "not coming", "timeoutMs": 200}
    )
    assert late["timedOut"] is True
    assert_alive(dialog.pid)
    closed = await agent.details(
        "act_ui", {"stateId": late["stateId"], "actions": [{"action": "press", "ref": ok}]}
    )
    assert closed["status"] == "target_closed"
    out, _ = await asyncio.wait_for(dialog.communicate(), timeout=10)
    assert out.decode().strip() == "schema"


async def _browser_calls(agent: Recorder) -> None:
    state = (await agent.details("launch_browser", {"url": FORM_URL}))["stateId"]
    state = (await agent.details("navigate_browser", {"stateId": state, "url": FORM_URL}))[
        "stateId"
    ]
    long = await agent.call(
        "evaluate_browser", {"stateId": state, "expression": "'x'.repeat(60000)"}
    )
    assert not long.is_error, Agent.text(long)
    continued = re.search(r"@o\d+", Agent.text(long))
    assert continued, "a 60 kB value is continued by an @o ref"
    page = await agent.details("read_text", {"ref": continued.group(0)})
    assert page["hasMore"] and page["totalBytes"] > 60_000
    state = long.structured_content["stateId"]  # type: ignore[index]
    title = await agent.details(
        "evaluate_browser", {"stateId": state, "expression": "document.title"}
    )
    assert title["exception"] is None


async def test_every_result_validates_against_its_tools_output_schema(sandbox: Sandbox) -> None:
    async with connect(sandbox.env) as session:
        listed = await session.session.list_tools()
        agent = Recorder(session)
        await _desktop_calls(agent, sandbox)
        await _browser_calls(agent)
    tools = {tool.name: tool for tool in listed.tools}
    assert list(tools) == list(TOOL_NAMES)
    for name, tool in tools.items():
        assert tool.annotations is not None and tool.annotations.read_only_hint is not None, name
        assert tool.output_schema == BY_NAME[name].result, name
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    checked = set()
    for name, result in agent.results:
        if result.is_error:
            continue
        schema = tools[name].output_schema
        assert schema is not None
        jsonschema.validate(result.structured_content, schema)
        checked.add(name)
    assert checked == set(TOOL_NAMES)


async def test_without_structured_content_no_schema_is_listed_and_calls_succeed() -> None:
    env = {**_no_desktop_env(), "ACTUI_STRUCTURED_CONTENT": "false"}
    async with connect(env) as agent:
        listed = await agent.session.list_tools()
        launched = await agent.call("launch_browser", {"url": FORM_URL})
    assert not any(tool.output_schema for tool in listed.tools)
    assert not launched.is_error and launched.structured_content is None
    assert "stateId" in Agent.text(launched)
