"""The tools are declarations in one catalog, and ``ToolBox`` shows the tools, not its parts."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from model_app import ModelApp, windows_of

from actui.results.bounds import OutputStore, bound_details
from actui.results.observations import (
    ElementText,
    Expanded,
    Inspected,
    Observed,
    ToolError,
    WaitReport,
)
from actui.results.rendering import Renderer
from actui.results.typed import Execution, Found, RootsFound
from actui.runtime.deltas import Announced
from actui.runtime.observer import Observer
from actui.runtime.roots import RootRegistry
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import StateStore
from actui.tools.catalog import TOOL_NAMES, TOOLS
from actui.tools.dispatch import ToolBox
from actui.tools.session import Session

PARTS = (Observer, Renderer, Scheduler, StateStore, RootRegistry, Announced, OutputStore)
MEANT = {"close", "config", "state", "backends"}
"""Names a part has that ``ToolBox`` offers on purpose: its lifetime, its configuration,
a saved state by id, and the backends it drives."""


def _public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def test_every_tool_is_declared_with_its_handler_and_one_name() -> None:
    assert len(set(TOOL_NAMES)) == len(TOOLS)
    assert all(callable(tool.handler) for tool in TOOLS)


async def test_the_tool_box_offers_calls_and_hides_the_session_s_parts() -> None:
    offered = _public(ToolBox)
    assert {"call", "run"} <= offered
    internals = {name for part in PARTS for name in _public(part)}
    internals |= {f.name for f in fields(Session)} | {"save", "diff_text", "scheduler"}
    leaked = (offered & internals) - MEANT
    assert not leaked, f"ToolBox shows its parts' internals: {sorted(leaked)}"
    computer = ToolBox(env={"XDG_CONFIG_HOME": "/nonexistent"}, desktop=ModelApp())
    seen = {name for name in vars(computer) if not name.startswith("_")}
    await computer.close()
    assert not seen, f"instance attributes leak the session's parts: {seen}"


async def test_an_unknown_tool_is_refused_by_the_contract_before_any_handler() -> None:
    computer = ToolBox(env={"XDG_CONFIG_HOME": "/nonexistent"}, desktop=ModelApp())
    try:
        result = await computer.call("observe_everything", {})
    finally:
        await computer.close()
    assert result.is_error and isinstance(result.value, ToolError), result.text
    assert result.value.code == "invalid_params"
    assert "unknown tool 'observe_everything'" in result.text


KINDS: dict[str, type] = {
    "find_roots": RootsFound,
    "observe_ui": Observed,
    "search_ui": Found,
    "expand_ui": Expanded,
    "inspect_ui": Inspected,
    "read_text": ElementText,
    "wait_for": WaitReport,
    "act_ui": Execution,
    "launch_browser": ToolError,
    "navigate_browser": ToolError,
    "evaluate_browser": ToolError,
}
"""The typed value each tool's result carries on the model app (browser use is off
there, so the browser tools answer with their typed error)."""


async def test_every_handler_returns_a_typed_value_whose_wire_form_is_its_details() -> None:
    env = {"ACTUI_HEADLESS": "1", "ACTUI_BROWSER_USE": "0", "XDG_CONFIG_HOME": "/nonexistent"}
    computer = ToolBox(env=env, desktop=ModelApp())
    try:
        roots = await computer.call("find_roots", {})
        ref = windows_of(roots)[0].ref
        observed = await computer.call("observe_ui", {"root": ref})
        assert isinstance(observed.value, Observed), observed.text
        state = observed.value.observation.state_id
        entry = "@e2"
        calls: dict[str, dict[str, Any]] = {
            "find_roots": {},
            "observe_ui": {"root": ref},
            "search_ui": {"stateId": state, "text": "Name"},
            "expand_ui": {"stateId": state, "ref": "@e1"},
            "inspect_ui": {"stateId": state, "ref": entry},
            "read_text": {"stateId": state, "ref": entry},
            "wait_for": {"stateId": state, "text": "start", "timeoutMs": 500},
            "launch_browser": {},
            "navigate_browser": {"stateId": state, "url": "about:blank"},
            "evaluate_browser": {"stateId": state, "expression": "1"},
            "act_ui": {
                "stateId": state,
                "actions": [{"action": "setText", "ref": entry, "text": "x"}],
            },
        }
        assert set(calls) == set(TOOL_NAMES)
        for tool, arguments in calls.items():
            result = await computer.call(tool, arguments)
            assert isinstance(result.value, KINDS[tool]), (tool, result.text)
            assert result.is_error == isinstance(result.value, ToolError), result.text
            assert result.details == bound_details({**result.value.to_wire(), "tool": tool})
        acted = result.value
        assert isinstance(acted, Execution) and acted.observation is not None
        assert acted.observation.base_state_id == state
        assert acted.observation.target.ref == ref
    finally:
        await computer.close()
