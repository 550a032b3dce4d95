"""The tools are a table of handlers, and ``Computer`` shows the tools, not its parts."""

from __future__ import annotations

from test_transaction import ModelApp

from actui import contract
from actui.tools import HANDLERS, Computer

PUBLIC = {"call", "close", "config", "state", "backends", "act"}
"""What a Python user reaches besides the tools' own methods."""


def test_every_tool_of_the_contract_has_one_handler_and_no_handler_lacks_a_tool() -> None:
    assert set(HANDLERS) == set(contract.TOOL_NAMES)


async def test_computer_offers_the_tools_and_hides_the_session_s_parts() -> None:
    public = {name for name in dir(Computer) if not name.startswith("_")}
    assert public == PUBLIC | set(contract.TOOL_NAMES), public ^ (PUBLIC | set(contract.TOOL_NAMES))
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
    assert result.is_error and result.details["error"]["code"] == "invalid_params"
    assert "unknown tool 'observe_everything'" in result.text
