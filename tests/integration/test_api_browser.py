"""The Python API on our web form in a private headless Chromium (no desktop needed):
launch, search, act with a check, evaluate, navigate and wait, by typed results."""

from __future__ import annotations

import pytest
from test_browser_tools import FORM_URL, _no_desktop_env

from actui.api import CheckFailed, Computer, Expect


async def test_a_form_is_filled_submitted_and_read_back_through_the_python_api() -> None:
    async with Computer(env=_no_desktop_env()) as computer:
        state = await computer.launch_browser(FORM_URL)
        assert state.root.kind == "browser_page" and "actui form" in state.root.title
        name = state.search("Name", role="textbox").first
        first_value = name.value
        submit = state.search("Submit", role="button").first
        done = await state.act(
            name.set_text("Grace"), submit.press(), expect=Expect(text="submitted Grace")
        )
        assert done.raise_for_outcome().check == "verified"
        assert [step.outcome for step in done.steps] == ["worked", "worked"]
        assert done.state is not None
        assert await done.state.read_text(name) == "Grace"

        missed = await done.state.act(name.focus(), expect=Expect(text="never", timeout_ms=200))
        with pytest.raises(CheckFailed):
            missed.raise_for_outcome()
        assert missed.state is not None

        title = await missed.state.evaluate("document.title")
        assert title.value == "actui form" and title.exception is None
        thrown = await title.state.evaluate("null.x")
        assert thrown.value is None and thrown.exception

        later = thrown.state.search("Show later", role="button").first
        pressed = await thrown.state.act(later.press())
        assert pressed.state is not None
        waited = await pressed.state.wait_for(Expect(text="Arrived late", timeout_ms=5000))
        assert waited.found and not waited.timed_out and waited.state is not None

        again = await waited.state.navigate(FORM_URL)
        # a new document: the field shows its first value again, not the typed one
        assert again.search("Name", role="textbox").first.value == first_value != "Grace"
