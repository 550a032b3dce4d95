"""Fuzzing every tool through a real MCP client: no crash, no hang, bounded output,
and every contract error names the field it is about."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings

from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent, connect
from actui.tools.catalog import TOOL_NAMES
from tool_calls import check_answer, tool_calls

FUZZ_CALLS = int(os.environ.get("ACTUI_FUZZ_CALLS", "500"))
"""Calls through MCP on a real app per run (the model-app fuzz in tests/unit makes thousands)."""


class Session:
    def __init__(self, portal: BlockingPortal, agent: Agent, state: str) -> None:
        self.portal, self.agent, self.state = portal, agent, state


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with (
        start_blocking_portal(backend="asyncio") as portal,
        portal.wrap_async_context_manager(Sandbox()) as desktop,
    ):
        dialog = portal.call(
            desktop.launch, ["zenity", "--entry", "--title=fuzz target", "--text=Fuzz:"]
        )
        portal.call(desktop.wait_for_app, dialog.pid)
        with portal.wrap_async_context_manager(connect(desktop.env)) as agent:

            async def observe() -> str:
                roots = await agent.details("find_roots", {"text": "fuzz target"})
                ref = roots["windows"][0]["windowRef"]
                observed = await agent.details("observe_ui", {"root": ref, "mode": "semantic"})
                return str(observed["stateId"])

            yield Session(portal, agent, portal.call(observe))


def test_fuzzed_arguments_never_crash_hang_or_overflow(session: Session) -> None:
    @settings(
        max_examples=FUZZ_CALLS,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=True,
    )
    @given(call=tool_calls(session.state))
    def check(call: tuple[str, dict[str, Any]]) -> None:
        tool, arguments = call

        async def send() -> Any:
            return await asyncio.wait_for(
                session.agent.session.call_tool(tool, arguments, read_timeout_seconds=30), 40
            )

        result = session.portal.call(send)
        details = result.structured_content or {}
        check_answer(tool, arguments, Agent.text(result), bool(result.is_error), details)

    check()
    # After all that, the server still answers a plain call.
    listed = session.portal.call(session.agent.session.list_tools)
    assert [t.name for t in listed.tools] == list(TOOL_NAMES)
