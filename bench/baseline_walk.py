"""The peer baselines, run under Debian's python (bench/.baseline-venv), one process each.

Three jobs, each reporting its own timings as JSON lines on stdout so the
benchmark can compare them with actui against the same application in the
same run: ``dump`` (dogtail's ``Node.dump()`` of the window), ``walk`` (a
pyatspi walk reading name, role, states, interfaces and children of every
node) and ``poll`` (a 150 ms polling loop waiting for a text field to show a
value, the way a client without events waits). It imports nothing of actui.
Times are ``time.monotonic()`` (CLOCK_MONOTONIC), comparable across processes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

WINDOW_ROLES = ("frame", "window", "dialog")


def children(node: Any) -> Iterator[Any]:
    """Through libatspi's own methods, which both dogtail's and pyatspi's objects have."""
    for index in range(node.get_child_count()):
        child = node.get_child_at_index(index)
        if child is not None:
            yield child


def window_of(desktop: Any, pid: int) -> Any:
    """The first top-level window of the application with this pid."""
    for app in children(desktop):
        if app.get_process_id() == pid:
            for window in children(app):
                if window.get_role_name() in WINDOW_ROLES:
                    return window
    raise SystemExit(f"no window of pid {pid} on the accessibility bus")


def pyatspi_nodes(node: Any) -> Iterator[Any]:
    """Every node under ``node``, reading what a client needs to describe each."""
    _ = (node.name, node.getRoleName(), node.getState().getStates(), node.get_interfaces())
    yield node
    for index in range(node.childCount):
        child = node.getChildAtIndex(index)
        if child is not None:
            yield from pyatspi_nodes(child)


def timed_ms(run: Any) -> tuple[float, int]:
    start = time.monotonic()
    count = run()
    return (time.monotonic() - start) * 1000, count


def walk(pid: int, repeat: int, method: str) -> dict[str, Any]:
    started = time.monotonic()
    if method == "dogtail":
        from dogtail import tree  # type: ignore[import-not-found]  # connects on import

        window = window_of(tree.root, pid)

        def run() -> int:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                window.dump()
            return out.getvalue().count("\n") - 1  # dump prints one line per node + a newline

    else:
        import pyatspi  # type: ignore[import-not-found]

        window = window_of(pyatspi.Registry.getDesktop(0), pid)

        def run() -> int:
            return sum(1 for _ in pyatspi_nodes(window))

    setup_ms = (time.monotonic() - started) * 1000
    runs = [timed_ms(run) for _ in range(repeat)]
    return {
        "method": method,
        "setup_ms": setup_ms,
        "runs_ms": [ms for ms, _ in runs],
        "nodes": runs[0][1],
    }


def find_text(node: Any) -> Any:
    for each in pyatspi_nodes(node):
        if each.getRoleName() == "text":
            return each
    raise SystemExit("no text field in the window")


def poll(pid: int, interval_s: float) -> None:
    """For each value read from stdin: ack, poll until the field shows it, report when."""
    import pyatspi

    field = find_text(window_of(pyatspi.Registry.getDesktop(0), pid)).queryText()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        wanted = line.rstrip("\n")
        if wanted == "":
            return
        print(json.dumps({"polling": wanted}), flush=True)
        reads = 0
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            reads += 1
            if field.getText(0, -1) == wanted:
                print(json.dumps({"detected_at": time.monotonic(), "reads": reads}), flush=True)
                break
            time.sleep(interval_s)
        else:
            print(json.dumps({"timeout": True, "reads": reads}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("job", choices=("dump", "walk", "poll"))
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--interval", type=float, default=0.15)
    args = parser.parse_args()
    if args.job == "poll":
        poll(args.pid, args.interval)
        return
    method = "dogtail" if args.job == "dump" else "pyatspi"
    print(json.dumps(walk(args.pid, args.repeat, method)), flush=True)


if __name__ == "__main__":
    main()
