"""Thousands of random calls to every tool on a model app: never internal_error, always bounded.

The MCP fuzz on a real app (tests/integration/test_mcp_fuzz.py) makes a few hundred calls;
this one makes the thousands, in process, against the scripted backend of test_transaction.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from model_app import ModelApp, windows_of

from actui.results.observations import Observed
from actui.tools.catalog import TOOL_NAMES
from actui.tools.dispatch import ToolBox
from tool_calls import check_answer, tool_calls

FUZZ_CALLS = int(os.environ.get("ACTUI_FUZZ_CALLS", "2000"))


@pytest.fixture(scope="module")
def model() -> Iterator[tuple[asyncio.AbstractEventLoop, ToolBox, str]]:
    loop = asyncio.new_event_loop()
    env = {"ACTUI_HEADLESS": "1", "ACTUI_BROWSER_USE": "0", "XDG_CONFIG_HOME": "/nonexistent"}
    computer = ToolBox(env=env, desktop=ModelApp())
    roots = loop.run_until_complete(computer.call("find_roots", {}))
    ref = windows_of(roots)[0].ref
    observed = loop.run_until_complete(computer.call("observe_ui", {"root": ref}))
    assert isinstance(observed.value, Observed), observed.text
    yield loop, computer, observed.value.observation.state_id
    loop.run_until_complete(computer.close())
    loop.close()


@pytest.mark.slow
def test_every_tool_answers_any_input_without_an_internal_error(
    model: tuple[asyncio.AbstractEventLoop, ToolBox, str],
) -> None:
    loop, computer, state = model

    @settings(
        max_examples=FUZZ_CALLS,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=True,
    )
    @given(call=tool_calls(state))
    def check(call: tuple[str, dict[str, Any]]) -> None:
        tool, arguments = call
        result = loop.run_until_complete(asyncio.wait_for(computer.call(tool, arguments), 30))
        check_answer(tool, arguments, result.text, result.is_error, result.details)

    check()
    listed = loop.run_until_complete(computer.call("find_roots", {}))
    assert not listed.is_error and set(TOOL_NAMES) >= {"find_roots"}
