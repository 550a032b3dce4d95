"""``make demo``: an agent's session, end to end, on a private desktop.

Starts a sandbox with gnome-calculator and a zenity entry dialog, starts
``actui mcp`` as a real MCP server over stdio, and drives both apps through a
real MCP client exactly as an agent would: find the window, observe, search,
act with a postcondition. It prints every call and the text the agent sees,
and exits 0 only if the calculator showed 42 and zenity returned the phrase.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from actui.backends.base import JsonObject
from actui.backends.registry import PrivateDesktop as Sandbox

PHRASE = "actui was here"


class Agent:
    """Calls tools through an MCP session and prints what an agent would see."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    @staticmethod
    def text(result: types.CallToolResult) -> str:
        return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))

    async def call(self, tool: str, arguments: JsonObject) -> types.CallToolResult:
        print(f"\n>>> {tool} {json.dumps(arguments, ensure_ascii=False)}")
        result = await self.session.call_tool(tool, arguments, read_timeout_seconds=60)
        print(self.text(result))
        if result.is_error:
            print("(the tool reported an error)")
        return result

    async def details(self, tool: str, arguments: JsonObject) -> JsonObject:
        """The result's ``structuredContent`` (its shape: ``actui.results.schemas``)."""
        result = await self.call(tool, arguments)
        if result.is_error or not isinstance(result.structured_content, dict):
            raise RuntimeError(f"{tool} failed: {self.text(result)}")
        return result.structured_content

    async def find_ref(self, state: str, text: str, role: str) -> str:
        found: Any = await self.details("search_ui", {"stateId": state, "text": text, "role": role})
        matches = found["matches"]
        if not matches:
            raise RuntimeError(f"no {role} {text!r} found")
        return str(matches[0]["ref"])


async def _calculator(agent: Agent) -> bool:
    # the wire's JSON, read as any MCP client reads it (untyped)
    roots: Any = await agent.details("find_roots", {"text": "calculator"})
    root = roots["windows"][0]["windowRef"]
    observed: Any = await agent.details("observe_ui", {"root": root, "mode": "semantic"})
    state = observed["stateId"]
    steps: list[object] = [
        {"action": "press", "ref": await agent.find_ref(state, key, "button")}
        for key in ("1", "2", "+", "3", "0", "=")
    ]
    act: Any = await agent.details(
        "act_ui", {"stateId": state, "actions": steps, "expect": {"text": "42", "timeoutMs": 5000}}
    )
    verification = act["execution"]["verification"] or {}
    new_state = act["stateId"]
    display: Any = await agent.details("search_ui", {"stateId": new_state, "text": "42"})
    shown = [m["label"] for m in display["matches"]]
    ok = act["outcome"] == "worked" and verification.get("status") == "verified"
    print(
        f"\n== calculator: outcome {act['outcome']}, check {verification.get('status')}, "
        f"display shows {shown}"
    )
    return ok and any("42" in label for label in shown)


async def _zenity(agent: Agent) -> bool:
    roots: Any = await agent.details("find_roots", {"text": "actui demo"})
    root = roots["windows"][0]["windowRef"]
    observed: Any = await agent.details("observe_ui", {"root": root, "mode": "semantic"})
    state = observed["stateId"]
    found: Any = await agent.details("search_ui", {"stateId": state, "role": "textbox"})
    entry = found["matches"][0]["ref"]
    ok_button = await agent.find_ref(state, "OK", "button")
    act: Any = await agent.details(
        "act_ui",
        {
            "stateId": state,
            "actions": [
                {"action": "setText", "ref": entry, "text": PHRASE},
                {"action": "press", "ref": ok_button},
            ],
        },
    )
    return bool(act["outcome"] in ("worked", "unknown"))


@asynccontextmanager
async def connect(env: Mapping[str, str], *flags: str) -> AsyncIterator[Agent]:
    """Start ``actui mcp`` (with ``flags``) with ``env`` and yield an initialized client agent."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "actui.server.cli", "mcp", *flags], env=dict(env)
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield Agent(session)


async def run_demo() -> int:
    async with Sandbox() as desktop:
        print(f"private desktop {desktop.display} ready in {desktop.startup_s:.2f} s")
        calculator = await desktop.launch(["gnome-calculator"])
        dialog = await desktop.launch(
            ["zenity", "--entry", "--title=actui demo", "--text=Say something:"],
            stdout=asyncio.subprocess.PIPE,
        )
        await desktop.wait_for_app(calculator.pid)
        await desktop.wait_for_app(dialog.pid)
        async with connect(desktop.env) as agent:
            calc_ok = await _calculator(agent)
            await _zenity(agent)
        assert dialog.stdout is not None
        out, _ = await asyncio.wait_for(dialog.communicate(), timeout=10)
        said = out.decode().strip()
        print(f"\n== zenity wrote to stdout: {said!r}")
        zenity_ok = said == PHRASE
        print(
            f"\n== demo {'PASSED' if calc_ok and zenity_ok else 'FAILED'}: "
            f"calculator 42 {'yes' if calc_ok else 'no'}, zenity phrase "
            f"{'yes' if zenity_ok else 'no'}"
        )
        return 0 if calc_ok and zenity_ok else 1


def main() -> int:
    return asyncio.run(run_demo())
