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
    "server/cli.py": "the command's entry point hands its process environment to the MCP layer",
    "server/mcp_http.py": "the HTTP server starts a sandbox per session from its environment",
    "config.py": "the configuration's keys are the user's names, read from env and files",
    "runtime/ocr.py": "runs the OCR engine as a process with the caller's environment",
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


LAYERS = ("ground", "backends", "outline", "runtime", "results", "tools", "face", "server")
"""The layers from the bottom up: a module imports only from its own layer or one below."""
FACE = {"__init__", "api", "sync_api"}
"""The public face's modules at the package's top; every other top-level module is ground."""
GROUND = {"config", "deadlines", "errors", "quoting", "refusals", "sentences", "tokens", "urls"}


def layer_of(module: str) -> str:
    """The layer of a dotted module name inside ``actui``."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in FACE:
        return "face"
    return parts[1] if parts[1] in LAYERS else "ground"


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    """Every ``actui`` module a source imports, with its line (``from actui import x`` names
    the module ``actui.x`` when ``x`` is one, else the package's face)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("actui")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "actui":
                for alias in node.names:
                    sub = PACKAGE / f"{alias.name}.py"
                    is_module = sub.is_file() or (PACKAGE / alias.name).is_dir()
                    found.append((node.lineno, f"actui.{alias.name}" if is_module else "actui"))
            elif node.module.startswith("actui"):
                found.append((node.lineno, node.module))
    return found


def upward_imports(path: Path) -> list[str]:
    """Where the module at ``path`` imports from a layer above its own."""
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    name = ".".join(relative.parts).removesuffix(".__init__")
    own = LAYERS.index(layer_of(name))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{relative}.py:{line}: {layer_of(name)} imports {module} ({layer_of(module)})"
        for line, module in _imported(tree)
        if LAYERS.index(layer_of(module)) > own
    ]


def test_every_module_imports_only_its_own_layer_or_those_below() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 100, "the walk found the package's modules"
    found = [where for path in modules for where in upward_imports(path)]
    assert not found, "\n".join(found)


def test_the_package_top_holds_the_layer_folders_the_face_and_the_ground_only() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(LAYERS) - {"ground", "face"}
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    assert modules == FACE | GROUND


def test_the_layer_check_finds_an_upward_import() -> None:
    assert layer_of("actui.runtime.observer") == "runtime"
    assert layer_of("actui.errors") == "ground"
    assert layer_of("actui") == layer_of("actui.api") == "face"
    tree = ast.parse("from actui.results.typed import Found\nfrom actui import contract\n")
    assert [m for _, m in _imported(tree)] == ["actui.results.typed", "actui"]
    below = [LAYERS.index(layer_of(m)) for _, m in _imported(tree)]
    assert below[0] > LAYERS.index("runtime"), "a runtime module importing results is upward"
