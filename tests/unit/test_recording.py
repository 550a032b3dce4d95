"""Recording through the Python API over a model application, and replaying the file with
no model calls: kept and left-out transactions, derived checks, and where a replay stops."""

from __future__ import annotations

from datetime import datetime, tzinfo
from pathlib import Path
from typing import NoReturn

import pytest
from model_app import ModelApp

from actui import sync_api
from actui.api import Computer, Expect
from actui.tools import recording
from actui.tools.replaying import replay
from actui.tools.workflow import load

ENV = {"ACTUI_HEADLESS": "0", "XDG_CONFIG_HOME": "/nonexistent"}


async def _record(directory: Path) -> Path:
    """An agent's session: a fill with no expect (kept, its effect read back), one whose
    check fails (left out), one with a verified expect (kept)."""
    async with Computer(env=ENV, desktop=ModelApp(), record=directory) as computer:
        state = await computer.observe((await computer.find_roots(text="model")).first)
        name = state.search(text="Name", role="textbox").first
        done = await state.act(name.set_text("Ada Lovelace"))
        assert done.state is not None
        failed = await done.state.act(name.focus(), expect=Expect(text="never", timeout_ms=100))
        assert failed.check == "failed" and failed.state is not None
        typed = await failed.state.act(
            name.type_text("!"), expect=Expect(ref=name, value="Ada Lovelace!", timeout_ms=300)
        )
        assert typed.check == "verified"
        assert computer.recording is not None
        return computer.recording


async def test_a_session_records_its_kept_acts_as_portable_steps(tmp_path: Path) -> None:
    workflow = load(await _record(tmp_path))
    assert [left.why for left in workflow.leftOut] == ["outcome didnt"]
    assert [v.model_dump() for v in workflow.variables] == [
        {"name": "name", "secret": False, "default": "Ada Lovelace"},
        {"name": "name_2", "secret": False, "default": "!"},
    ]
    fill, typed = workflow.steps
    assert fill.window.model_dump() == {
        "app": "model",
        "kind": "window",
        "title": "Model",
        "url": "",
    }
    assert fill.recorded.derivedExpect and fill.expect is not None
    assert fill.expect.value == "{{name}}"  # the value read back, as its variable
    assert typed.expect is not None and typed.expect.value == "{{name}}!"
    assert typed.recorded.check == "verified" and not typed.recorded.derivedExpect
    assert "@e" not in tmp_path.joinpath(workflow.name + ".workflow.json").read_text()


async def test_sessions_recording_to_one_directory_in_one_second_each_keep_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions of an HTTP server, say, started at the same second."""

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> Frozen:
            return cls(2026, 12, 3, 20, 0, 0, tzinfo=tz)

    monkeypatch.setattr(recording, "datetime", Frozen)
    paths = [await _record(tmp_path) for _ in range(2)]
    assert [p.name for p in paths] == [
        "model_20261203t200000z.workflow.json",
        "model_20261203t200000z_2.workflow.json",
    ]
    assert [(w.name, len(w.steps)) for w in map(load, paths)] == [
        ("model_20261203t200000z", 2),
        ("model_20261203t200000z_2", 2),
    ]


async def test_the_file_replays_on_a_fresh_app_with_new_values(tmp_path: Path) -> None:
    workflow = load(await _record(tmp_path))
    app = ModelApp()
    async with Computer(env=ENV, desktop=app) as computer:
        replayed = await replay(computer.tools, workflow, {"name": "Grace Hopper"})
    assert replayed.ok and replayed.reached == 2, replayed.text()
    assert app.text == "Grace Hopper!"
    assert "2 of 2 steps verified" in replayed.text()


async def test_a_replay_whose_check_fails_stops_there_and_says_what_it_saw(
    tmp_path: Path,
) -> None:
    workflow = load(await _record(tmp_path))

    class Stubborn(ModelApp):
        """Takes typed text but drops it: the read-back shows the old value."""

        async def act(self, request):  # type: ignore[no-untyped-def]
            result = await super().act(request)
            if request.kind == "typeText":
                self.text = self.text[: -len(request.text)]
            return result

    app = Stubborn()
    async with Computer(env=ENV, desktop=app) as computer:
        replayed = await replay(computer.tools, workflow, {}, window_timeout_s=1)
    assert not replayed.ok and replayed.reached == 1
    divergence = replayed.divergence
    assert divergence is not None and (divergence.step, divergence.sent) == (2, True)
    assert divergence.why == "check_failed"
    assert divergence.expected == (
        'element textbox "Name" with value "Ada Lovelace!" to be present',
    )
    assert any("Ada Lovelace" in line for line in divergence.shown)


async def test_a_dry_run_resolves_and_sends_nothing(tmp_path: Path) -> None:
    workflow = load(await _record(tmp_path))
    app = ModelApp()
    async with Computer(env=ENV, desktop=app) as computer:
        replayed = await replay(computer.tools, workflow, {}, dry_run=True)
    assert replayed.ok and [r.status for r in replayed.runs] == ["resolved", "resolved"]
    assert app.requests == [] and app.text == "start"


def test_the_sync_api_records_too(tmp_path: Path) -> None:
    with sync_api.SyncComputer(env=ENV, desktop=ModelApp(), record=tmp_path) as computer:
        state = computer.observe(computer.find_roots(text="model").first)
        name = state.one("textbox", "Name")
        computer.act(state, name.set_text("x"), expect=Expect(ref=name, value="x"))
        assert computer.recording is not None
        assert len(load(computer.recording).steps) == 1


async def test_an_act_with_nothing_to_check_is_left_out_with_its_variables(
    tmp_path: Path,
) -> None:
    async with Computer(env=ENV, desktop=ModelApp(), record=tmp_path) as computer:
        state = await computer.observe((await computer.find_roots(text="model")).first)
        name = state.search(text="Name", role="textbox").first
        # worked, and the last step (a focus) left nothing a replay could read back
        done = await state.act(name.set_text("draft"), name.focus())
        assert done.outcome == "worked" and computer.recording is not None
        workflow = load(computer.recording)
    assert workflow.steps == () and workflow.variables == ()
    assert [left.why for left in workflow.leftOut] == [
        "no check: give act_ui an expect (nothing to read back)"
    ]


async def test_a_window_that_never_comes_stops_the_replay_naming_what_is_listed(
    tmp_path: Path,
) -> None:
    workflow = load(await _record(tmp_path))
    first = workflow.steps[0]
    elsewhere = first.model_copy(update={"window": first.window.model_copy(update={"title": "X"})})
    app = ModelApp()
    async with Computer(env=ENV, desktop=app) as computer:
        replayed = await replay(
            computer.tools, workflow.model_copy(update={"steps": (elsewhere,)}), {},
            window_timeout_s=0.2,
        )  # fmt: skip
    divergence = replayed.divergence
    assert divergence is not None and divergence.why == "window_missing"
    assert (divergence.expected, divergence.shown) == (
        ('model window "X"',),
        ('model window "Model"',),
    )
    assert app.requests == [] and not divergence.sent


async def test_an_act_the_recorder_cannot_make_portable_still_reaches_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unportable(*_: object) -> NoReturn:
        raise ValueError("no selector")

    monkeypatch.setattr(recording, "selector_of", unportable)
    async with Computer(env=ENV, desktop=ModelApp(), record=tmp_path) as computer:
        state = await computer.observe((await computer.find_roots(text="model")).first)
        name = state.search(text="Name", role="textbox").first
        done = await state.act(name.set_text("x"), expect=Expect(ref=name, value="x"))
        assert done.check == "verified"  # the act itself is untouched
        assert computer.recording is not None
        workflow = load(computer.recording)
    assert [left.why for left in workflow.leftOut] == ["it could not be made portable (ValueError)"]
