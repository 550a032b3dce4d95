"""The Python API over a model application: typed results, raised errors, outcome checks.

The model app (``test_transaction.ModelApp``) keeps an entry's text and
changes it only through setText/typeText, so every outcome below is read
back from state that really changed.
"""

from __future__ import annotations

import re

import pytest
from model_app import ModelApp

from actui import sync_api
from actui.api import (
    CheckFailed,
    Computer,
    Element,
    Expect,
    NoMatch,
    Observation,
    click_at,
    keypress,
)
from actui.errors import InvalidParams, StaleResourceStateError
from actui.tools.contract import STEPS

ENV = {"ACTUI_HEADLESS": "0", "XDG_CONFIG_HOME": "/nonexistent"}


async def _observed(computer: Computer) -> Observation:
    win = (await computer.find_roots(text="model")).first
    assert (win.app, win.title, win.kind) == ("model", "Model", "window")
    return await computer.observe(win)


async def test_find_observe_search_act_and_check_the_outcome() -> None:
    app = ModelApp()
    async with Computer(env=ENV, desktop=app) as computer:
        state = await _observed(computer)
        name = state.search(text="Name", role="textbox").first
        assert (name.role, name.value) == ("textbox", "start")
        done = await state.act(name.set_text("typed"), expect=Expect(ref=name, value="typed"))
        assert done.raise_for_outcome() is done
        assert (done.outcome, done.check, done.stopped_at) == ("worked", "verified", None)
        assert app.text == "typed"
        assert done.state is not None and done.state.state_id != state.state_id
        assert done.state.element(name.ref).value == "typed"
        assert await done.state.read_text(name) == "typed"


async def test_a_failed_check_is_raised_only_when_asked() -> None:
    async with Computer(env=ENV, desktop=ModelApp()) as computer:
        state = await _observed(computer)
        name = state.search(text="Name").first
        done = await state.act(name.focus(), expect=Expect(text="never shown", timeout_ms=100))
        assert (done.outcome, done.check) == ("didnt", "failed")
        assert done.error is not None and done.error.code == "postcondition_failed"
        with pytest.raises(CheckFailed, match="never shown") as raised:
            done.raise_for_outcome()
        assert raised.value.done is done


async def test_a_stale_state_and_a_bad_ref_raise_typed_errors() -> None:
    async with Computer(env=ENV, desktop=ModelApp()) as computer:
        state = await _observed(computer)
        name = state.search(text="Name").first
        await state.act(name.set_text("one"))
        with pytest.raises(StaleResourceStateError) as stale:
            await state.act(name.set_text("two"))
        assert stale.value.current_epoch > stale.value.expected_epoch
        assert "Nothing was sent" in stale.value.message
        with pytest.raises(InvalidParams) as unknown:
            state.element("@e999")
        assert unknown.value.field == "ref"


def test_a_step_is_checked_where_it_is_written() -> None:
    with pytest.raises(InvalidParams) as raised:
        click_at(10, 10, count=5)
    assert raised.value.field == "actions[0].clickCount"
    assert keypress("ctrl", "s").keys == ["ctrl", "s"]


async def test_first_of_nothing_is_no_match() -> None:
    async with Computer(env=ENV, desktop=ModelApp()) as computer:
        assert len(await computer.find_roots(text="no such window")) == 0
        nothing = await computer.find_roots(text="no such window")
        with pytest.raises(NoMatch):
            assert nothing.first
        state = await _observed(computer)
        buttons = state.search(text="Name", role="button")
        with pytest.raises(NoMatch):
            assert buttons.first


def test_the_synchronous_facade_runs_the_same_calls() -> None:
    app = ModelApp()
    with sync_api.SyncComputer(env=ENV, desktop=app) as computer:
        state = computer.observe(computer.find_roots(text="model").first)
        name = state.search(text="Name").first
        done = computer.act(state, name.type_text("!"), expect=Expect(text="start!"))
        done.raise_for_outcome()
        assert done.state is not None
        assert computer.read_text(done.state, name) == "start!" == app.text


def test_every_step_kind_on_an_element_is_an_element_method_and_no_other_is() -> None:
    on_element = {kind for kind, declared in STEPS.items() if "ref" in declared.allowed}
    snake = {re.sub(r"(?<!^)(?=[A-Z])", "_", kind).lower(): kind for kind in on_element}
    methods = {
        name
        for name, member in vars(Element).items()
        if callable(member) and not name.startswith("_")
    }
    assert methods == set(snake), "add the Element method of a new step kind (api.py)"
