"""Root deltas after act_ui without an expect: settled by the application's events where
they are prompt (GTK 3), by the fixed window where they lag (GTK 4), and by waiting for
the window of a process the application started (a launcher). A window that opens after
the settle is reported by the next call that lists the application's windows, once."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from atspi_helpers import root_of
from computer_helpers import executed, matches_of, observed_of, paired_root, state_id_of, windows_of

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionRequest
from actui.backends.linux.sandbox import Sandbox
from actui.results.tool_result import ToolResult
from actui.results.typed import RootView
from actui.tools.dispatch import ToolBox

FORM = str(Path(__file__).parents[1] / "apps" / "qt_form.py")


async def _press(
    computer: ToolBox, window: RootView, outcome: str = "worked", **query: str
) -> ToolResult:
    """Observe the window, press the element ``query`` finds; the act's details."""
    state = state_id_of(await computer.call("observe_ui", {"root": window.ref}))
    return await _press_in(computer, state, outcome, **query)


async def _press_in(
    computer: ToolBox, state: str, outcome: str = "worked", **query: str
) -> ToolResult:
    found = await computer.call("search_ui", {"stateId": state, **query})
    ref = matches_of(found)[0].ref
    acted = await computer.call(
        "act_ui", {"stateId": state, "actions": [{"action": "press", "ref": ref}]}
    )
    assert not acted.is_error, acted.text
    assert executed(acted).steps[0].outcome == outcome, executed(acted)
    return acted


@asynccontextmanager
async def _app(sandbox: Sandbox, argv: list[str]) -> AsyncIterator[tuple[ToolBox, int, RootView]]:
    """The app started, an agent session, and the app's window (once it has its X window)."""
    process = await sandbox.launch(argv)
    await sandbox.wait_for_app(process.pid)
    computer = ToolBox(env=sandbox.env)
    try:
        yield computer, process.pid, await paired_root(computer, pid=process.pid)
    finally:
        await computer.close()


async def test_a_dialog_a_press_opens_is_a_delta_once_the_app_went_quiet(
    sandbox: Sandbox,
) -> None:
    async with _app(sandbox, ["mousepad"]) as (computer, pid, window):
        trace = executed(await _press(computer, window, text="About", role="menuitem"))
        assert trace.settled_by == "events"
        (delta,) = trace.root_deltas
        assert (delta.change, delta.kind, delta.pid) == ("appeared", "dialog", pid)
        assert "About" in delta.title
        listed = await computer.call("find_roots", {"pid": pid})
        assert delta.ref in {w.ref for w in windows_of(listed)}


async def test_gtk4_whose_events_lag_settles_by_the_window(sandbox: Sandbox) -> None:
    async with _app(sandbox, ["gnome-calculator"]) as (computer, _, window):
        trace = executed(await _press(computer, window, text="7", role="button"))
        assert trace.settled_by == "window" and trace.root_deltas == ()


async def test_a_window_of_a_process_a_launcher_started_is_a_delta(sandbox: Sandbox) -> None:
    """xfce4-appfinder launches mousepad: appfinder closes, mousepad's window comes later."""
    async with _app(sandbox, ["xfce4-appfinder"]) as (computer, finder, window):
        state = state_id_of(await computer.call("observe_ui", {"root": window.ref}))
        query = await computer.call("search_ui", {"stateId": state, "role": "textbox"})
        typed = await computer.call(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {
                        "action": "setText",
                        "ref": matches_of(query)[0].ref,
                        "text": "mousepad",
                    }
                ],
                "expect": {"text": "Simple Text Editor", "timeoutMs": 5000},
            },
        )
        state = state_id_of(typed)
        found = await computer.call("search_ui", {"stateId": state, "text": "Simple Text Editor"})
        chosen = await computer.call(
            "act_ui",
            {
                "stateId": state,
                "actions": [{"action": "select", "ref": matches_of(found)[0].ref}],
            },
        )
        state = state_id_of(chosen)
        trace = executed(await _press_in(computer, state, text="Launch", role="button"))
        appeared = [d for d in trace.root_deltas if d.change == "appeared"]
        assert appeared and all(d.pid != finder for d in appeared), trace.root_deltas
        assert "Mousepad" in appeared[0].title and trace.settled_by == "launch"


async def test_a_window_that_opens_after_the_settle_is_reported_by_the_next_call_once(
    sandbox: Sandbox,
) -> None:
    """The Qt form's Later button opens "Details" 800 ms after the press, with no event
    in between: the act settles before it, the next observation says so."""
    async with _app(sandbox, [sys.executable, FORM]) as (computer, pid, window):
        # nothing changes by the time the act settles: honestly unknown
        trace = executed(await _press(computer, window, "unknown", text="Later", role="button"))
        assert trace.root_deltas == (), trace
        await asyncio.sleep(1.5)
        observed = await computer.call("observe_ui", {"root": window.ref})
        (news,) = observed_of(observed).window_changes
        assert (news.change, news.title, news.pid) == ("appeared", "Details", pid)
        assert f'new root: window "Details" {news.ref}' in observed.text
        listed = await computer.call("find_roots", {"pid": pid})
        assert news.ref in {w.ref for w in windows_of(listed)}
        again = await computer.call("observe_ui", {"root": window.ref})
        assert observed_of(again).window_changes == (), "reported once"


async def test_acting_on_a_window_that_closed_keeps_the_apps_other_states_current(
    sandbox: Sandbox,
) -> None:
    """The About dialog is closed by another client; acting on its state is refused as
    gone, before the app's epoch moves, so the main window's state still works."""
    async with _app(sandbox, ["mousepad"]) as (computer, pid, window):
        opened = await _press(computer, window, text="About", role="menuitem")
        main = state_id_of(opened)
        (delta,) = executed(opened).root_deltas
        dialog = state_id_of(await computer.call("observe_ui", {"root": delta.ref}))
        close = await computer.call(
            "search_ui", {"stateId": dialog, "text": "Close", "role": "button"}
        )
        close_ref = matches_of(close)[0].ref
        wire = computer.state(dialog).node(close_ref).wire
        assert wire is not None

        other = AtspiBackend(sandbox.env)  # another client closes the dialog
        try:
            root = await root_of(other, pid)
            request = ActionRequest(kind="press", root=root, policy="background", target=wire)
            assert (await other.act(request)).outcome in ("worked", "unknown")
        finally:
            await other.close()
        async with asyncio.timeout(10):
            while True:
                listed = await computer.call("find_roots", {"pid": pid})
                if delta.ref not in {w.ref for w in windows_of(listed)}:
                    break
                await asyncio.sleep(0.05)

        refused = await computer.call(
            "act_ui", {"stateId": dialog, "actions": [{"action": "press", "ref": close_ref}]}
        )
        assert refused.is_error and "is gone" in refused.text, refused.text
        waited = await computer.call(
            "act_ui", {"stateId": main, "actions": [{"action": "wait", "ms": 10}]}
        )
        assert not waited.is_error, waited.text
