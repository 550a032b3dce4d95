"""``actui sandbox run``'s command lines: refused in one clear line before any desktop starts."""

from __future__ import annotations

import asyncio

import pytest

from actui.backends.linux.sandbox_cli import _app_argv, run_sandboxed


def test_an_app_command_line_is_split_as_a_shell_would() -> None:
    assert _app_argv("zenity --info --text='hello there'") == [
        "zenity",
        "--info",
        "--text=hello there",
    ]


@pytest.mark.parametrize(
    ("app", "message"),
    [
        ("nosuchapp --flag", "--app 'nosuchapp --flag': cannot run nosuchapp: command not found"),
        ("zenity 'unclosed", '--app "zenity \'unclosed": No closing quotation'),
        ("  ", "--app '  ': an empty command line"),
    ],
)
def test_an_app_that_cannot_run_is_named_with_why(app: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        _app_argv(app)
    assert str(caught.value) == message


def test_a_missing_command_is_refused_before_a_desktop_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert asyncio.run(run_sandboxed(["/nonexistent/command"])) == 127
    err = capsys.readouterr().err
    assert err == "actui sandbox: COMMAND: cannot run /nonexistent/command: command not found\n"
