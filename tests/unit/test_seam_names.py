"""No module above the backend seam names a platform or reads the environment.

The registry (``actui.backends.registry``) alone chooses platforms and reads
the process environment; above it, code (not prose: docstrings and comments
may explain what a platform does) must neither import a platform package,
nor touch ``os.environ``, nor spell a platform's name in an identifier or a
string. The check reads the source, so a new module is covered the day it
is written.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import actui

PACKAGE = Path(actui.__file__).parent
SEAM = {"base", "browsing", "registry"}
"""The modules of ``actui.backends`` that upper layers may import: the seam and the registry."""
PLATFORM = re.compile(r"at-?spi|x11|xlib|ewmh|xtest|\bcdp|cdp_|devtools|linux|d-?bus", re.I)
ENVIRONMENT = {"environ", "environb", "getenv", "putenv", "unsetenv"}
BESIDE = {
    "cli.py": "the command's entry point hands its process environment to the MCP layer",
    "mcp_http.py": "the HTTP server starts a sandbox per session from its environment",
    "config.py": "the configuration's keys are the user's names, read from env and files",
    "ocr.py": "runs the OCR engine as a process with the caller's environment",
}
"""Modules beside the layers rather than above the seam: entry points and the desktop
sandbox, which exist to deal with a platform or a process environment."""


def _docstrings(tree: ast.AST) -> set[int]:
    """Ids of string constants that are documentation (module, class, function or
    attribute docstrings): prose, not code."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        for statement in body if isinstance(body, list) else []:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                found.add(id(statement.value))
    return found


def _platform_module(name: str) -> bool:
    parts = name.split(".")
    return parts[:2] == ["actui", "backends"] and len(parts) > 2 and parts[2] not in SEAM


def violations(source: str) -> list[str]:
    """Where ``source`` names a platform or reads the environment, one line per place."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        words: list[str] = []
        if isinstance(node, ast.Import):
            found += [f"{line}: imports {a.name}" for a in node.names if _platform_module(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if _platform_module(node.module):
                found.append(f"{line}: imports {node.module}")
            if node.module == "os":
                found += [f"{line}: os.{a.name}" for a in node.names if a.name in ENVIRONMENT]
        elif isinstance(node, ast.Attribute):
            value = node.value
            if isinstance(value, ast.Name) and value.id == "os" and node.attr in ENVIRONMENT:
                found.append(f"{line}: os.{node.attr}")
            words.append(node.attr)
        elif isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            words.append(node.name)
        elif isinstance(node, ast.arg):
            words.append(node.arg)
        elif isinstance(node, ast.alias):
            words.append(node.asname or node.name)
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
        ):
            words.append(node.value)
        found += [f"{line}: names {word[:60]!r}" for word in words if PLATFORM.search(word)]
    return found


def _above_the_seam() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "backends"
        and str(path.relative_to(PACKAGE)) not in BESIDE
    ]


def test_no_module_above_the_seam_names_a_platform_or_reads_the_environment() -> None:
    modules = _above_the_seam()
    assert len(modules) > 30, "the walk found the package's modules"
    found = [
        f"{path.relative_to(PACKAGE)}:{where}"
        for path in modules
        for where in violations(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_every_module_set_beside_the_layers_exists() -> None:
    missing = [name for name in BESIDE if not (PACKAGE / name).is_file()]
    assert not missing, f"stale exemptions: {missing}"


def test_the_check_finds_a_platform_import_an_environment_read_and_a_platform_name() -> None:
    source = '''"""A module may say AT-SPI in its docstring."""
import os
from os import getenv
from actui.backends.linux.backend import LinuxBackend
import actui.backends.cdp.page
from actui.backends.base import RootInfo

def pick(x11_display: str) -> str:
    """And here: D-Bus."""
    # and in a comment: CDP
    return os.environ.get("DBUS_SESSION_BUS_ADDRESS", "") + getenv("HOME", "")
'''
    found = violations(source)
    assert any("imports actui.backends.linux" in f for f in found), found
    assert any("imports actui.backends.cdp.page" in f for f in found), found
    assert any("os.environ" in f for f in found) and any("os.getenv" in f for f in found)
    assert any("'x11_display'" in f for f in found), found
    assert any("'LinuxBackend'" in f for f in found), found
    assert any("'DBUS_SESSION_BUS_ADDRESS'" in f for f in found), found
    assert not any("RootInfo" in f or "AT-SPI" in f or "D-Bus" in f for f in found), found
