"""structuredContent: the details beside the text, and the option to leave them out."""

from __future__ import annotations

from actui.config import load_config
from actui.results.observations import OutputPage
from actui.results.tool_result import ToolResult
from actui.server.cli import NO_STRUCTURED, without_structured_content
from actui.server.mcp_stdio import _catalog, _to_mcp

PAGE = OutputPage("@o1", 0, 5, 5, has_more=False, complete=True)


def _result() -> ToolResult:
    return ToolResult("hello", PAGE)


def test_results_carry_their_details_as_structured_content_by_default() -> None:
    sent = _to_mcp(_result(), load_config({"XDG_CONFIG_HOME": "/nonexistent"}).structured_content)
    assert sent.structured_content == PAGE.to_wire()
    assert sent.content[0].text == "hello"  # type: ignore[union-attr]


def test_the_config_key_leaves_structured_content_out_and_keeps_the_text() -> None:
    config = load_config({"XDG_CONFIG_HOME": "/nonexistent", "ACTUI_STRUCTURED_CONTENT": "0"})
    assert config.structured_content is False
    assert config.sources["structured_content"] == "env ACTUI_STRUCTURED_CONTENT"
    sent = _to_mcp(_result(), config.structured_content)
    assert sent.structured_content is None
    wire = sent.model_dump(by_alias=True, mode="json", exclude_none=True)  # as the SDK sends
    assert "structuredContent" not in wire
    assert sent.content[0].text == _result().text  # type: ignore[union-attr]


def test_the_mcp_flag_sets_the_key_for_this_server_and_is_not_passed_on() -> None:
    env: dict[str, str] = {}
    args = without_structured_content(["mcp", NO_STRUCTURED, "--http", "--port", "0"], env)
    assert args == ["mcp", "--http", "--port", "0"]
    assert load_config({**env, "XDG_CONFIG_HOME": "/nonexistent"}).structured_content is False


def test_the_flag_means_nothing_to_other_commands() -> None:
    env: dict[str, str] = {}
    assert without_structured_content(["call", NO_STRUCTURED], env) == ["call", NO_STRUCTURED]
    assert env == {}


def test_output_schemas_are_listed_only_when_results_carry_structured_content() -> None:
    # a client refuses a result without the structured content its tool's schema promises
    assert all(tool.output_schema for tool in _catalog(structured=True))
    assert not any(tool.output_schema for tool in _catalog(structured=False))
