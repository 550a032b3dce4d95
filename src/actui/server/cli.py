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


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    args = without_structured_content(args, os.environ)
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
        f"{NO_STRUCTURED}: results without structuredContent, see docs/tokens.md)",
    )
    sub.add_parser("sandbox", help="run a command in a private virtual desktop (see --help)")
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
