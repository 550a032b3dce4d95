"""``zenity --forms``, a GTK 3 form whose grid GTK lists in reverse and whose entries have
no names: every field is found by the label a person sees beside it, the outline reads
top to bottom, and the form filled through act_ui prints exactly what was entered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from computer_helpers import process_alive, state_id_of
from corpus_helpers import Driven

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

SECRET = "s3cret"


@dataclass
class Form:
    app: Driven
    process: asyncio.subprocess.Process
    state: str
    outline: str


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def form(module_sandbox: Sandbox) -> AsyncIterator[Form]:
    argv = ["zenity", "--forms", "--add-entry=Name", "--add-password=Secret", "--add-entry=City"]
    process = await module_sandbox.launch(argv, stdout=asyncio.subprocess.PIPE)
    await module_sandbox.wait_for_app(process.pid)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"})
    app = Driven(computer, process.pid)
    try:
        window = await app.window("")
        observed = await app.ok("observe_ui", {"root": window.ref, "mode": "semantic"})
        yield Form(app, process, state_id_of(observed), app.texts[-1])
    finally:
        await computer.close()
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _field(form: Form, label: str, role: str) -> str:
    (ref,) = await form.app.refs(form.state, text=label, role=role)
    return ref


async def test_the_outline_lists_the_fields_in_visual_order_named_by_their_labels(
    form: Form,
) -> None:
    lines = [
        'textbox "Name" (label inferred)',
        'password "Secret" (label inferred)',
        'textbox "City" (label inferred)',
    ]
    at = [form.outline.find(line) for line in lines]
    assert -1 not in at and at == sorted(at), form.outline
    await form.app.answering()


async def test_each_field_found_by_its_label_and_filled_prints_exactly_the_entered_values(
    form: Form,
) -> None:
    app = form.app
    name = await _field(form, "Name", "textbox")
    secret = await _field(form, "Secret", "password")
    city = await _field(form, "City", "textbox")
    assert len({name, secret, city}) == 3
    (ok,) = await app.refs(form.state, text="OK", role="button")
    done = await app.act(
        {
            "stateId": form.state,
            # the password field is known only by the label beside it, in a condition too
            "require": {"text": "Secret", "role": "password"},
            "actions": [
                {"action": "setText", "ref": name, "text": "Alice"},
                {"action": "setText", "ref": secret, "text": SECRET},
                {"action": "setText", "ref": city, "text": "Paris"},
            ],
        },
    )
    assert [s.outcome for s in done.steps] == ["worked"] * 3, done
    assert done.observation is not None, done
    await app.answering()

    pressed = await app.computer.call(
        "act_ui",
        {"stateId": done.observation.state_id, "actions": [{"action": "press", "ref": ok}]},
    )
    app.texts.append(pressed.text + repr(pressed.details))
    assert not pressed.is_error, pressed.text
    assert form.process.stdout is not None
    out = await asyncio.wait_for(form.process.stdout.read(), 15)
    assert out.decode() == "Alice|s3cret|Paris\n"
    assert await asyncio.wait_for(form.process.wait(), 15) == 0 and not process_alive(app.pid)
    assert not [text for text in app.texts if SECRET in text]
