"""X11 and visual benchmarks: listing, capture, XTEST typing, OCR, against same-run baselines.

Four measures, in one private desktop (``Sandbox``), min / median / max over
repeated, interleaved runs:

0. ``listing``: the EWMH window listing as actui keeps it (a ``WindowWatch``:
   one round trip plus re-reads of what X events said changed) vs a full read
   of every window's properties and geometry (a fresh watch each time, which
   is what every listing cost before), with 1, 4 and 8 windows open;

1. ``capture``: actui's window capture (Composite pixmap, pixel conversion,
   downscale, PNG encoding) at the fused (900) and visual (1600) limits, per
   window size, vs a plain ``GetImage`` of the same window with no conversion
   or encoding (the floor any capture pays);
2. ``typing``: XTEST typing through ``X11Input.deliver`` into a zenity entry,
   every character verified by reading the entry back over AT-SPI, ASCII and
   Unicode (temporary keycode bindings), vs ``xdotool type --delay 0`` of the
   same text, verified the same way;
3. ``ocr``: a visual observation's OCR on gtk3-widget-factory (capture +
   Tesseract + folding into the outline) vs the semantic ``observe_ui`` of the
   same window; and how much text OCR finds that no accessible node carries.

Run: ``.venv/bin/python bench/bench_x11.py [--rounds N] [--only listing|capture|typing|ocr]``.
It measures whatever actui is installed; it must not change actui.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
from dataclasses import replace

from benchkit import SERIES_HEADERS, Series, Stopwatch, machine_line, ratio, series_row, table
from Xlib import X

from actui.backends.atspi import AtspiBackend
from actui.backends.base import ActionRequest, RootInfo
from actui.backends.linux.sandbox import Sandbox
from actui.backends.x11 import ewmh
from actui.backends.x11.connection import XConnection
from actui.backends.x11.input import X11Input
from actui.backends.x11.session import X11Session
from actui.backends.x11.window_watch import WindowWatch
from actui.runtime.ocr import recognize
from actui.runtime.visual import add_visual_evidence
from actui.tools.dispatch import ToolBox

MEASURES = ("listing", "capture", "typing", "ocr")
WINDOW_COUNTS = (1, 4, 8)
WINDOW_SIZES = ((320, 200), (800, 600), (1200, 780))
ASCII_TEXT = "The quick brown fox jumps over the lazy dog 0123456789 ,.;'[]-="
UNICODE_TEXT = "Ωmega – 42 ✓ é ß 中 Ünïcödé ½ € ° → ★"
READ_BACK_TIMEOUT_S = 5.0


def cost(baseline: float, ours: float) -> str:
    """How many times the baseline's time actui takes (ours / baseline)."""
    if ours != ours or baseline != baseline or baseline <= 0:
        return "–"
    return f"{ours / baseline:.1f}×"


async def _root(atspi: AtspiBackend, pid: int) -> RootInfo:
    async with asyncio.timeout(10):
        while True:
            roots = await atspi.list_roots(pid)
            if roots:
                return roots[0]
            await asyncio.sleep(0.05)


async def _window(session: X11Session, pid: int) -> int:
    async with asyncio.timeout(10):
        while True:
            found = [w for w in await session.windows() if w.pid == pid]
            if found:
                return found[0].window_id
            await asyncio.sleep(0.05)


def _plain_get_image(conn: XConnection, window_id: int) -> int:
    frame = ewmh.client_frame(conn, window_id)
    window = conn.display.create_resource_object("window", window_id)
    image = window.get_image(0, 0, frame.w, frame.h, X.ZPixmap, 0xFFFFFFFF)
    return len(image.data)


# ------------------------------------------------------------------ listing


async def bench_listing(desktop: Sandbox, rounds: int) -> str:
    conn = XConnection(desktop.display)
    watch = WindowWatch()
    apps: list[asyncio.subprocess.Process] = []
    rows: list[list[str]] = []
    try:
        for count in WINDOW_COUNTS:
            while len(apps) < count:
                app = await desktop.launch(["zenity", "--info", f"--text=window {len(apps)}"])
                await desktop.wait_for_app(app.pid)
                apps.append(app)
            async with asyncio.timeout(10):
                while True:
                    if len(await conn.call(watch.listing, conn)) >= count:
                        break
                    await asyncio.sleep(0.05)
            full = Series(f"{count} windows: full read (a fresh watch)")
            kept = Series(f"{count} windows: actui's watched listing")
            for _ in range(rounds):
                with Stopwatch() as w:
                    fresh = await conn.call(WindowWatch().listing, conn)
                full.add(w.ms)
                with Stopwatch() as w:
                    listed = await conn.call(watch.listing, conn)
                kept.add(w.ms)
                assert listed == fresh, "the watched listing must equal a full read"
            for series in (full, kept):
                rows.append([*series_row(series), ratio(full.median, series.median)])
    finally:
        for app in apps:
            app.kill()
        await conn.close()
    return table((*SERIES_HEADERS, "vs full read"), rows)


# ------------------------------------------------------------------ capture


async def bench_capture(desktop: Sandbox, rounds: int) -> str:
    session = X11Session(desktop.display)
    await session.start()
    rows: list[list[str]] = []
    try:
        for width, height in WINDOW_SIZES:
            app = await desktop.launch(
                ["zenity", "--info", f"--width={width}", f"--height={height}", "--text=size"]
            )
            await desktop.wait_for_app(app.pid)
            window = await _window(session, app.pid)
            await session.capture(window, max_dimension=1600)  # redirect settle, warm-up
            base = Series("GetImage, no encoding")
            fused = Series("capture + PNG, limit 900")
            visual = Series("capture + PNG, limit 1600")
            size = ""
            for _ in range(rounds):
                with Stopwatch() as w:
                    await session.connection.call(_plain_get_image, session.connection, window)
                base.add(w.ms)
                with Stopwatch() as w:
                    await session.capture(window, max_dimension=900)
                fused.add(w.ms)
                with Stopwatch() as w:
                    shot = await session.capture(window, max_dimension=1600)
                visual.add(w.ms)
                size = f"{shot.frame.w}×{shot.frame.h}"
            for series in (base, fused, visual):
                rows.append([size, *series_row(series), cost(base.median, series.median)])
            app.kill()
    finally:
        await session.close()
    return table(("window", *SERIES_HEADERS, "cost vs GetImage"), rows)


# ------------------------------------------------------------------- typing


async def _entry(atspi: AtspiBackend, root: RootInfo) -> str:
    snapshot = await atspi.snapshot(root, max_nodes=512, max_depth=32)
    stack = [snapshot.tree]
    while stack:
        node = stack.pop()
        if node.raw_role == "text" and "EditableText" in node.interfaces:
            return node.native_id
        stack.extend(node.children)
    raise RuntimeError("the zenity entry was not found")


async def _typed(atspi: AtspiBackend, root: RootInfo, entry: str, text: str) -> float:
    """Seconds until the entry reads exactly ``text`` (polled at 1 ms)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    async with asyncio.timeout(READ_BACK_TIMEOUT_S):
        while True:
            if (await atspi.read_text(root, entry, 0, 1 << 16)).text == text:
                return loop.time() - start
            await asyncio.sleep(0.001)


async def _clear(atspi: AtspiBackend, root: RootInfo, entry: str) -> None:
    request = ActionRequest("setText", root, "background", target=entry, text="")
    await atspi.act(request)


async def bench_typing(desktop: Sandbox, rounds: int) -> str:
    app = await desktop.launch(["zenity", "--entry", "--title=typing bench", "--text=Type:"])
    await desktop.wait_for_app(app.pid)
    atspi = AtspiBackend(env=desktop.env)
    session = X11Session(desktop.display)
    x11 = X11Input(session)
    rows: list[list[str]] = []
    try:
        await session.start()
        root = await _root(atspi, app.pid)
        window = await _window(session, app.pid)
        root = replace(root, window_id=window)
        entry = await _entry(atspi, root)
        has_xdotool = shutil.which("xdotool") is not None
        for label, text in (("ascii", ASCII_TEXT), ("unicode", UNICODE_TEXT)):
            ours = Series(f"actui XTEST, {label}")
            theirs = Series(f"xdotool type --delay 0, {label}")
            for _ in range(rounds):
                await _clear(atspi, root, entry)
                request = ActionRequest("typeText", root, "foreground", text=text)
                with Stopwatch() as w:
                    await x11.deliver(request, window)
                    await _typed(atspi, root, entry, text)
                ours.add(w.ms)
                if not has_xdotool:
                    continue
                await _clear(atspi, root, entry)
                exact = True
                with Stopwatch() as w:
                    tool = await asyncio.create_subprocess_exec(
                        "xdotool", "type", "--delay", "0", text, env=desktop.env
                    )
                    await asyncio.wait_for(tool.wait(), 20)
                    try:
                        await _typed(atspi, root, entry, text)
                    except TimeoutError:
                        exact = False
                if exact:
                    theirs.add(w.ms)
            for series in (ours, theirs):
                per_s = len(text) / (series.median / 1000) if series.ms else float("nan")
                verified = f"{len(series.ms)}/{rounds}"
                rows.append(
                    [
                        *series_row(series),
                        str(len(text)),
                        f"{per_s:.0f}" if per_s == per_s else "–",
                        verified,
                    ]
                )
    finally:
        await atspi.close()
        await session.close()
        app.kill()
    return table((*SERIES_HEADERS, "chars", "chars/s (median)", "exact"), rows)


# ---------------------------------------------------------------------- ocr


async def bench_ocr(desktop: Sandbox, rounds: int) -> str:
    app = await desktop.launch(["gtk3-widget-factory"])
    await desktop.wait_for_app(app.pid)
    computer = ToolBox(env={**desktop.env, "ACTUI_HEADLESS": "1"})
    semantic = Series("observe_ui semantic")
    visual = Series("observe_ui visual (capture)")
    ocr = Series("OCR (tesseract)")
    fold = Series("add_visual_evidence")
    counts = ""
    try:
        async with asyncio.timeout(10):
            while True:  # AT-SPI may list the window before X11 pairs it
                found = await computer.call("find_roots", {"pid": app.pid})
                paired = [w for w in found.details["windows"] if w["windowId"]]
                if paired:
                    break
                await asyncio.sleep(0.05)
        root = paired[0]["windowRef"]
        for _ in range(rounds):
            with Stopwatch() as w:
                await computer.call("observe_ui", {"root": root, "mode": "semantic"})
            semantic.add(w.ms)
            with Stopwatch() as w:
                observed = await computer.call("observe_ui", {"root": root, "mode": "visual"})
            visual.add(w.ms)
            assert observed.images, observed.text
            png = observed.images[0][0]
            with Stopwatch() as w:
                boxes = await recognize(png, timeout_s=60)
            ocr.add(w.ms)
            outline = computer.state(observed.details["stateId"]).outline
            with Stopwatch() as w:
                fused = add_visual_evidence(outline, boxes)
            fold.add(w.ms)
            pictured = [n for n in fused if n.picture_only]
            labelled = [
                n
                for n in outline
                if n.label.strip() and n.rect is not None and "showing" in n.states
            ]
            evidenced = [n for n in labelled if fused.nodes[n.ref].ocr_text]
            counts = (
                f"{len(boxes)} text lines read; {len(boxes) - len(pictured)} matched an "
                f"accessible node, {len(pictured)} found no node (picture-only: "
                + ", ".join(repr(n.name) for n in pictured[:8])
                + ("…" if len(pictured) > 8 else "")
                + f"); {len(evidenced)}/{len(labelled)} labelled on-screen nodes got evidence"
            )
    finally:
        await computer.close()
        app.kill()
    rows = [
        [*series_row(s), cost(semantic.median, s.median)] for s in (semantic, visual, ocr, fold)
    ]
    return table((*SERIES_HEADERS, "cost vs semantic"), rows) + "\n" + counts


async def main(rounds: int, only: list[str]) -> None:
    print(machine_line())
    async with Sandbox() as desktop:
        for name in only or MEASURES:
            runner = {
                "listing": bench_listing,
                "capture": bench_capture,
                "typing": bench_typing,
                "ocr": bench_ocr,
            }[name]
            print(f"\n## {name}\n")
            print(await runner(desktop, rounds))
    print("\n" + machine_line())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", action="append", choices=MEASURES, default=[])
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.only))
