"""Typing throughput with verified arrival, against the unverified path, in one run.

In one private desktop (``Sandbox``) with a zenity entry, min / median / max over
repeated, interleaved runs of 2,000 characters, ASCII and a non-ASCII mix:

- ``unverified``: ``X11Input.deliver`` without a read-back, the path every physical
  typeText took before: its time, its chars/s, and how many characters the entry showed
  at the moment it returned (what a next step would have met);
- ``verified``: ``LinuxBackend.act`` typing physically (the semantic route switched off)
  and returning once the entry shows the text: time, chars/s, and how often it read
  ``worked`` with the text exact;
- ``semantic``: ``LinuxBackend.act`` as shipped, where text this long at the focus goes
  in with ``EditableText.InsertText``.

Run: ``.venv/bin/python bench/bench_typing.py [--rounds N] [--chars N]``.
It measures whatever actui is installed; it must not change actui.
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import replace

from benchkit import SERIES_HEADERS, Series, Stopwatch, machine_line, series_row, table

from actui.backends import arrival
from actui.backends.base import ActionRequest, RootInfo
from actui.backends.linux.backend import LinuxBackend
from actui.backends.linux.sandbox import Sandbox

MIX = "aé中Ω–✓ß b"
SETTLE_S = 60.0


async def _root(backend: LinuxBackend, pid: int) -> RootInfo:
    async with asyncio.timeout(20):
        while True:
            roots = [r for r in await backend.list_roots(pid) if r.window_id]
            if roots:
                return roots[0]
            await asyncio.sleep(0.05)


async def _entry(backend: LinuxBackend, root: RootInfo) -> str:
    snapshot = await backend.snapshot(root, max_nodes=512, max_depth=32)
    stack = [snapshot.tree]
    while stack:
        node = stack.pop()
        if node.raw_role == "text" and "EditableText" in node.interfaces:
            return node.native_id
        stack.extend(node.children)
    raise RuntimeError("the zenity entry was not found")


async def _shown(backend: LinuxBackend, root: RootInfo, entry: str) -> str:
    return (await backend.read_text(root, entry, 0, 1 << 20)).text


async def _settled(backend: LinuxBackend, root: RootInfo, entry: str) -> str:
    """The entry's text once it stops changing (a run's backlog must not reach the next)."""
    last = None
    async with asyncio.timeout(SETTLE_S):
        while True:
            text = await _shown(backend, root, entry)
            if text == last:
                return text
            last = text
            await asyncio.sleep(0.5)


async def _clear_and_focus(backend: LinuxBackend, root: RootInfo, entry: str) -> None:
    await backend.act(ActionRequest("setText", root, "background", target=entry, text=""))
    await backend.act(ActionRequest("focus", root, "background", target=entry))


def _row(series: Series, chars: int, note: str) -> list[str]:
    per_s = chars / (series.median / 1000) if series.ms else float("nan")
    return [*series_row(series), f"{per_s:.0f}" if per_s == per_s else "–", note]


async def bench(rounds: int, chars: int) -> str:
    rows: list[list[str]] = []
    async with Sandbox() as desktop:
        app = await desktop.launch(["zenity", "--entry", "--title=typing bench", "--text=Type:"])
        await desktop.wait_for_app(app.pid)
        backend = LinuxBackend(env=desktop.env)
        try:
            root = await _root(backend, app.pid)
            entry = await _entry(backend, root)
            x11 = backend._input  # the unverified path: delivery alone
            assert x11 is not None and root.window_id
            texts = {
                "ascii": "".join(chr(33 + i % 94) for i in range(chars)),
                "non-ascii mix": "".join(MIX[i % len(MIX)] for i in range(chars)),
            }
            for label, text in texts.items():
                request = ActionRequest(
                    "typeText", root, "foreground", text=text, timeout_s=0.025 * chars + 4.0
                )
                unverified = Series(f"unverified XTEST, {label}")
                verified = Series(f"verified XTEST, {label}")
                semantic = Series(f"semantic insert, {label}")
                arrived: list[int] = []
                exact = {"verified": 0, "semantic": 0}
                for _ in range(rounds):
                    await _clear_and_focus(backend, root, entry)
                    with Stopwatch() as w:
                        await x11.deliver(request, root.window_id)
                    arrived.append(len(await _shown(backend, root, entry)))
                    unverified.add(w.ms)
                    await _settled(backend, root, entry)

                    await _clear_and_focus(backend, root, entry)
                    threshold = arrival.SEMANTIC_TYPING_CHARS
                    arrival.SEMANTIC_TYPING_CHARS = 10**9
                    try:
                        with Stopwatch() as w:
                            result = await backend.act(request)
                    finally:
                        arrival.SEMANTIC_TYPING_CHARS = threshold
                    verified.add(w.ms)
                    shown = await _settled(backend, root, entry)
                    exact["verified"] += result.outcome == "worked" and shown == text

                    await _clear_and_focus(backend, root, entry)
                    with Stopwatch() as w:
                        result = await backend.act(replace(request))
                    semantic.add(w.ms)
                    shown = await _settled(backend, root, entry)
                    exact["semantic"] += result.outcome == "worked" and shown == text
                arrived.sort()
                rows.append(
                    _row(
                        unverified,
                        chars,
                        f"arrived when it returned: median {arrived[len(arrived) // 2]} / {chars}",
                    )
                )
                rows.append(_row(verified, chars, f"worked and exact {exact['verified']}/{rounds}"))
                rows.append(_row(semantic, chars, f"worked and exact {exact['semantic']}/{rounds}"))
        finally:
            await backend.close()
            app.kill()
    return table((*SERIES_HEADERS, "chars/s (median)", "arrival"), rows)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chars", type=int, default=2000)
    args = parser.parse_args()
    print(machine_line())
    print(f"{args.chars} characters per run, {args.rounds} rounds\n")
    print(await bench(args.rounds, args.chars))


if __name__ == "__main__":
    asyncio.run(main())
