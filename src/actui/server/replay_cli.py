"""``actui replay FILE [--var name=value]... [--dry-run] [--to-python [OUT]]``.

Runs a recorded workflow on this desktop (``DISPLAY`` and the session bus, or
inside ``actui sandbox run``) with no model calls, and prints the summary:
the steps, the time against the recorded act calls, and where it stopped
with what was expected beside what the UI shows. Exit status 0 only when
every step verified, 1 when a step did not, 2 when the file or a variable is
wrong (nothing was sent). ``--to-python`` writes the workflow as a script on
``actui.sync_api`` instead of running it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from actui.errors import ActuiError, InvalidParams
from actui.tools.dispatch import ToolBox
from actui.tools.replaying import WINDOW_TIMEOUT_S, parse_vars, replay
from actui.tools.workflow import Workflow, load, values_of
from actui.tools.workflow_script import script


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="actui replay", description=__doc__.split("\n\n")[1])
    parser.add_argument("file", help="a workflow file written by `actui mcp --record DIR`")
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variable's value (the recorded one otherwise; a secret must be given)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="find windows and elements, send nothing"
    )
    parser.add_argument(
        "--to-python",
        nargs="?",
        const="-",
        metavar="OUT",
        help="write the workflow as a Python script (to OUT, or stdout) instead of running it",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--window-timeout",
        type=float,
        default=WINDOW_TIMEOUT_S,
        metavar="S",
        help=f"seconds a step waits for its window (default {WINDOW_TIMEOUT_S:g})",
    )
    return parser


async def _run(workflow: Workflow, values: dict[str, str], ns: argparse.Namespace) -> int:
    computer = ToolBox()
    try:
        replayed = await replay(
            computer, workflow, values, dry_run=ns.dry_run, window_timeout_s=ns.window_timeout
        )
    finally:
        await computer.close()
    print(json.dumps(replayed.to_wire(), indent=2) if ns.json else replayed.text())
    return 0 if replayed.ok else 1


def replay_main(args: Sequence[str]) -> int:
    ns = _parser().parse_args(list(args))
    try:
        workflow = load(Path(ns.file))
        values = parse_vars(ns.var)
        if ns.to_python is not None:
            text = script(workflow, ns.file)
            if ns.to_python == "-":
                print(text, end="")
            else:
                Path(ns.to_python).write_text(text, encoding="utf-8")
            return 0
        values_of(workflow, values)  # a missing secret or an unknown name: before any call
        return asyncio.run(_run(workflow, values, ns))
    except InvalidParams as exc:
        print(f"actui replay: {exc.message}", file=sys.stderr)
        return 2
    except ActuiError as exc:
        print(f"actui replay: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
