"""A form in headless Chromium recorded through the Python API (``Computer(record=…)``) and
replayed in a fresh browser: the page is matched by its URL, the typed name is a variable
that also fills the expected status, and a relabelled button stops the replay before
anything is sent. The page's own status line and field are the oracle."""

from __future__ import annotations

from pathlib import Path

from miniwob_agent import no_desktop_env

from actui.api import Computer, Expect, Observation
from actui.tools.replaying import replay
from actui.tools.workflow import Workflow, load

PAGE = (Path(__file__).parents[1] / "apps" / "web" / "form.html").as_uri()
READ = "[document.getElementById('status').textContent, document.getElementById('name').value]"


async def _record(directory: Path) -> Workflow:
    async with Computer(env=no_desktop_env(), record=directory) as computer:
        page = await computer.launch_browser(PAGE)
        name, submit = page.one("textbox", "Name"), page.one("button", "Submit")
        done = await page.act(
            name.set_text("Bob"), submit.press(), expect=Expect(text="submitted Bob")
        )
        done.raise_for_outcome()
        assert computer.recording is not None
        return load(computer.recording)


async def _shown(computer: Computer, page: Observation) -> list[str]:
    """The status line and the name field, read from the page as it is now."""
    fresh = await computer.observe(page.root, mode="semantic")
    value = (await fresh.evaluate(READ)).value
    assert isinstance(value, list)
    return [str(v) for v in value]


async def test_a_recorded_form_replays_on_a_fresh_page_and_stops_at_a_relabelled_button(
    tmp_path: Path,
) -> None:
    workflow = await _record(tmp_path)
    (step,) = workflow.steps
    assert (step.window.kind, step.window.url) == ("browser_page", PAGE)
    assert step.expect is not None and step.expect.text == "submitted {{name}}"
    async with Computer(env=no_desktop_env()) as computer:
        page = await computer.launch_browser(PAGE)
        replayed = await replay(computer.tools, workflow, {"name": "Carol"})
        assert replayed.ok, replayed.text()
        assert await _shown(computer, page) == ["submitted Carol", "Carol"]

        page = await computer.observe(page.root, mode="semantic")
        relabel = "document.getElementById('submit').textContent = 'Send'"
        await page.evaluate(relabel + "; document.getElementById('status').textContent = 'idle'")
        stopped = await replay(computer.tools, workflow, {"name": "Mallory"})
        assert not stopped.ok and stopped.divergence is not None
        assert (stopped.divergence.why, stopped.divergence.sent) == ("not_found", False)
        assert 'button "Submit"' in stopped.divergence.expected[0]
        assert any('button "Send"' in line for line in stopped.divergence.shown)
        assert await _shown(computer, page) == ["idle", "Carol"]  # nothing was sent
