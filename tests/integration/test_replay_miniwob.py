"""MiniWoB++'s login-user on headless Chromium: solved once by an agent through the MCP tools
with the recorder on, then, on another seed (another user name and password), solved again
by one call of the recorded workflow's tool, the new values given as its parameters. The
task's own reward is the oracle."""

from __future__ import annotations

from pathlib import Path

from miniwob_agent import Episode, launch, mcp_tools, miniwob_html, no_desktop_env, quoted

from actui.tools.workflow import Workflow, load

TASK = "login-user"


def _recorded(directory: Path) -> tuple[Workflow, str]:
    """The session's workflow, and its file's text."""
    (path,) = directory.glob("*.workflow.json")
    return load(path), path.read_text()


async def _begin(episode: Episode, seed: int) -> tuple[str, str]:
    pages = miniwob_html()
    assert pages is not None, "MiniWoB++ pages missing: `make test` installs them"
    await episode.open(TASK, pages)
    await episode.begin(seed)
    user, secret = quoted(await episode.instruction())
    return user, secret


async def test_login_user_solved_once_is_solved_again_by_one_workflow_call(
    tmp_path: Path,
) -> None:
    async with mcp_tools(no_desktop_env(), "--record", str(tmp_path)) as tools:
        episode = await launch(tools)
        user, secret = await _begin(episode, seed=1)
        (name,) = await episode.every("textbox")
        (password,) = await episode.every("password")
        login = await episode.find("Login", "button")
        steps = [
            {"action": "setText", "ref": name.ref, "text": user},
            {"action": "setText", "ref": password.ref, "text": secret},
            {"action": "press", "ref": login.ref},
        ]
        # the task ends by covering the form with its START button
        assert await episode.act(*steps, expect={"text": "START"}) == "worked", episode.log
        assert (await episode.reward()).reward > 0
    workflow, written = _recorded(tmp_path)
    assert [(v.name, v.secret) for v in workflow.variables] == [
        ("username", False),
        ("password", True),
    ]
    assert secret not in written

    async with mcp_tools(no_desktop_env(), "--workflows", str(tmp_path)) as tools:
        episode = await launch(tools)
        user2, secret2 = await _begin(episode, seed=2)
        assert (user2, secret2) != (user, secret)
        result = await tools.session.call_tool(
            f"run_{workflow.name}", {"username": user2, "password": secret2}
        )
        assert not result.is_error, result.content
        assert result.structured_content is not None and result.structured_content["ok"]
        await episode.observe()  # the workflow acted: read the page as it is now
        assert (await episode.reward()).reward > 0
