"""Configuration: defaults < global file < project file < environment, key by key.

Files are re-read on every call so an agent host can change a setting without
a restart; each effective value remembers where it came from so ``actui
doctor`` can say why a setting is what it is. This module only reads.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Policy = Literal["ax_only", "background", "default", "foreground"]
_POLICIES = ("ax_only", "background", "default", "foreground")
_TRUE = {"1", "true", "yes", "on", "enabled"}
_FALSE = {"0", "false", "no", "off", "disabled"}

_KEYS: dict[str, tuple[str, object]] = {
    # key: (environment variable, default)
    "headless": ("ACTUI_HEADLESS", False),
    "browser_use": ("ACTUI_BROWSER_USE", True),
    "browser_headed": ("ACTUI_BROWSER_HEADED", False),
    "delivery_policy": ("ACTUI_DELIVERY_POLICY", "background"),
    "chrome_executable": ("ACTUI_CHROME_EXECUTABLE", ""),
    "cdp_port": ("ACTUI_CDP_PORT", ""),
    "cdp_host": ("ACTUI_CDP_HOST", "127.0.0.1"),
    "structured_content": ("ACTUI_STRUCTURED_CONTENT", True),
}


@dataclass(frozen=True)
class Config:
    headless: bool = False
    browser_use: bool = True
    browser_headed: bool = False
    delivery_policy: Policy = "background"
    chrome_executable: str = ""
    cdp_port: str = ""
    """A running browser's debugging port: its pages are roots too (empty: none)."""
    cdp_host: str = "127.0.0.1"
    """Where that port listens; loopback unless configured otherwise."""
    structured_content: bool = True
    """MCP results carry their details as structuredContent; off for clients that show the
    model both it and the text (docs/tokens.md), so the model pays once."""
    sources: Mapping[str, str] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)


def _parse_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def _coerce(key: str, value: object) -> object | None:
    """The value in the key's type, or None when it cannot be understood."""
    default = _KEYS[key][1]
    if isinstance(default, bool):
        return _parse_bool(value)
    text = str(value).strip()
    if key == "delivery_policy":
        return text if text in _POLICIES else None
    if key == "cdp_port":
        return text if text == "" or (text.isdigit() and 0 < int(text) < 65536) else None
    return text


def config_files(env: Mapping[str, str], cwd: Path) -> list[tuple[str, Path]]:
    xdg = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return [("global", Path(xdg) / "actui" / "config.toml"), ("project", cwd / ".actui.toml")]


def load_config(env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Config:
    env = os.environ if env is None else env
    values: dict[str, object] = {key: default for key, (_, default) in _KEYS.items()}
    sources = dict.fromkeys(_KEYS, "default")
    files: dict[str, str] = {}
    for label, path in config_files(env, cwd or Path.cwd()):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            files[label] = f"{path}: not found"
            continue
        except (OSError, tomllib.TOMLDecodeError) as exc:
            files[label] = f"{path}: error ({exc}); skipped"
            continue
        files[label] = f"{path}: loaded"
        for key, raw in data.items():
            if key not in _KEYS:
                continue
            if (value := _coerce(key, raw)) is not None:
                values[key] = value
                sources[key] = f"{label} ({path})"
            else:
                sources[key] += f"; ignored invalid {key} = {raw!r} in {path}"
    for key, (var, _) in _KEYS.items():
        if var not in env:
            continue
        if (value := _coerce(key, env[var])) is not None:
            values[key] = value
            sources[key] = f"env {var}"
        else:
            sources[key] += f"; ignored invalid {var}={env[var]!r}"
    return Config(**values, sources=sources, files=files)  # type: ignore[arg-type]
