"""Transactions through a real MCP client: require gates, wait steps, failing postconditions,
and the read-only tools on the resulting states."""

from __future__ import annotations

import asyncio

from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent, connect


async def test_every_tool_on_a_real_dialog_with_require_wait_and_expect(sandbox: Sandbox) -> None:
    dialog = await sandbox.launch(
        ["zenity", "--entry", "--title=transactions", "--text=Value:", "--entry-text=start"],
        stdout=asyncio.subprocess.PIPE,
    )
    await sandbox.wait_for_app(dialog.pid)
    async with connect(sandbox.env) as agent:
        roots = await agent.details("find_roots", {"text": "transactions"})
        observed = await agent.details(
            "observe_ui", {"root": roots["windows"][0]["windowRef"], "mode": "semantic"}
        )
        state = observed["stateId"]
        entry = (await agent.details("search_ui", {"stateId": state, "role": "textbox"}))[
            "matches"
        ][0]["ref"]
        ok = (await agent.details("search_ui", {"stateId": state, "text": "OK", "role": "button"}))[
            "matches"
        ][0]["ref"]

        expanded = await agent.call("expand_ui", {"stateId": state, "ref": "@e2", "depth": 4})
        assert entry in Agent.text(expanded) and ok in Agent.text(expanded)
        inspected = await agent.details("inspect_ui", {"stateId": state, "ref": entry})
        assert "setText" in inspected["target"]["capabilities"]
        assert inspected["target"]["value"] == "start"

        # A precondition that does not hold: nothing is sent, the state stays current.
        gated = await agent.call(
            "act_ui",
            {
                "stateId": state,
                "require": {"text": "no such text anywhere", "timeoutMs": 300},
                "actions": [{"action": "setText", "ref": entry, "text": "gated"}],
            },
        )
        assert gated.is_error and "precondition_failed" in Agent.text(gated)
        unchanged = await agent.details("read_text", {"stateId": state, "ref": entry})
        assert unchanged["text"] == "start"

        # The same state still writes (no epoch was consumed); a wait step sits between steps.
        waited = await agent.details(
            "act_ui",
            {
                "stateId": state,
                "require": {"ref": entry, "value": "start"},
                "actions": [
                    {"action": "setText", "ref": entry, "text": "one"},
                    {"action": "wait", "until": {"ref": entry, "value": "one", "timeoutMs": 2000}},
                    {"action": "wait", "ms": 50},
                    {"action": "typeText", "ref": entry, "text": " two"},
                ],
                # typeText inserts at the caret, wherever setText left it.
                "expect": {"ref": entry, "text": "two"},
            },
        )
        assert waited["outcome"] == "worked"
        assert [s["outcome"] for s in waited["execution"]["steps"]] == ["worked"] * 4
        assert waited["execution"]["verification"]["status"] == "verified"
        state = waited["stateId"]
        typed = await agent.details("read_text", {"stateId": state, "ref": entry})
        assert typed["text"] in ("one two", " twoone")  # inserted at the caret: end or start

        # A postcondition that fails: outcome didnt, postcondition_failed, what the UI shows.
        failed = await agent.call(
            "act_ui",
            {
                "stateId": state,
                "actions": [{"action": "setText", "ref": entry, "text": "three"}],
                "expect": {"ref": entry, "value": "four", "timeoutMs": 300},
            },
        )
        details = failed.structured_content
        assert details["outcome"] == "didnt"  # type: ignore[index]
        assert details["error"]["code"] == "postcondition_failed"  # type: ignore[index]
        assert details["execution"]["verification"]["status"] == "failed"  # type: ignore[index]
        assert "three" in Agent.text(failed)
        state = details["stateId"]  # type: ignore[index]

        # A transaction that stops early: later steps are not run, the check is skipped.
        stopped = await agent.details(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {"action": "wait", "until": {"text": "never shown", "timeoutMs": 200}},
                    {"action": "press", "ref": ok},
                ],
                "expect": {"text": "three"},
            },
        )
        assert stopped["execution"]["stoppedAt"] == 0
        assert len(stopped["execution"]["steps"]) == 1
        assert stopped["execution"]["verification"]["status"] == "skipped"
        assert dialog.returncode is None

        # wait_for returns a successor state on success and on timeout.
        timed_out = await agent.details(
            "wait_for", {"stateId": stopped["stateId"], "text": "never shown", "timeoutMs": 200}
        )
        assert timed_out["timedOut"] is True and timed_out["stateId"] != stopped["stateId"]
        present = await agent.details(
            "wait_for", {"stateId": timed_out["stateId"], "ref": entry, "value": "three"}
        )
        assert present["found"] is True

        done = await agent.details(
            "act_ui",
            {
                "stateId": present["stateId"],
                "actions": [{"action": "press", "ref": ok}],
                "expect": {"gone": True, "text": "transactions"},
            },
        )
        assert done["status"] == "target_closed"
        assert done["execution"]["verification"]["status"] == "verified"
        assert done["outcome"] == "worked"
    out, _ = await asyncio.wait_for(dialog.communicate(), timeout=10)
    assert out.decode().strip() == "three"
