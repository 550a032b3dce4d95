"""Wayland (headless sway) against X11 (Xvfb + openbox) on the same apps, in one run.

`.venv/bin/python bench/bench_wayland.py [--rounds N] [--gnome]`

With ``--gnome`` a headless gnome-shell joins the rounds, measured the same way:
its 200 characters are pasted through mutter's RemoteDesktop clipboard, since
its keymap has no key for most of them, and its click goes through a screen cast.

Each round starts one private desktop of each kind, interleaved, and on each
measures through the Python API (``actui.api.Computer``):

- ``desktop start``: the sandbox up (display server, buses, AT-SPI);
- ``first observe``: from launching ``zenity --entry`` to its first observation
  (window paired with the display server's and placed on the screen, tree read);
- ``type 200 chars``: a 200-character Unicode string typed as keystrokes at the
  focus (XTEST / the Wayland virtual keyboard), returned once the entry shows it
  exactly (``worked``: arrival verified by read-back);
- ``click``: a click at the entry's centre in screenshot pixels;
- ``screenshot``: the window's capture, PNG-encoded (``LinuxBackend.capture``), the
  second one of a backend (the first also opens its connections).

The ratio column is each Wayland desktop's median over X11's (below 1: it is faster);
the target is at most 1.5. It measures whatever actui is installed.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Literal

from benchkit import SERIES_HEADERS, Series, Stopwatch, machine_line, series_row, table

from actui.api import Computer, Observation, click_at, type_text
from actui.backends import arrival
from actui.backends.linux.backend import LinuxBackend
from actui.backends.linux.sandbox import Sandbox

TEXT = "".join("aé中Ω–✓ß b"[i % 9] for i in range(200))
STEPS = ("desktop start", "first observe", "type 200 chars", "click", "screenshot")
KINDS = ("x11", "wayland")
COMPOSITOR: dict[str, bool | Literal["gnome"]] = {"x11": False, "wayland": True, "gnome": "gnome"}


async def _observed(computer: Computer, pid: int) -> Observation:
    async with asyncio.timeout(20):
        while True:
            roots = await computer.find_roots(pid=pid)
            if roots and roots.first.root.window_id and roots.first.root.frame:  # placed
                return await computer.observe(roots.first)
            await asyncio.sleep(0.01)


async def _round(kind: str, series: dict[str, Series], exact: dict[str, int]) -> None:
    began = time.monotonic()
    async with Sandbox(wayland=COMPOSITOR[kind]) as desktop:
        series["desktop start"].add((time.monotonic() - began) * 1000)
        async with Computer(env={**desktop.env, "ACTUI_HEADLESS": "0"}) as computer:
            with Stopwatch() as first:
                app = await desktop.launch(["zenity", "--entry", "--text=Type:"])
                state = await _observed(computer, app.pid)
            series["first observe"].add(first.ms)
            entry = state.search(role="textbox").first
            assert entry.node.rect is not None
            with Stopwatch() as typed:
                done = await state.act(entry.focus(), type_text(TEXT))
            series["type 200 chars"].add(typed.ms)
            assert done.state is not None
            shown = await done.state.read_text(entry)
            exact[kind] += done.steps[1].outcome == "worked" and shown == TEXT
            with Stopwatch() as clicked:
                await done.state.act(click_at(*entry.node.rect.center))
            series["click"].add(clicked.ms)
            backend = LinuxBackend(env=desktop.env)
            try:
                async with asyncio.timeout(10):  # this backend's first listing pairs anew
                    while True:
                        roots = [r for r in await backend.list_roots(app.pid) if r.window_id]
                        if roots:
                            break
                        await asyncio.sleep(0.05)
                (root,) = roots
                await backend.capture(root, max_dimension=1600)  # connections made, as in use
                with Stopwatch() as shot:
                    image = await backend.capture(root, max_dimension=1600)
                assert image is not None and image.png
                series["screenshot"].add(shot.ms)
            finally:
                await backend.close()


async def bench(rounds: int, kinds: tuple[str, ...] = KINDS) -> str:
    arrival.SEMANTIC_TYPING_CHARS = 10**9  # every character physically, on each
    series = {kind: {step: Series(f"{step}, {kind}") for step in STEPS} for kind in kinds}
    exact = dict.fromkeys(kinds, 0)
    for _ in range(rounds):
        for kind in kinds:
            await _round(kind, series[kind], exact)
    rows = []
    for step in STEPS:
        x11 = series["x11"][step]
        rows.append(series_row(x11, ""))
        for kind in kinds[1:]:
            measured = series[kind][step]
            if measured.ms:
                rows.append(series_row(measured, f"{measured.median / x11.median:.2f}"))
    summary = ", ".join(f"{kind} {exact[kind]}/{rounds}" for kind in kinds)
    return table((*SERIES_HEADERS, "wayland / x11 (median)"), rows) + (
        f"\n\ntyped text worked and read back exactly: {summary}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--gnome", action="store_true", help="a headless gnome-shell too")
    args = parser.parse_args()
    kinds = (*KINDS, "gnome") if args.gnome else KINDS
    print(machine_line())
    print(f"{args.rounds} rounds, {', '.join(kinds)} interleaved\n")
    print(await bench(args.rounds, kinds))


if __name__ == "__main__":
    asyncio.run(main())
