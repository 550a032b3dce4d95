"""Fuzzing every tool through a real MCP client: no crash, no hang, bounded output,
and every contract error names the field it is about."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actui.contract import TOOL_NAMES
from actui.demo import Agent, connect
from actui.sandbox import Sandbox

MAX_BYTES = 48 * 1024 + 1024  # the visible limit plus the continuation trailer
MAX_LINES = 2_000 + 4
FIELD = re.compile(r"^[A-Za-z_][\w]*(\[\d+\])?(\.[A-Za-z_]\w*(\[\d+\])?)*: ")

_text = st.text(max_size=40) | st.sampled_from(["", " ", "OK", "@e1", "@r1", "ü" * 300])
_any = st.none() | st.booleans() | st.integers(-5, 100_000) | _text | st.floats(allow_nan=True)
_ref = st.sampled_from(["@e1", "@e2", "@e5", "@e999", "@r1", "e1", "", "@o1"]) | _text
_small_timeout = st.integers(-10, 300)


def _condition() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "ref": _ref,
            "scopeRef": _ref,
            "scopeExact": st.booleans(),
            "text": _text,
            "role": st.sampled_from(["button", "push button", "textbox", "label"]) | _text,
            "value": _text,
            "until": st.sampled_from(["present", "absent", "maybe"]),
            "gone": st.booleans(),
            "timeoutMs": _small_timeout,
            "bogus": _any,
        },
    )


_action = st.fixed_dictionaries(
    {
        "action": st.sampled_from(
            [
                "press",
                "click",
                "toggle",
                "setText",
                "typeText",
                "keypress",
                "focus",
                "scroll",
                "wait",
                "drag",
                "moveMouse",
                "explode",
            ]
        )
    },
    optional={
        "ref": _ref,
        "x": st.integers(-10, 3000) | st.floats(allow_nan=True),
        "y": st.integers(-10, 3000),
        "text": _text,
        "keys": st.lists(_text, max_size=3),
        "clickCount": st.integers(-1, 5),
        "scrollY": st.integers(-20, 20),
        "ms": st.integers(-5, 200),
        "until": _condition(),
        "path": st.lists(st.fixed_dictionaries({"x": st.integers(0, 50), "y": st.integers(0, 50)})),
    },
)


def _arguments(state: str) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    state_ids = st.sampled_from([state, "not-a-state", ""]) | _text
    per_tool: dict[str, st.SearchStrategy[dict[str, Any]]] = {
        "find_roots": st.fixed_dictionaries(
            {}, optional={"text": _text, "app": _text, "pid": _any, "kind": _text}
        ),
        "observe_ui": st.fixed_dictionaries(
            {}, optional={"root": _ref, "mode": st.sampled_from(["semantic", "x"])}
        ),
        "search_ui": st.fixed_dictionaries(
            {"stateId": state_ids}, optional={"text": _text, "role": _text, "capability": _text}
        ),
        "expand_ui": st.fixed_dictionaries(
            {"stateId": state_ids, "ref": _ref}, optional={"depth": _any}
        ),
        "inspect_ui": st.fixed_dictionaries({"stateId": state_ids, "ref": _ref}),
        "act_ui": st.fixed_dictionaries(
            {"stateId": state_ids, "actions": st.lists(_action, max_size=3)},
            optional={"expect": _condition(), "require": _condition()},
        ),
        "read_text": st.fixed_dictionaries(
            {"ref": _ref}, optional={"stateId": state_ids, "offset": _any}
        ),
        "wait_for": _condition().map(lambda c: c) | st.just({}),
        "launch_browser": st.fixed_dictionaries(
            {}, optional={"url": st.just("ftp://nope") | _text}
        ),
        "navigate_browser": st.fixed_dictionaries({"stateId": state_ids, "url": _text}),
        "evaluate_browser": st.fixed_dictionaries({"stateId": state_ids, "expression": _text}),
    }
    wait_for = per_tool["wait_for"]
    per_tool["wait_for"] = wait_for.flatmap(lambda c: state_ids.map(lambda s: {**c, "stateId": s}))
    return st.sampled_from(TOOL_NAMES).flatmap(
        lambda name: per_tool[name].map(lambda args: (name, args))
    )


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
        max_examples=120,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=True,
    )
    @given(call=_arguments(session.state))
    def check(call: tuple[str, dict[str, Any]]) -> None:
        tool, arguments = call

        async def send() -> Any:
            return await asyncio.wait_for(
                session.agent.session.call_tool(tool, arguments, read_timeout_seconds=30), 40
            )

        result = session.portal.call(send)
        text = Agent.text(result)
        assert len(text.encode()) <= MAX_BYTES, (tool, arguments)
        assert text.count("\n") + 1 <= MAX_LINES, (tool, arguments)
        if result.is_error:
            assert text.startswith(f"{tool} failed: "), text
            error = (result.structured_content or {}).get("error", {})
            if error.get("code") == "invalid_params":
                assert FIELD.match(text.removeprefix(f"{tool} failed: ")), text

    check()
    # After all that, the server still answers a plain call.
    listed = session.portal.call(session.agent.session.list_tools)
    assert [t.name for t in listed.tools] == list(TOOL_NAMES)
