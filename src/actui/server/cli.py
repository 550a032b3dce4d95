"""The ``actui`` command: the MCP server, the sandbox, schemas, doctor, demo.

A thin dispatcher: each subcommand delegates to the module that owns the
work. People can also run any tool once with ``actui call TOOL '{json}'``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import MutableMapping, Sequence


def _call(tool: str, arguments: str) -> int:
    from actui.tools.dispatch import ToolBox

    async def run() -> int:
        computer = ToolBox()
        try:
            result = await computer.call(tool, json.loads(arguments or "{}"))
        finally:
            await computer.close()
        print(result.text)
        return 1 if result.is_error else 0

    return asyncio.run(run())


def _repl() -> int:
    """One session for people: ``TOOL {json}`` per line; states live until EOF."""
    from actui.tools.dispatch import ToolBox

    async def run() -> int:
        computer = ToolBox()
        loop = asyncio.get_running_loop()
        try:
            while True:
                line = await loop.run_in_executor(None, sys.stdin.readline)
                if not line:
                    return 0
                tool, _, arguments = line.strip().partition(" ")
                if not tool:
                    continue
                try:
                    parsed = json.loads(arguments or "{}")
                except json.JSONDecodeError as exc:
                    print(f"arguments: not JSON ({exc.msg}); write e.g. find_roots {{}}")
                    continue
                print((await computer.call(tool, parsed)).text, flush=True)
        finally:
            await computer.close()

    return asyncio.run(run())


def _schema(fmt: str) -> int:
    from actui.tools.catalog import export_schemas
    from actui.tools.docs import markdown_reference

    if fmt == "markdown":
        print(markdown_reference(), end="")
    else:
        print(json.dumps(export_schemas(fmt), indent=2))  # type: ignore[arg-type]
    return 0


NO_STRUCTURED = "--no-structured-content"
"""``actui mcp`` flag: the config key ``structured_content = false`` for this server."""


def without_structured_content(args: list[str], env: MutableMapping[str, str]) -> list[str]:
    """``actui mcp``'s arguments less :data:`NO_STRUCTURED`, which it turns into the most
    specific setting there is: ``ACTUI_STRUCTURED_CONTENT=false`` for this process."""
    if args[:1] != ["mcp"] or NO_STRUCTURED not in args:
        return args
    env["ACTUI_STRUCTURED_CONTENT"] = "false"
    return [arg for arg in args if arg != NO_STRUCTURED]


WORKFLOW_FLAGS = ("--record", "--workflows")
"""``actui mcp`` flags that take a directory: record the session's acts as a workflow file;
serve the workflows in a directory as tools (``docs/replay.md``)."""


def workflow_dirs(args: list[str]) -> tuple[list[str], dict[str, str]]:
    """``actui mcp``'s arguments less :data:`WORKFLOW_FLAGS` and the directory each names."""
    rest: list[str] = []
    dirs: dict[str, str] = {}
    it = iter(args)
    for arg in it:
        flag, eq, value = arg.partition("=")
        if args[:1] == ["mcp"] and flag in WORKFLOW_FLAGS:
            dirs[flag] = value if eq else next(it, "")
        else:
            rest.append(arg)
    return rest, dirs


def _mcp(http: list[str], dirs: dict[str, str]) -> int:
    """``actui mcp`` with a workflow flag: on stdio, or over HTTP given ``http``'s flags."""
    from pathlib import Path

    from actui.errors import InvalidParams
    from actui.server.mcp_workflows import load_workflows

    missing = [flag for flag, value in dirs.items() if not value]
    if missing:
        print(f"actui mcp: {missing[0]} needs a directory, e.g. {missing[0]} ~/workflows")
        return 2
    record, served = dirs.get("--record"), dirs.get("--workflows")
    try:
        workflows = load_workflows(Path(served).expanduser()) if served else None
    except InvalidParams as exc:
        print(f"actui mcp: {exc.message}", file=sys.stderr)
        return 2
    recording = Path(record).expanduser() if record else None
    if http:
        from actui.server.mcp_http import http_main

        return http_main(http, record=recording, workflows=workflows)
    from actui.server.mcp_stdio import main as mcp_main

    mcp_main(record=recording, workflows=workflows)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    args = without_structured_content(args, os.environ)
    args, dirs = workflow_dirs(args)
    if args[:1] == ["mcp"] and dirs:
        return _mcp(args[1:], dirs)
    if args[:1] == ["replay"]:
        from actui.server.replay_cli import replay_main

        return replay_main(args[1:])
    if args[:1] == ["mcp"] and args[1:]:
        from actui.server.mcp_http import http_main

        return http_main(args[1:])
    if args and args[0] == "sandbox":
        from actui.backends.linux.sandbox_cli import sandbox_main

        return sandbox_main(args[1:])
    parser = argparse.ArgumentParser(prog="actui", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "mcp",
        help="serve the tools over MCP on stdio (`actui mcp --http --help`: HTTP; "
        f"{NO_STRUCTURED}: results without structuredContent, see docs/tokens.md; "
        "--record DIR: write the session's acts as a workflow; --workflows DIR: each "
        "workflow there as a tool run_<name>, see docs/replay.md)",
    )
    sub.add_parser("sandbox", help="run a command in a private virtual desktop (see --help)")
    sub.add_parser(
        "replay",
        help="replay a recorded workflow (`actui mcp --record DIR`), no model calls (see --help)",
    )
    schema = sub.add_parser("schema", help="print the tool schemas")
    schema.add_argument(
        "--format", choices=("mcp", "openai", "anthropic", "markdown"), default="mcp"
    )
    sub.add_parser("doctor", help="show the configuration and check the session")
    sub.add_parser("demo", help="drive gnome-calculator and zenity through MCP in a sandbox")
    sub.add_parser("repl", help="a session on stdin: one `TOOL {json}` per line")
    sub.add_parser("roots", help="list windows and pages (find_roots)")
    call = sub.add_parser("call", help="run one tool: actui call TOOL '{json arguments}'")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", default="{}")
    ns = parser.parse_args(args)
    if ns.command == "mcp":
        from actui.server.mcp_stdio import main as mcp_main

        mcp_main()
        return 0
    if ns.command == "schema":
        return _schema(ns.format)
    if ns.command == "doctor":
        from actui.backends.linux.doctor import doctor

        return asyncio.run(doctor())
    if ns.command == "repl":
        return _repl()
    if ns.command == "roots":
        return _call("find_roots", "{}")
    if ns.command == "demo":
        from actui.server.demo import main as demo_main

        return demo_main()
    return _call(ns.tool, ns.arguments)


if __name__ == "__main__":
    sys.exit(main())
