"""docs/layout.md lists every module of ``src/actui`` with its line count, and no other."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


def test_the_layout_lists_every_module_and_only_those() -> None:
    text = (ROOT / "docs" / "layout.md").read_text()
    listed = dict(re.findall(r"^\| `([^`]+\.py)` \| (\d+) \|", text, re.MULTILINE))
    modules = {str(p.relative_to(SRC)): p for p in SRC.rglob("*.py")}
    assert sorted(listed) == sorted(modules), "add or drop rows in docs/layout.md"
    far = {
        path: (int(lines), n)
        for path, lines in listed.items()
        if abs(int(lines) - (n := len(modules[path].read_text().splitlines()))) > 100
    }
    assert not far, f"line counts in docs/layout.md are out of date: {far}"
