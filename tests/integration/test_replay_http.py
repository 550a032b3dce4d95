"""Record and replay over ``actui mcp --http`` through the official MCP client.

Two sessions of a server with ``--desktop-per-session --record DIR`` fill a zenity form
each on their own desktop, at the same time: each session writes a workflow file of its
own, with its own values. A server of one shared desktop with ``--workflows DIR`` then
serves both workflows as tools in every session, and one call in each session fills a
new form; recording there too, each of those sessions writes its own file. What the
forms printed is the oracle.
"""

from __future__ import annotations

import shlex
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from computer_helpers import process_alive
from mcp_client import http_session
from test_mcp_http import TOKEN, serving
from test_replay_zenity import FIELDS, TITLE, _env, _form, _printed

from actui.backends.base import JsonObject
from actui.backends.linux.sandbox import Sandbox
from actui.server.demo import Agent
from actui.tools.workflow import Workflow, load

pytestmark = pytest.mark.asyncio(loop_scope="module")

VALUES = {"Alice": ("s3cret-one", "Paris"), "Bob": ("s3cret-two", "Rome")}


async def _fill(agent: Agent, name: str, secret: str, city: str) -> None:
    """What an agent does: find the form, fill it and press OK, in one transaction."""
    roots = await agent.details("find_roots", {"text": TITLE})
    state = (await agent.details("observe_ui", {"root": roots["windows"][0]["windowRef"]}))[
        "stateId"
    ]
    fields = (("Name", "textbox", name), ("Secret", "password", secret), ("City", "textbox", city))
    actions: list[JsonObject] = [
        {"action": "setText", "ref": await agent.find_ref(state, field, role), "text": text}
        for field, role, text in fields
    ]
    ok = await agent.find_ref(state, "OK", "button")
    done = await agent.details(
        "act_ui",
        {
            "stateId": state,
            "actions": [*actions, {"action": "press", "ref": ok}],
            "expect": {"ref": ok, "gone": True},
        },
    )
    assert done["outcome"] == "worked", done


@dataclass
class Recorded:
    directory: Path
    workflows: dict[str, Workflow]
    """By the name typed in the form."""
    app: str
    """The ``--app`` of each desktop: the form, printing to ``printed``."""
    printed: Path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def recorded() -> AsyncIterator[Recorded]:
    """The workflows two concurrent sessions of one server recorded."""
    tmp = Path(tempfile.mkdtemp(prefix="r-"))  # short: the run dirs' sockets fit below it
    directory, printed = tmp / "workflows", tmp / "printed"
    form = f"zenity --forms --title={TITLE} {' '.join(FIELDS)}"
    app = shlex.join(["sh", "-c", f"exec {form} >> {printed}"])
    try:
        async with serving(
            tmp, "--max-desktops", "2", "--app", app, "--record", str(directory)
        ) as server:
            async with (
                http_session(server.url, TOKEN) as first,
                http_session(server.url, TOKEN) as second,
            ):
                for session, name in zip((first, second), VALUES, strict=True):
                    await _fill(Agent(session), name, *VALUES[name])
            assert server.process.returncode is None
        lines = sorted(printed.read_text().splitlines())
        assert lines == [f"{n}|{s}|{c}" for n, (s, c) in VALUES.items()]
        paths = sorted(directory.glob("*.workflow.json"))
        assert not any(s in p.read_text() for p in paths for s, _ in VALUES.values())
        workflows = [load(path) for path in paths]
        by_name = {str({v.name: v.default for v in w.variables}["name"]): w for w in workflows}
        yield Recorded(directory, by_name, app, printed)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def test_each_http_session_records_a_file_of_its_own_with_its_own_values(
    recorded: Recorded,
) -> None:
    assert sorted(recorded.workflows) == sorted(VALUES)
    assert len({w.name for w in recorded.workflows.values()}) == 2
    for name, workflow in recorded.workflows.items():
        defaults = {v.name: v.default for v in workflow.variables}
        assert defaults == {"name": name, "secret": None, "city": VALUES[name][1]}
        assert len(workflow.steps) == 1 and not workflow.leftOut


async def test_every_http_session_replays_a_recorded_workflow_as_one_tool_call(
    recorded: Recorded, module_sandbox: Sandbox
) -> None:
    flows = recorded.workflows
    tmp = Path(tempfile.mkdtemp(prefix="w-"))
    try:
        async with (
            serving(tmp, "--workflows", str(recorded.directory), "--record", str(tmp / "again"),
                    desktop=_env(module_sandbox))
            as server,
            http_session(server.url, TOKEN) as one,
            http_session(server.url, TOKEN) as two,
        ):  # fmt: skip
            for session, (given, workflow) in zip((one, two), flows.items(), strict=True):
                listed = {tool.name for tool in (await session.list_tools()).tools}
                assert {f"run_{w.name}" for w in flows.values()} <= listed
                form = await _form(module_sandbox)
                values = {"name": f"{given} again", "secret": "new-secret", "city": "Oslo"}
                result = await session.call_tool(
                    f"run_{workflow.name}", values, read_timeout_seconds=90
                )
                assert not result.is_error, result.content
                assert result.structured_content is not None
                assert result.structured_content["ok"] and result.structured_content["reached"] == 1
                assert await _printed(form) == f"{given} again|new-secret|Oslo\n"
                assert not process_alive(form.pid)
            assert server.process.returncode is None
        # the shared desktop's sessions, recorded too, each to a file of its own
        again = [load(path) for path in (tmp / "again").glob("*.workflow.json")]
        typed = sorted(str({v.name: v.default for v in w.variables}["name"]) for w in again)
        assert typed == [f"{given} again" for given in sorted(flows)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def test_every_private_desktop_session_runs_the_workflows_as_tools(
    recorded: Recorded,
) -> None:
    """Under ``--desktop-per-session`` the tools are in every session, each replaying on
    its own desktop's form."""
    tmp = recorded.printed.parent
    flags = ("--max-desktops", "2", "--app", recorded.app, "--workflows", str(recorded.directory))
    recorded.printed.write_text("")
    async with (
        serving(tmp, *flags) as server,
        http_session(server.url, TOKEN) as one,
        http_session(server.url, TOKEN) as two,
    ):
        for session, (given, workflow) in zip((one, two), recorded.workflows.items(), strict=True):
            values = {"name": f"{given} alone", "secret": "desk-secret", "city": "Lima"}
            result = await session.call_tool(
                f"run_{workflow.name}", values, read_timeout_seconds=90
            )
            assert not result.is_error, result.content
            assert result.structured_content is not None and result.structured_content["ok"]
        assert server.process.returncode is None
    lines = sorted(recorded.printed.read_text().splitlines())
    assert lines == [f"{given} alone|desk-secret|Lima" for given in sorted(recorded.workflows)]
