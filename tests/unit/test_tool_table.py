"""The tools are a table of handlers, and ``Computer`` shows the tools, not its parts."""

from __future__ import annotations

from dataclasses import fields

from test_transaction import ModelApp

from actui import contract
from actui.observations import ToolError
from actui.observer import Observer
from actui.output import OutputStore
from actui.rendering import Renderer
from actui.runtime.deltas import Announced
from actui.runtime.roots import RootRegistry
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import StateStore
from actui.session import Session
from actui.tools import HANDLERS, Computer

PARTS = (Observer, Renderer, Scheduler, StateStore, RootRegistry, Announced, OutputStore)
MEANT = {"close", "config", "state", "backends"}
"""Names a part has that ``Computer`` offers on purpose: its lifetime, its configuration,
a saved state by id, and the backends it drives."""


def _public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def test_every_tool_of_the_contract_has_one_handler_and_no_handler_lacks_a_tool() -> None:
    assert set(HANDLERS) == set(contract.TOOL_NAMES)


async def test_computer_offers_the_tools_and_hides_the_session_s_parts() -> None:
    offered = _public(Computer)
    assert set(contract.TOOL_NAMES) <= offered
    internals = {name for part in PARTS for name in _public(part)}
    internals |= {f.name for f in fields(Session)} | {"save", "diff_text", "scheduler"}
    leaked = (offered & internals) - MEANT
    assert not leaked, f"Computer shows its parts' internals: {sorted(leaked)}"
    computer = Computer(env={"XDG_CONFIG_HOME": "/nonexistent"}, desktop=ModelApp())
    seen = {name for name in vars(computer) if not name.startswith("_")}
    await computer.close()
    assert not seen, f"instance attributes leak the session's parts: {seen}"


async def test_an_unknown_tool_is_refused_by_the_contract_before_any_handler() -> None:
    computer = Computer(env={"XDG_CONFIG_HOME": "/nonexistent"}, desktop=ModelApp())
    try:
        result = await computer.call("observe_everything", {})
    finally:
        await computer.close()
    assert result.is_error and isinstance(result.value, ToolError), result.text
    assert result.value.code == "invalid_params"
    assert "unknown tool 'observe_everything'" in result.text
