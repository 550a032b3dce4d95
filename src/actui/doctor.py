"""``actui doctor``: the effective configuration and a check of the session.

Each setting is printed with where it came from; each check says what is
wrong and how to fix it. It only reads and probes; it changes nothing.
"""

from __future__ import annotations

import os
import shutil

from actui.config import load_config


async def _check_atspi() -> str | None:
    from actui.backends.atspi.backend import AtspiBackend

    backend = AtspiBackend(env=os.environ)
    try:
        roots = await backend.list_roots()
    except Exception as exc:  # the check reports any failure as text
        return f"AT-SPI not reachable ({exc}); start the at-spi bus launcher or use actui sandbox"
    finally:
        await backend.close()
    print(f"  ok   AT-SPI: {len(roots)} roots")
    return None


async def doctor() -> int:
    cfg = load_config()
    print("configuration:")
    for key in (
        "headless",
        "browser_use",
        "browser_headed",
        "delivery_policy",
        "chrome_executable",
        "cdp_port",
    ):
        print(f"  {key} = {getattr(cfg, key)!r}  ({cfg.sources[key]})")
    for label, status in cfg.files.items():
        print(f"  {label} file: {status}")
    print("session:")
    problems: list[str] = []
    if not os.environ.get("DISPLAY"):
        problems.append("DISPLAY is not set: no X11 session; run inside `actui sandbox run --`")
    else:
        print(f"  ok   DISPLAY={os.environ['DISPLAY']}")
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        problems.append("DBUS_SESSION_BUS_ADDRESS is not set: no session bus")
    else:
        problem = await _check_atspi()
        if problem:
            problems.append(problem)
    browser = cfg.chrome_executable or shutil.which("chromium") or shutil.which("google-chrome")
    if browser:
        print(f"  ok   browser: {browser}")
    else:
        problems.append(
            "no Chromium found: apt-get install chromium or set ACTUI_CHROME_EXECUTABLE"
        )
    for problem in problems:
        print(f"  FAIL {problem}")
    return 1 if problems else 0
