"""Which AT-SPI calls each toolkit survives: the evidence behind ``backends/atspi/toolkits.py``.

`.venv/bin/python bench/probe_toolkit_calls.py APP... [--reads-only] [--json]`
(APP: one of ``APPS`` below, e.g. ``featherpad designer mousepad firefox``).

For each app it starts a private desktop (``actui.backends.linux.sandbox.Sandbox``), launches the
app, and sends every kind of call actui sends to applications (``KINDS``: the
properties, methods and bulk reads found by grepping ``src/actui/backends/atspi``)
once, from a bare dbus-fast connection (not actui's bus code, which would route
around what is being measured), against a representative node: the application
root, a top-level window, the first showing node with the interface the call needs.
After each call it waits a moment and asks the application for its toolkit name
(``Get Application.ToolkitName``, harmless everywhere measured) and reports:

- ``answered``: a reply came back and the app still answers;
- ``error NAME``: a D-Bus error reply, the app still answers;
- ``died SIG``: the process exited (signal or code);
- ``wedged``: the app is alive but does not answer within the timeout;
- ``no target``: no node offering the interface was found.

An app that dies or wedges is killed and started again before the next kind, so
one crash does not hide the rest of the row. Writes (``write=True``: text set or
inserted, an action done, a child selected, a value set) go to the app's own
document or a benign widget; ``--reads-only`` leaves them out (LibreOffice).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from actui.backends.atspi.tables import role_name
from actui.backends.linux.sandbox import Sandbox, app_env

IFACE = "org.a11y.atspi."
PROPS = "org.freedesktop.DBus.Properties"
REGISTRY = "org.a11y.atspi.Registry"
ROOT = "/org/a11y/atspi/accessible/root"
CALL_TIMEOUT_S = 5.0
SETTLE_S = 0.5
MAX_WALK = 2500
ROOT_DIR = Path(__file__).resolve().parents[1]
SHOWING, VISIBLE, FOCUSABLE = 1 << 25, 1 << 30, 1 << 11
BENIGN_ACTION_ROLES = ("check box", "toggle button", "page tab", "radio button", "menu")
SELECTION_ROLES = ("page tab list", "list", "list box", "table", "tree table", "tree")
VALUE_ROLES = ("scroll bar", "slider", "spin button")


@dataclass(frozen=True)
class App:
    argv: Sequence[str]
    extra_env: dict[str, str] = field(default_factory=dict)
    startup_s: float = 60.0


def _apps(tmp: Path) -> dict[str, App]:
    long = tmp / "long.txt"  # long enough for scroll bars
    long.write_text("".join(f"line {i}\n" for i in range(300)))
    (tmp / "ff").mkdir()  # Firefox only asks "Profile Missing" otherwise
    url = (ROOT_DIR / "tests" / "apps" / "web" / "widgets.html").as_uri()
    return {
        "featherpad": App(["featherpad", str(long)]),
        "designer": App(["/usr/lib/qt6/bin/designer"]),
        "qt_form": App([sys.executable, str(ROOT_DIR / "tests" / "apps" / "qt_form.py")]),
        "mousepad": App(["mousepad", str(long)]),
        "thunar": App(["thunar", str(tmp)]),
        "zenity": App(["zenity", "--forms", "--add-entry=Name", "--add-entry=City"]),
        "gnome-text-editor": App(["gnome-text-editor", "--standalone", str(long)]),
        "gtk4-widget-factory": App(["gtk4-widget-factory"]),
        "firefox": App(
            ["firefox-esr", "--no-remote", "--profile", str(tmp / "ff"), url],
            {"GNOME_ACCESSIBILITY": "1", "MOZ_CRASHREPORTER_DISABLE": "1"},
        ),
        "chromium": App(
            [
                "chromium",
                "--no-sandbox",
                "--force-renderer-accessibility",
                "--no-first-run",
                "--disable-gpu",
                f"--user-data-dir={tmp / 'chromium'}",
                url,
            ]
        ),
        "soffice": App(
            [
                "soffice",
                "--calc",
                "--norestore",
                "--nologo",
                f"-env:UserInstallation={(tmp / 'lo').as_uri()}",
            ],
            {"SAL_USE_VCLPLUGIN": "gtk3"},
            startup_s=120.0,
        ),
    }


@dataclass
class Node:
    bus: str
    path: str
    role: str
    name: str
    interfaces: frozenset[str]
    states: int
    depth: int

    @property
    def showing(self) -> bool:
        """Showing, or visible: GTK 4 never sets ``showing``."""
        return bool(self.states & (SHOWING | VISIBLE))

    @property
    def focusable(self) -> bool:
        return bool(self.states & FOCUSABLE)


@dataclass(frozen=True)
class Targets:
    app: Node
    window: Node
    nodes: list[Node]

    def pick(self, need: str) -> Node | None:
        """The node a call of kind ``need`` goes to (see ``Kind.target``)."""
        if need == "app":
            return self.app
        if need == "window":
            return self.window
        if need == "deep":
            return max(self.nodes, key=lambda n: n.depth)
        shown = [n for n in self.nodes if n.showing]
        if need == "focusable":
            focusable = [n for n in shown if "Component" in n.interfaces and n.focusable]
            editable = [n for n in focusable if "EditableText" in n.interfaces]
            return _first([*editable, *focusable])
        if need == "EditableText":
            editable = [n for n in shown if "EditableText" in n.interfaces]
            return _first([n for n in editable if "password" not in n.role])
        if need == "Action":
            acting = [n for n in shown if "Action" in n.interfaces]
            for role in BENIGN_ACTION_ROLES:
                found = [n for n in acting if n.role == role]
                if found:
                    return found[0]
            return None
        if need == "Selection":
            selecting = [n for n in shown if "Selection" in n.interfaces]
            for role in SELECTION_ROLES:
                found = [n for n in selecting if n.role == role]
                if found:
                    return found[0]
            return _first(selecting)
        if need == "Value":
            valued = [n for n in shown if "Value" in n.interfaces]
            for role in VALUE_ROLES:
                found = [n for n in valued if n.role == role]
                if found:
                    return found[0]
            return _first(valued)
        if need == "Text":
            editable = [n for n in shown if "EditableText" in n.interfaces]
            texts = [n for n in shown if "Text" in n.interfaces and "password" not in n.role]
            return _first([*editable, *texts])
        return _first([n for n in shown if need in n.interfaces])


def _first(nodes: list[Node]) -> Node | None:
    return nodes[0] if nodes else None


Build = Callable[[Node], Message]


def _method(iface: str, member: str, signature: str = "", *body: Any) -> Build:
    return lambda n: Message(
        destination=n.bus,
        path=n.path,
        interface=IFACE + iface,
        member=member,
        signature=signature,
        body=list(body),
    )


def _get(iface: str, name: str) -> Build:
    return lambda n: Message(
        destination=n.bus,
        path=n.path,
        interface=PROPS,
        member="Get",
        signature="ss",
        body=[IFACE + iface, name],
    )


def _get_all(iface: str) -> Build:
    return lambda n: Message(
        destination=n.bus,
        path=n.path,
        interface=PROPS,
        member="GetAll",
        signature="s",
        body=[IFACE + iface],
    )


def _set_value(n: Node) -> Message:
    return Message(
        destination=n.bus,
        path=n.path,
        interface=PROPS,
        member="Set",
        signature="ssv",
        body=[IFACE + "Value", "CurrentValue", Variant("d", 0.0)],
    )


def _cache(n: Node) -> Message:
    return Message(
        destination=n.bus,
        path="/org/a11y/atspi/cache",
        interface=IFACE + "Cache",
        member="GetItems",
    )


def _register(n: Node) -> Message:
    return Message(
        destination=REGISTRY,
        path="/org/a11y/atspi/registry",
        interface=IFACE + "Registry",
        member="RegisterEvent",
        signature="sass",
        body=["object:state-changed", [], ""],
    )


@dataclass(frozen=True)
class Kind:
    name: str
    """The name ``toolkits.py`` uses for this kind of call."""
    target: str
    """``app``, ``window``, ``deep`` or the interface the target node must offer."""
    build: Build
    write: bool = False


TEXT = "Grüße ✓"
KINDS = (
    Kind("get:Application", "app", _get("Application", "Version")),
    Kind("get_all:Application", "app", _get_all("Application")),
    Kind("get:Accessible", "window", _get("Accessible", "Name")),
    Kind("get:Accessible.Parent", "deep", _get("Accessible", "Parent")),
    Kind("get_all:Accessible", "window", _get_all("Accessible")),
    Kind("get_all:Accessible (deep)", "deep", _get_all("Accessible")),
    Kind("GetState", "deep", _method("Accessible", "GetState")),
    Kind("GetRole", "deep", _method("Accessible", "GetRole")),
    Kind("GetInterfaces", "deep", _method("Accessible", "GetInterfaces")),
    Kind("GetChildren", "window", _method("Accessible", "GetChildren")),
    Kind("GetIndexInParent", "deep", _method("Accessible", "GetIndexInParent")),
    Kind("RegisterEvent", "app", _register),
    Kind("Cache.GetItems", "app", _cache),
    Kind("GetExtents", "Component", _method("Component", "GetExtents", "u", 0)),
    Kind("get:Text", "Text", _get("Text", "CharacterCount")),
    Kind("get:Text.CaretOffset", "Text", _get("Text", "CaretOffset")),
    Kind("GetText", "Text", _method("Text", "GetText", "ii", 0, 2000)),
    Kind("GetActions", "Action", _method("Action", "GetActions")),
    Kind("get:Action", "Action", _get("Action", "NActions")),
    Kind("Action.GetName", "Action", _method("Action", "GetName", "i", 0)),
    Kind("get:Value", "Value", _get("Value", "CurrentValue")),
    Kind("get_all:Value", "Value", _get_all("Value")),
    Kind("ScrollTo", "deep", _method("Component", "ScrollTo", "u", 4), write=True),
    Kind("GrabFocus", "focusable", _method("Component", "GrabFocus"), write=True),
    Kind(
        "SetTextContents",
        "EditableText",
        _method("EditableText", "SetTextContents", "s", TEXT),
        write=True,
    ),
    Kind(
        "InsertText",
        "EditableText",
        _method("EditableText", "InsertText", "isi", 0, TEXT, len(TEXT.encode())),
        write=True,
    ),
    Kind("DoAction", "Action", _method("Action", "DoAction", "i", 0), write=True),
    Kind("SelectChild", "Selection", _method("Selection", "SelectChild", "i", 0), write=True),
    Kind("set:Value", "Value", _set_value, write=True),
)


class Probe:
    """One app in one sandbox, restarted whenever a call kills or wedges it."""

    def __init__(self, sandbox: Sandbox, app: App, bus: MessageBus) -> None:
        self.sandbox = sandbox
        self.app = app
        self.bus = bus
        self.process: asyncio.subprocess.Process | None = None
        self.targets: Targets | None = None
        self.toolkit = ""

    async def send(self, message: Message, timeout_s: float = CALL_TIMEOUT_S) -> list[Any]:
        async with asyncio.timeout(timeout_s):
            reply = await self.bus.call(message)
        assert reply is not None
        if reply.message_type == MessageType.ERROR:
            raise CallError(str(reply.error_name))
        return list(reply.body)

    async def start(self) -> None:
        env = {**app_env(self.sandbox.env), **self.app.extra_env}
        self.process = await asyncio.create_subprocess_exec(
            *self.app.argv,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        await self.sandbox.wait_for_app(self.process.pid, timeout=self.app.startup_s)
        await asyncio.sleep(1.0)  # let the first window fill in
        app = await self._find_app(self.process.pid)
        name = await self.send(_get("Application", "ToolkitName")(app))
        version = await self.send(_get("Application", "Version")(app))
        self.toolkit = f"{_plain(name[0])} {_plain(version[0])}"
        self.targets = await self._walk(app)

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            await self.process.wait()
        self.process = None
        self.targets = None

    async def _find_app(self, pid: int) -> Node:
        (apps,) = await self.send(_method("Accessible", "GetChildren")(_node(REGISTRY, ROOT)))
        for bus, path in apps:
            (owner,) = await self.send(
                Message(
                    destination="org.freedesktop.DBus",
                    path="/org/freedesktop/DBus",
                    interface="org.freedesktop.DBus",
                    member="GetConnectionUnixProcessID",
                    signature="s",
                    body=[bus],
                )
            )
            if _descends(int(owner), pid):
                (count,) = await self.send(_get("Accessible", "ChildCount")(_node(bus, path)))
                if _plain(count):
                    return _node(bus, path)
        raise RuntimeError(f"no AT-SPI application of pid {pid}")

    async def _walk(self, app: Node) -> Targets:
        """Breadth first, with single calls only (each kind here answered everywhere)."""
        nodes: list[Node] = []
        queue = [(app.bus, app.path, 0)]
        while queue and len(nodes) < MAX_WALK:
            bus, path, depth = queue.pop(0)
            probe = _node(bus, path)
            try:
                (children,) = await self.send(_method("Accessible", "GetChildren")(probe))
                (role,) = await self.send(_method("Accessible", "GetRole")(probe))
                (ifaces,) = await self.send(_method("Accessible", "GetInterfaces")(probe))
                (states,) = await self.send(_method("Accessible", "GetState")(probe))
                (name,) = await self.send(_get("Accessible", "Name")(probe))
            except (CallError, TimeoutError):
                continue
            node = Node(
                bus,
                path,
                role_name(int(role)),
                str(_plain(name)),
                frozenset(str(i).removeprefix(IFACE) for i in ifaces),
                int(states[0]) | (int(states[1]) << 32) if len(states) > 1 else int(states[0]),
                depth,
            )
            nodes.append(node)
            queue.extend((str(b), str(p), depth + 1) for b, p in children[:200])
        windows = [n for n in nodes if n.depth == 1]
        shown = [n for n in windows if n.showing] or windows
        if not shown:
            raise RuntimeError("the application lists no window")
        return Targets(nodes[0], shown[0], [n for n in nodes if n.depth >= 1])

    async def alive(self) -> str:
        """``answering``, ``died SIG``/``died CODE`` or ``wedged``."""
        assert self.process is not None and self.targets is not None
        await asyncio.sleep(SETTLE_S)
        if self.process.returncode is not None:
            return _death(self.process.returncode)
        try:
            await self.send(_get("Application", "ToolkitName")(self.targets.app), CALL_TIMEOUT_S)
        except TimeoutError:
            code = self.process.returncode
            return "wedged" if code is None else _death(code)
        except CallError:
            await asyncio.sleep(SETTLE_S)
            if self.process.returncode is not None:
                return _death(self.process.returncode)
            return "answering"  # the name may be gone while the process exits
        return "answering"

    async def one(self, kind: Kind) -> str:
        if self.process is None:
            await self.start()
        assert self.targets is not None
        target = self.targets.pick(kind.target)
        if target is None:
            return "no target"
        outcome = "answered"
        try:
            await self.send(kind.build(target))
        except CallError as exc:
            outcome = f"error {exc}".replace("org.freedesktop.DBus.Error.", "")
        except TimeoutError:
            outcome = "no reply"
        state = await self.alive()
        if state != "answering":
            await self.stop()
            return state
        return f"{outcome} ({target.role})" if kind.target not in ("app", "window") else outcome


class CallError(Exception):
    """The application answered with a D-Bus error."""


def _node(bus: str, path: str) -> Node:
    return Node(bus, path, "", "", frozenset(), 0, 0)


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Variant) else value


def _death(code: int) -> str:
    if code < 0:
        return f"died {signal.Signals(-code).name}"
    return f"died exit {code}"


def _descends(pid: int, ancestor: int) -> bool:
    for _ in range(32):
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


async def probe(name: str, app: App, kinds: Sequence[Kind]) -> dict[str, Any]:
    async with Sandbox() as sandbox:
        reply = await _session_call(sandbox)
        bus = await MessageBus(bus_address=reply).connect()
        runner = Probe(sandbox, app, bus)
        results: dict[str, str] = {}
        toolkit = ""
        try:
            for kind in kinds:
                try:
                    results[kind.name] = await runner.one(kind)
                except (TimeoutError, RuntimeError, CallError) as exc:
                    results[kind.name] = f"not probed: the app did not start ({exc})"
                    print(f"{name:20} {results[kind.name]}", file=sys.stderr)
                    break
                toolkit = toolkit or runner.toolkit
                print(f"{name:20} {kind.name:28} {results[kind.name]}", file=sys.stderr)
        finally:
            await runner.stop()
            bus.disconnect()
    return {"app": name, "toolkit": toolkit, "results": results}


async def _session_call(sandbox: Sandbox) -> str:
    session = await MessageBus(bus_address=sandbox.env["DBUS_SESSION_BUS_ADDRESS"]).connect()
    try:
        reply = await session.call(
            Message(
                destination="org.a11y.Bus",
                path="/org/a11y/bus",
                interface="org.a11y.Bus",
                member="GetAddress",
            )
        )
    finally:
        session.disconnect()
    assert reply is not None
    return str(reply.body[0])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("apps", nargs="+")
    parser.add_argument("--reads-only", action="store_true", help="leave out every write")
    parser.add_argument("--kinds", nargs="*", help="only these kinds (names as in KINDS)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="actui-probe-"))
    try:
        apps = _apps(tmp)
        unknown = [a for a in args.apps if a not in apps]
        if unknown:
            parser.error(f"unknown app {unknown}; choose from {sorted(apps)}")
        kinds = [
            k
            for k in KINDS
            if not (args.reads_only and k.write) and (not args.kinds or k.name in args.kinds)
        ]
        rows = [await probe(a, apps[a], kinds) for a in args.apps]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    for row in rows:
        print(f"\n## {row['app']} ({row['toolkit']})")
        for kind, outcome in row["results"].items():
            print(f"| {kind} | {outcome} |")


if __name__ == "__main__":
    asyncio.run(main())
