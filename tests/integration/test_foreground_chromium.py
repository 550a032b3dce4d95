"""Escalation ``foreground_required``: a web field seen over AT-SPI can only be typed into.

Headed Chromium exposes its pages over AT-SPI (``--force-renderer-accessibility``) but
gives web inputs no EditableText, so a background typeText is refused and actui
retries once in the foreground with XTEST (docs/design-notes.md §3).
"""

from __future__ import annotations

import os
from pathlib import Path

from computer_helpers import executed, matches_of, paired_root, state_id_of, text_of, waited_of

from actui.backends.cdp.launch import command_line, find_executable
from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

PAGE = (
    "<!doctype html><title>Escalation form</title>"
    "<label for=q>Query</label> <input id=q autocomplete=off> <button>Go</button>"
)


async def test_typing_into_a_web_field_escalates_to_the_foreground_and_lands(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    page = tmp_path / "form.html"
    page.write_text(PAGE)
    argv = command_line(
        find_executable(sandbox.env), tmp_path / "profile", headed=True, as_root=os.geteuid() == 0
    )
    browser = await sandbox.launch([*argv[:-1], "--test-type", page.as_uri()])
    await sandbox.wait_for_app(browser.pid, timeout=30)
    computer = ToolBox(env={**sandbox.env, "ACTUI_HEADLESS": "0"})
    try:
        root = (await paired_root(computer, title="Escalation form")).ref
        observed = await computer.call("observe_ui", {"root": root, "mode": "fused"})
        assert not observed.is_error, observed.text
        # the window's title comes with the document; its accessible content a moment later
        ready = await computer.call(
            "wait_for",
            {"stateId": state_id_of(observed), "text": "Query", "role": "textbox"},
        )
        assert waited_of(ready).found, ready.text
        state = state_id_of(ready)
        found = await computer.call(
            "search_ui", {"stateId": state, "text": "Query", "role": "textbox"}
        )
        field = matches_of(found)[0].ref
        acted = await computer.call(
            "act_ui",
            {
                "stateId": state,
                "actions": [{"action": "typeText", "ref": field, "text": "hello web"}],
            },
        )
        assert not acted.is_error, acted.text
        (step,) = executed(acted).steps
        assert step.escalated and step.escalation_reason == "foreground_required"
        assert step.background_attempt is not None
        assert step.background_attempt.outcome == "foreground_required"
        assert step.background_first is True
        assert step.delivery == "hid" and step.policy == "foreground"
        successor = state_id_of(acted)
        again = await computer.call(
            "search_ui", {"stateId": successor, "text": "Query", "role": "textbox"}
        )
        read = await computer.call(
            "read_text", {"stateId": successor, "ref": matches_of(again)[0].ref}
        )
        assert text_of(read) == "hello web", read.text
    finally:
        await computer.close()
