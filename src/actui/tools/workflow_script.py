"""A workflow as a readable Python script on ``actui.sync_api`` (``actui replay FILE --to-python``).

The script does what a replay does, in code a person can read and change:
per step it waits for the window, finds each element by role, name and named
ancestors (``Observation.one``: exactly one, or it raises with the
candidates), and runs one ``act`` whose ``Expect`` must hold
(``raise_for_outcome``). Variables are its arguments (``name=value``); a
secret has no default and must be given. This module writes text; it must not
run anything.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from pathlib import Path

from actui.outline.selectors import Selector
from actui.tools.workflow import TEMPLATE, Act, Check, Step, Workflow

_METHODS = {
    "press": "press",
    "toggle": "toggle",
    "select": "select",
    "focus": "focus",
    "expand": "expand",
    "collapse": "collapse",
}
"""Element steps that take no argument: the ``actui.api.Element`` method of each."""
_IN = " " * 12
"""A step's lines sit in ``main``, in ``try``, in ``with``."""


def _expr(template: str) -> str:
    """A template as a Python expression over ``v`` (the variables' values)."""
    parts: list[str] = []
    at = 0
    for match in TEMPLATE.finditer(template):
        if match.start() > at:
            parts.append(repr(template[at : match.start()]))
        value = f"v[{match.group(1)!r}]"
        parts.append(f"os.path.basename({value})" if match.group(2) else value)
        at = match.end()
    if at < len(template) or not parts:
        parts.append(repr(template[at:]))
    return " + ".join(parts)


def _ident(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_").lstrip("0123456789_") or "element"
    if keyword.iskeyword(base) or base in {"v", "state", "computer", "done", "os", "sys"}:
        base += "_"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def _find(selector: Selector) -> str:
    args = [repr(selector.role), repr(selector.name)]
    args.append(f"path={[(a.role, a.name) for a in selector.path]!r}")  # exactly these
    if selector.index is not None:
        args.append(f"index={selector.index}, of={selector.of}")
    return f"state.one({', '.join(args)})"


def _expect(check: Check, names: Mapping[Selector, str]) -> str:
    args = []
    if check.text is not None:
        args.append(f"text={_expr(check.text)}")
    if check.role is not None:
        args.append(f"role={check.role!r}")
    if check.target is not None:
        args.append(f"ref={names[check.target]}")
    if check.value is not None:
        args.append(f"value={_expr(check.value)}")
    if check.scope is not None:
        args.append(f"scope={names[check.scope]}")
    if check.scopeExact is not None:
        args.append(f"scope_exact={check.scopeExact}")
    if check.until == "absent":
        args.append("gone=True")
    if check.timeoutMs is not None:
        args.append(f"timeout_ms={check.timeoutMs}")
    return f"Expect({', '.join(args)})"


def _act(act: Act, names: Mapping[Selector, str]) -> str:
    extra = act.model_extra or {}
    target = names[act.target] if act.target is not None else None
    text = _expr(act.text) if act.text is not None else None
    if act.action in _METHODS and target:
        return f"{target}.{_METHODS[act.action]}()"
    if act.action == "setText" and target:
        return f"{target}.set_text({text})"
    if act.action == "typeText":
        return f"{target}.type_text({text})" if target else f"type_text({text})"
    if act.action == "keypress":
        keys = ", ".join(repr(k) for k in extra.get("keys", []))
        return f"{target}.keypress({keys})" if target else f"keypress({keys})"
    if act.action == "wait":
        if act.until is not None:
            return f"wait(until={_expect(act.until, names)})"
        return f"wait(ms={extra.get('ms')})"
    wire = {k: v for k, v in extra.items()}
    if target:
        return f"Step.model_validate({{'action': {act.action!r}, 'ref': {target}.ref, **{wire!r}}})"
    return f"Step.model_validate({{'action': {act.action!r}, **{wire!r}}})"


def _step(index: int, total: int, step: Step) -> list[str]:
    window = step.window
    kind = f", kind={window.kind!r}"
    url = f", url={_expr(window.url)}" if window.url else ""
    lines = [
        f"{_IN}step = {index}  # of {total}: {window.app} {window.kind} {window.title!r}",
        f"{_IN}root = computer.wait_for_window(app={window.app!r}{kind}, "
        f"title={_expr(window.title)}{url})",
        f'{_IN}state = computer.observe(root, mode="semantic")',
    ]
    names: dict[Selector, str] = {}
    taken: set[str] = set()
    for selector in step.selectors():
        if selector not in names:
            names[selector] = _ident(selector.name or selector.role, taken)
            lines.append(f"{_IN}{names[selector]} = {_find(selector)}")
    lines += [f"{_IN}computer.act(", f"{_IN}    state,"]
    lines += [f"{_IN}    {_act(act, names)}," for act in step.actions]
    if step.require is not None:
        lines.append(f"{_IN}    require={_expect(step.require, names)},")
    if step.expect is not None:
        lines.append(f"{_IN}    expect={_expect(step.expect, names)},")
    lines.append(f"{_IN}).raise_for_outcome()")
    return lines


def _api_imports(body: list[str]) -> list[str]:
    """The import of what the steps use from ``actui.api`` (``NoMatch`` always)."""
    text = "\n".join(body)
    used = [
        n for n in ("Step", "keypress", "type_text", "wait") if f"{n}(" in text or f"{n}." in text
    ]
    return [f"from actui.api import {', '.join(['NoMatch', *used])}"]


def script(workflow: Workflow, source: str) -> str:
    """The Python script of ``workflow`` (read from ``source``)."""
    defaults = {v.name: v.default for v in workflow.variables}
    total = len(workflow.steps)
    body = [line for i, s in enumerate(workflow.steps, 1) for line in _step(i, total, s)]
    return "\n".join(
        [
            f'"""Workflow {workflow.name!r}: {total} steps recorded {workflow.recordedAt}.',
            "",
            f"Written by `actui replay {Path(source).name} --to-python`. Run it on the",
            "desktop the workflow runs on (this session's, or inside `actui sandbox run`):",
            "",
            "    python SCRIPT [name=value]...",
            "",
            "Each step waits for its window, finds every element by role, name and named",
            "ancestors (exactly one each) and runs one act whose Expect must hold. Exit",
            "status 0 when every step verified, 1 at the first step that did not.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "import os.path",
            "import sys",
            "",
            "from actui import Expect",
            *_api_imports(body),
            "from actui.errors import ActuiError",
            "from actui.sync_api import SyncComputer",
            "",
            f"VARIABLES: dict[str, str | None] = {defaults!r}",
            '"""The recorded values; None for a secret, which must be given."""',
            "",
            "",
            "def main(argv: list[str]) -> int:",
            "    v = {**VARIABLES, **dict(arg.split('=', 1) for arg in argv)}",
            "    missing = [name for name, value in v.items() if value is None]",
            "    if missing:",
            "        print(f'give {missing[0]}=VALUE (a secret)', file=sys.stderr)",
            "        return 2",
            "    step = 0",
            "    try:",
            "        with SyncComputer() as computer:",
            *body,
            "    except (ActuiError, NoMatch) as exc:",
            "        print(f'step {step} of "
            + str(total)
            + " did not verify: {exc}', file=sys.stderr)",
            "        return 1",
            f"    print('all {total} steps verified')",
            "    return 0",
            "",
            "",
            'if __name__ == "__main__":',
            "    sys.exit(main(sys.argv[1:]))",
            "",
        ]
    )
