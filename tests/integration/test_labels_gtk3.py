"""Unnamed GTK 3 fields named as a person reads them (tests/apps/gtk3_labels.py): one by
the labelled-by relation of a mnemonic label that sits far from it, one by the label
beside it (marked inferred); both found by those names, filled, and the app's stdout
shows what was filled."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import state_id_of
from corpus_helpers import Driven

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

APP = Path(__file__).parents[1] / "apps" / "gtk3_labels.py"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def form(
    module_sandbox: Sandbox,
) -> AsyncIterator[tuple[Driven, asyncio.subprocess.Process]]:
    process = await module_sandbox.launch(
        ["/usr/bin/python3", str(APP)], stdout=asyncio.subprocess.PIPE
    )
    await module_sandbox.wait_for_app(process.pid)
    computer = ToolBox(env={**module_sandbox.env, "ACTUI_HEADLESS": "1"})
    try:
        yield Driven(computer, process.pid), process
    finally:
        await computer.close()
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_a_relation_names_a_field_plainly_and_layout_names_the_other_as_inferred(
    form: tuple[Driven, asyncio.subprocess.Process],
) -> None:
    app, process = form
    window = await app.window("Labels fixture")
    observed = await app.ok("observe_ui", {"root": window.ref, "mode": "semantic"})
    outline, state = app.texts[-1], state_id_of(observed)
    (email,) = await app.refs(state, text="Email address", role="textbox")
    (phone,) = await app.refs(state, text="Phone", role="textbox")
    named = f'{email} textbox "Email address"'
    assert named in outline and f"{named} (label inferred)" not in outline, outline
    assert f'{phone} textbox "Phone" (label inferred)' in outline, outline
    (submit,) = await app.refs(state, text="Submit", role="button")
    done = await app.act(
        {
            "stateId": state,
            "actions": [
                {"action": "setText", "ref": email, "text": "ada@example.org"},
                {"action": "setText", "ref": phone, "text": "+44 20 7946 0000"},
            ],
            "expect": {"ref": phone, "value": "+44 20 7946 0000"},
        },
    )
    assert done.verification is not None and done.verification.status == "verified", done
    assert done.observation is not None, done
    await app.answering()
    await app.computer.call(
        "act_ui",
        {"stateId": done.observation.state_id, "actions": [{"action": "press", "ref": submit}]},
    )
    assert process.stdout is not None
    out = await asyncio.wait_for(process.stdout.read(), 15)
    assert out.decode() == "email=ada@example.org\nphone=+44 20 7946 0000\n"
