"""The workflow file: versioned, checked field by field, secrets never written, and its script."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from actui.errors import InvalidParams
from actui.outline.selectors import Ancestor, Selector
from actui.server.cli import main, workflow_dirs
from actui.tools.replaying import Divergence, parse_vars, tool_spec
from actui.tools.workflow import (
    Act,
    Check,
    Recorded,
    Step,
    Variable,
    Window,
    Workflow,
    dump,
    fill,
    load,
    values_of,
)
from actui.tools.workflow_script import script

CITY = Selector("textbox", "City", (Ancestor("panel", "Contact"),))
SECRET = Selector("password", "Secret")
OK = Selector("button", "OK")


def workflow() -> Workflow:
    fill_form = Step(
        window=Window(app="zenity", kind="dialog", title="Forms"),
        actions=(
            Act(action="setText", target=SECRET, text="{{secret}}"),
            Act(action="setText", target=CITY, text="{{city}}"),
        ),
        require=Check(text="Secret", role="password"),
        expect=Check(target=CITY, value="{{city}}"),
        recorded=Recorded(outcome="worked", ms=120, derivedExpect=True),
    )
    press = Step(
        window=Window(app="zenity", kind="dialog", title="Forms"),
        actions=(Act(action="press", target=OK),),
        expect=Check(target=OK, until="absent"),
        recorded=Recorded(outcome="worked", check="verified", ms=80),
    )
    return Workflow(
        name="form",
        variables=(Variable(name="secret", secret=True), Variable(name="city", default="Paris")),
        steps=(fill_form, press),
    )


def written(tmp_path: Path, raw: object) -> Path:
    path = tmp_path / "w.workflow.json"
    path.write_text(json.dumps(raw))
    return path


def test_a_workflow_reads_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "form.workflow.json"
    path.write_text(dump(workflow()))
    assert load(path) == workflow()
    assert json.loads(path.read_text())["version"] == 1


def test_another_version_is_refused_by_name(tmp_path: Path) -> None:
    raw = json.loads(dump(workflow())) | {"version": 2}
    with pytest.raises(InvalidParams, match="version: is 2; this actui reads version 1"):
        load(written(tmp_path, raw))


def test_a_bad_field_is_named_with_its_place(tmp_path: Path) -> None:
    raw = json.loads(dump(workflow()))
    raw["steps"][0]["actions"][0]["action"] = "smash"
    with pytest.raises(InvalidParams, match=r"steps\.0\.actions\.0"):
        load(written(tmp_path, raw))


def test_a_step_that_breaks_the_act_ui_contract_is_refused() -> None:
    with pytest.raises(ValueError, match="setText needs text"):
        Act(action="setText", target=CITY)


def test_a_secret_variable_cannot_carry_a_value() -> None:
    with pytest.raises(ValueError, match="never written"):
        Variable(name="secret", secret=True, default="hunter2")


def test_a_secret_may_only_be_typed_never_put_in_a_condition() -> None:
    step = workflow().steps[0].model_copy(update={"require": Check(text="{{secret}}")})
    with pytest.raises(ValueError, match="uses the secret"):
        Workflow(name="form", variables=workflow().variables, steps=(step,))


def test_templates_fill_values_and_basenames() -> None:
    values = {"file": "/home/me/notes.txt"}
    assert fill("{{file:basename}} - Mousepad", values) == "notes.txt - Mousepad"
    assert fill("{{file}}", values) == "/home/me/notes.txt"


def test_a_missing_secret_and_an_unknown_variable_are_named_before_anything_runs() -> None:
    with pytest.raises(InvalidParams, match="var secret: is required"):
        values_of(workflow(), {})
    with pytest.raises(InvalidParams, match="var town: is not a variable"):
        values_of(workflow(), {"secret": "x", "town": "Lyon"})
    assert values_of(workflow(), {"secret": "x"}) == {"secret": "x", "city": "Paris"}
    with pytest.raises(InvalidParams, match="--var"):
        parse_vars(["novalue"])


def test_the_tool_of_a_workflow_requires_its_secret_and_writes_anything() -> None:
    spec = tool_spec(workflow())
    assert spec["name"] == "run_form"
    assert spec["inputSchema"]["required"] == ["secret"]  # type: ignore[index]
    assert spec["annotations"]["readOnlyHint"] is False  # type: ignore[index]


def test_a_divergence_reads_side_by_side() -> None:
    divergence = Divergence(2, "not_found", "no element matched", ('button "OK"',),
                            ('button "Okay"', 'button "Cancel"'), sent=False)  # fmt: skip
    lines = divergence.lines()
    assert lines[0].startswith("stopped at step 2 (not_found)")
    assert "nothing was sent" in lines[0]
    assert [part.strip() for part in lines[2].split("|")] == ['button "OK"', 'button "Okay"']
    assert lines[1].index("|") == lines[2].index("|") == lines[3].index("|")


def test_the_python_script_is_valid_python_with_one_act_per_step() -> None:
    text = script(workflow(), "form.workflow.json")
    tree = ast.parse(text)
    assert text.count("computer.act(") == 2
    assert "state.one('textbox', 'City', path=[('panel', 'Contact')])" in text
    assert "expect=Expect(ref=city, value=v['city'])" in text
    assert "VARIABLES: dict[str, str | None] = {'secret': None, 'city': 'Paris'}" in text
    assert tree.body


def test_actui_mcp_takes_its_workflow_directories_and_leaves_other_commands_alone() -> None:
    assert workflow_dirs(["mcp", "--record", "/w", "--workflows=/v"]) == (
        ["mcp"],
        {"--record": "/w", "--workflows": "/v"},
    )
    assert workflow_dirs(["mcp", "--http", "--record"]) == (["mcp", "--http"], {"--record": ""})
    assert workflow_dirs(["call", "--record", "x"]) == (["call", "--record", "x"], {})
    assert main(["mcp", "--record"]) == 2  # a flag without its directory: said, not served
