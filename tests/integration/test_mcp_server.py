"""The MCP server end to end: a real MCP client over stdio, real apps, a private desktop."""

from __future__ import annotations

import asyncio
from typing import Any

from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent, connect
from actui.tools.catalog import TOOL_NAMES


async def _observe(agent: Agent, text: str) -> tuple[str, dict[str, Any]]:
    roots = await agent.details("find_roots", {"text": text})
    assert roots["windows"], f"no root matching {text!r}"
    observed = await agent.details(
        "observe_ui", {"root": roots["windows"][0]["windowRef"], "mode": "semantic"}
    )
    return observed["stateId"], observed


async def _only_match(agent: Agent, state: str, **query: str) -> str:
    found = await agent.details("search_ui", {"stateId": state, **query})
    assert found["matches"], f"nothing matches {query}"
    return str(found["matches"][0]["ref"])


async def _entry_dialog(sandbox: Sandbox, title: str) -> asyncio.subprocess.Process:
    dialog = await sandbox.launch(
        ["zenity", "--entry", f"--title={title}", "--text=Type:"],
        stdout=asyncio.subprocess.PIPE,
    )
    await sandbox.wait_for_app(dialog.pid)
    return dialog


async def test_tool_list_is_exactly_the_eleven_tools_in_order(sandbox: Sandbox) -> None:
    async with connect(sandbox.env) as agent:
        listed = await agent.session.list_tools()
    assert [tool.name for tool in listed.tools] == list(TOOL_NAMES)
    for tool in listed.tools:
        assert "prefixItems" not in str(tool.input_schema)
    hints = {tool.name: tool.annotations for tool in listed.tools}
    readers = {name for name, hint in hints.items() if hint and hint.read_only_hint}
    assert readers == {
        "find_roots", "observe_ui", "search_ui", "expand_ui", "inspect_ui", "read_text", "wait_for"
    }  # fmt: skip
    act = hints["act_ui"]
    assert act is not None and act.destructive_hint and not act.idempotent_hint


async def test_calculator_shows_42_after_pressing_keys_with_a_verified_expect(
    sandbox: Sandbox,
) -> None:
    calculator = await sandbox.launch(["gnome-calculator"])
    await sandbox.wait_for_app(calculator.pid)
    async with connect(sandbox.env) as agent:
        state, _ = await _observe(agent, "calculator")
        steps = [
            {"action": "press", "ref": await _only_match(agent, state, text=key, role="button")}
            for key in ("1", "2", "+", "3", "0", "=")
        ]
        act = await agent.details(
            "act_ui", {"stateId": state, "actions": steps, "expect": {"text": "42"}}
        )
        assert act["outcome"] == "worked"
        assert act["execution"]["verification"]["status"] == "verified"
        assert act["execution"]["stoppedAt"] is None
        # Read the display back live: the calculator's editable expression view.
        display = await _only_match(agent, act["stateId"], role="textbox")
        read = await agent.details("read_text", {"stateId": act["stateId"], "ref": display})
        assert read["text"].strip() == "42"


async def test_zenity_returns_the_phrase_set_through_mcp(sandbox: Sandbox) -> None:
    dialog = await _entry_dialog(sandbox, "phrase test")
    async with connect(sandbox.env) as agent:
        state, _ = await _observe(agent, "phrase test")
        entry = await _only_match(agent, state, role="textbox")
        ok = await _only_match(agent, state, text="OK", role="button")
        act = await agent.details(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {"action": "setText", "ref": entry, "text": "hello from mcp"},
                    {"action": "press", "ref": ok},
                ],
            },
        )
        assert act["status"] == "target_closed"
        assert act["execution"]["steps"][0]["outcome"] == "worked"
    out, _ = await asyncio.wait_for(dialog.communicate(), timeout=10)
    assert out.decode().strip() == "hello from mcp"
    assert dialog.returncode == 0


async def test_two_writes_from_one_state_deliver_exactly_one(sandbox: Sandbox) -> None:
    await _entry_dialog(sandbox, "stale test")
    async with connect(sandbox.env) as agent:
        state, _ = await _observe(agent, "stale test")
        entry = await _only_match(agent, state, role="textbox")

        def write(text: str) -> dict[str, Any]:
            return {
                "stateId": state,
                "actions": [{"action": "setText", "ref": entry, "text": text}],
            }

        first, second = await asyncio.gather(
            agent.call("act_ui", write("first")), agent.call("act_ui", write("second"))
        )
        results = [first, second]
        errors = [r for r in results if r.is_error]
        delivered = [r for r in results if not r.is_error]
        assert len(errors) == 1 and len(delivered) == 1
        message = Agent.text(errors[0])
        assert "stale" in message and "observe_ui" in message and "newest stateId" in message
        winner = "first" if delivered[0] is first else "second"
        newest = delivered[0].structured_content["stateId"]  # type: ignore[index]
        read = await agent.details("read_text", {"stateId": newest, "ref": entry})
        assert read["text"] == winner


BAD_INPUT: list[tuple[str, dict[str, Any], str]] = [
    ("observe_ui", {"root": "@r1", "colour": "red"}, "colour"),
    ("observe_ui", {"root": "r1"}, "root"),
    ("search_ui", {"text": "OK"}, "stateId"),
    ("search_ui", {"stateId": "no-such-state", "text": "OK"}, "stateId"),
    ("inspect_ui", {"stateId": "STATE", "ref": "@e9999"}, "ref"),
    (
        "act_ui",
        {
            "stateId": "STATE",
            "actions": [{"action": "press", "ref": "@e1"}],
            "expect": {"role": "button"},
        },
        "expect",
    ),
    ("act_ui", {"stateId": "STATE", "actions": [{"action": "press"}]}, "actions[0]"),
    ("act_ui", {"stateId": "STATE", "actions": []}, "actions"),
    (
        "act_ui",
        {"stateId": "STATE", "actions": [{"action": "press", "ref": "@e999"}]},
        "actions[0].ref",
    ),
    ("wait_for", {"stateId": "STATE", "text": "x", "gone": True, "until": "present"}, "gone"),
    ("no_such_tool", {}, "tool"),
]


async def test_bad_input_gets_an_error_naming_the_field_and_the_server_keeps_serving(
    sandbox: Sandbox,
) -> None:
    await _entry_dialog(sandbox, "bad input")
    async with connect(sandbox.env) as agent:
        state, _ = await _observe(agent, "bad input")
        for tool, arguments, field in BAD_INPUT:
            sent = {k: (state if v == "STATE" else v) for k, v in arguments.items()}
            result = await agent.call(tool, sent)
            assert result.is_error, (tool, sent)
            message = Agent.text(result).split(" failed: ", 1)[1]
            assert message.startswith(field), (tool, sent, message)
        # The server is still serving: a valid call on the same state works.
        again = await agent.details("inspect_ui", {"stateId": state, "ref": "@e1"})
        assert again["target"]["ref"] == "@e1"
