"""The `actui` command as people use it: sandbox run, roots, repl, schema, doctor."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ACTUI = str(Path(sys.executable).with_name("actui"))
APP = "zenity --info --title=cli-probe --text=hello"


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ACTUI, *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def test_roots_inside_a_sandbox_lists_the_app() -> None:
    done = _run("sandbox", "run", "--app", APP, "--", ACTUI, "roots")
    assert done.returncode == 0, done.stderr
    assert "cli-probe" in done.stdout and "zenity" in done.stdout


def test_repl_keeps_states_between_lines() -> None:
    script = (
        'find_roots {"text": "cli-probe"}\n'
        'observe_ui {"root": "@r1", "mode": "semantic"}\n'
        "this is not json\n"
    )
    done = _run("sandbox", "run", "--app", APP, "--", ACTUI, "repl", stdin=script)
    assert done.returncode == 0, done.stderr
    assert "observe_ui semantic @r1" in done.stdout and "stateId s" in done.stdout, done.stdout
    assert "arguments: not JSON" in done.stdout


def test_doctor_reports_sources_and_a_healthy_session() -> None:
    done = _run(
        "sandbox", "run", "--app", "xmessage -name plain 'No tree here'", "--",
        "env", "ACTUI_HEADLESS=1", ACTUI, "doctor",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "headless = True  (env ACTUI_HEADLESS)" in done.stdout
    assert "ok   AT-SPI" in done.stdout
    assert "org.a11y.Status.IsEnabled is true" in done.stdout
    assert any("exposes no tree" in line and "plain" in line for line in done.stdout.splitlines())


def test_schema_exports_eleven_tools_for_each_client_family() -> None:
    for fmt in ("mcp", "openai", "anthropic"):
        done = _run("schema", "--format", fmt)
        assert done.returncode == 0
        assert len(json.loads(done.stdout)) == 11
