"""``actui mcp --http``: the tools over MCP's Streamable HTTP transport.

Owns the network face: the bearer token, the Host and Origin checks against
DNS rebinding, the health endpoint, and (with ``--desktop-per-session``) one
private desktop per MCP session, started when the session is initialized and
torn down when it ends, idles past the limit, or the server stops. The MCP
protocol itself, request-body bounds and session bookkeeping are the official
SDK's (``Server.streamable_http_app``); the tools are :mod:`actui.server.mcp_stdio`'s.
With ``--record DIR`` each MCP session's acts go to a workflow file of its own, and
with ``--workflows DIR`` every session gets the recorded workflows as tools
(``docs/replay.md``).

It listens on loopback unless told otherwise, always wants the token, and
refuses a non-loopback address without a token given explicitly, so nothing
on the network can drive the desktop by finding the port.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import os
import secrets
import shlex
import signal
import socket
import sys
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from actui.backends.registry import PrivateDesktop as Sandbox
from actui.backends.registry import WaylandKind
from actui.server.mcp_stdio import build_server
from actui.server.request_bounds import too_many_steps
from actui.tools.dispatch import ToolBox
from actui.tools.recording import Recorder
from actui.tools.workflow import Workflow

log = logging.getLogger(__name__)

TOKEN_VAR = "ACTUI_MCP_TOKEN"
MCP_PATH = "/mcp"
BACKLOG = 2048  # uvicorn's default
HEALTH_PATH = "/health"
SESSION_HEADER = "mcp-session-id"
MAX_BODY_BYTES = 4 * 1024 * 1024
IDLE_S = 900.0
REAP_EVERY_S = 5.0
LOOPBACK_NAMES = ("localhost",)


class HttpUsageError(ValueError):
    """The command line asks for something unsafe or impossible; the message says what to do."""


@dataclass(frozen=True)
class HttpOptions:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str = ""
    token_generated: bool = False
    desktop_per_session: bool = False
    wayland: bool | WaylandKind = False
    apps: tuple[str, ...] = ()
    max_desktops: int = 4
    idle_s: float = IDLE_S
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def resolve_options(
    *,
    host: str,
    port: int,
    token_file: str | None,
    env: Mapping[str, str],
    desktop_per_session: bool = False,
    apps: Sequence[str] = (),
    max_desktops: int = 4,
    idle_s: float = IDLE_S,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    wayland: bool | WaylandKind = False,
) -> HttpOptions:
    """Options from the command line and the environment, refusing unsafe combinations.

    The token comes from ``--token-file`` or ``ACTUI_MCP_TOKEN``; otherwise one
    is generated (and printed at start), which is allowed on loopback only.
    """
    token = ""
    if token_file:
        try:
            token = Path(token_file).read_text().strip()
        except OSError as error:
            raise HttpUsageError(
                f"--token-file: cannot read {token_file} ({error.strerror})"
            ) from None
        if not token:
            raise HttpUsageError(f"--token-file: {token_file} is empty; put the token in it")
    elif env.get(TOKEN_VAR, "").strip():
        token = env[TOKEN_VAR].strip()
    generated = not token
    if generated and not is_loopback(host):
        raise HttpUsageError(
            f"--host {host} is not a loopback address: give the token explicitly with "
            f"--token-file PATH or {TOKEN_VAR}, so only clients you gave it can connect"
        )
    if generated:
        token = secrets.token_urlsafe(32)
    if not 0 <= port <= 65535:
        raise HttpUsageError(f"--port {port}: choose a port between 0 and 65535")
    if max_desktops < 1:
        raise HttpUsageError(f"--max-desktops {max_desktops}: allow at least 1")
    if idle_s <= 0:
        raise HttpUsageError(f"--idle-timeout {idle_s:g}: give a positive number of seconds")
    for app in apps:
        if not shlex.split(app):
            raise HttpUsageError("--app: give a command line, e.g. --app 'zenity --info'")
    if wayland and not desktop_per_session:
        raise HttpUsageError(
            "--wayland: it chooses the kind of private desktop, so it needs --desktop-per-session"
        )
    return HttpOptions(
        host=host,
        port=port,
        token=token,
        token_generated=generated,
        desktop_per_session=desktop_per_session,
        wayland=wayland,
        apps=tuple(apps),
        max_desktops=max_desktops,
        idle_s=idle_s,
        allowed_hosts=tuple(allowed_hosts),
        allowed_origins=tuple(allowed_origins),
    )


# -- checks at the door --------------------------------------------------------------


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _host_allowed(host: str, allowed: Sequence[str]) -> bool:
    for pattern in allowed:
        if pattern == host:
            return True
        if pattern.endswith(":*") and host.startswith(pattern[:-1]):
            return True
    return False


@dataclass(frozen=True)
class Door:
    """Who may come in: the token, and the Host and Origin a request may carry.

    Loopback servers accept only loopback Host names (a page on an attacker's
    domain that rebinds its name to 127.0.0.1 still sends its own Host); any
    server rejects a browser Origin it was not told to trust. Requests without
    an Origin come from programs, not pages, and pass that check.
    """

    token: str
    hosts: tuple[str, ...]
    origins: tuple[str, ...]

    @classmethod
    def for_options(cls, options: HttpOptions) -> Door:
        hosts = list(options.allowed_hosts)
        origins = list(options.allowed_origins)
        if is_loopback(options.host):
            hosts += ["127.0.0.1:*", "localhost:*", "[::1]:*"]
            origins += ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
        return cls(options.token, tuple(hosts), tuple(origins))

    def refusal(self, scope: Scope) -> Response | None:
        host = _header(scope, b"host") or ""
        if self.hosts and not _host_allowed(host, self.hosts):
            return _refuse(421, f"Host {host!r} is not served here", "misdirected")
        origin = _header(scope, b"origin")
        if origin and not _host_allowed(origin, self.origins):
            return _refuse(403, f"Origin {origin!r} is not allowed", "forbidden_origin")
        if scope["path"] == HEALTH_PATH:
            return None
        given = _header(scope, b"authorization") or ""
        scheme, _, credential = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            credential.strip().encode(), self.token.encode()
        ):
            response = _refuse(401, "a valid bearer token is required", "unauthorized")
            response.headers["WWW-Authenticate"] = 'Bearer realm="actui"'
            return response
        return None


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The request body as far as the size bound (the SDK refuses a longer one), and a
    ``receive`` that hands the app what was read, then the rest."""
    chunks: list[Message] = []
    size, more = 0, True
    while more and size <= MAX_BODY_BYTES:
        message = await receive()
        chunks.append(message)
        size += len(message.get("body", b""))
        more = message["type"] == "http.request" and bool(message.get("more_body"))
    body = b"".join(m.get("body", b"") for m in chunks) if size <= MAX_BODY_BYTES else b""

    async def replay() -> Message:
        return chunks.pop(0) if chunks else await receive()

    return body, replay


def _refuse(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


# -- one desktop per session ---------------------------------------------------------


@dataclass
class _Desktop:
    sandbox: Sandbox
    computer: ToolBox
    used_at: float = field(default_factory=time.monotonic)


def _started(task: asyncio.Task[_Desktop]) -> bool:
    return task.done() and not task.cancelled() and task.exception() is None


class SessionDesktops:
    """A private desktop (own Xvfb, buses, apps) and its own ``ToolBox`` per MCP session.

    Keyed by the transport's session id, so states and refs of one session are
    unreachable from another. A desktop starts when its session is
    initialized, so the first tool call does not pay for it; it ends when the
    client ends the session, when it is idle past the limit, or at shutdown.
    """

    def __init__(
        self,
        apps: Sequence[str],
        cap: int,
        idle_s: float,
        *,
        wayland: bool | WaylandKind = False,
        record: Path | None = None,
    ) -> None:
        self.apps = tuple(apps)
        self.wayland = wayland
        self.record = record
        self.cap = cap
        self.idle_s = idle_s
        self._desktops: dict[str, asyncio.Task[_Desktop]] = {}
        self._ending: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._desktops)

    def full(self) -> bool:
        return len(self._desktops) >= self.cap

    def open(self, session_id: str) -> None:
        if session_id not in self._desktops:
            self._desktops[session_id] = asyncio.ensure_future(self._start())

    async def computer(self, session_id: str | None) -> ToolBox:
        task = self._desktops.get(session_id or "")
        if task is None:
            raise LookupError("this MCP session has no desktop (it ended or was never opened)")
        desktop = await task
        desktop.used_at = time.monotonic()
        return desktop.computer

    def touch(self, session_id: str) -> None:
        task = self._desktops.get(session_id)
        if task is not None and _started(task):
            task.result().used_at = time.monotonic()

    def end(self, session_id: str) -> None:
        task = self._desktops.pop(session_id, None)
        if task is not None:
            ending = asyncio.ensure_future(self._stop(task))
            self._ending.add(ending)
            ending.add_done_callback(self._ending.discard)

    def reap_idle(self) -> None:
        now = time.monotonic()
        for session_id, task in list(self._desktops.items()):
            if _started(task) and now - task.result().used_at > self.idle_s:
                log.info("the desktop of session %s is idle: ending it", session_id)
                self.end(session_id)

    async def close(self) -> None:
        for session_id in list(self._desktops):
            self.end(session_id)
        if self._ending:
            await asyncio.gather(*self._ending, return_exceptions=True)

    async def _start(self) -> _Desktop:
        sandbox = Sandbox(wayland=self.wayland)
        await sandbox.__aenter__()
        try:
            launched = [await sandbox.launch(shlex.split(app)) for app in self.apps]
            await asyncio.gather(*(sandbox.wait_for_app(p.pid) for p in launched))
        except BaseException:
            await sandbox.__aexit__(None, None, None)
            raise
        recorder = Recorder(self.record) if self.record is not None else None
        return _Desktop(sandbox, ToolBox(env=sandbox.env, record=recorder))

    @staticmethod
    async def _stop(task: asyncio.Task[_Desktop]) -> None:
        if not task.done():
            task.cancel()
        try:
            desktop = await task
        except (asyncio.CancelledError, Exception):
            return  # it never started, and _start cleaned up after itself
        try:
            await desktop.computer.close()
        finally:
            await desktop.sandbox.__aexit__(None, None, None)


class _Gate:
    """The ASGI wrapper at the door: checks, desktop admission, and session lifetimes.

    A new session is seen in the ``mcp-session-id`` header of the answer to
    its ``initialize``; a ``DELETE`` with that header ends it.
    """

    def __init__(self, app: ASGIApp, door: Door, desktops: SessionDesktops | None) -> None:
        self.app = app
        self.door = door
        self.desktops = desktops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.door.refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if scope["method"] == "POST":
            body, receive = await _read_body(receive)
            crowded = too_many_steps(body)
            if crowded is not None:
                error = {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": crowded},
                }
                await JSONResponse(error, status_code=400)(scope, receive, send)
                return
        desktops = self.desktops
        if desktops is None or scope["path"] != MCP_PATH:
            await self.app(scope, receive, send)
            return
        session_id = _header(scope, SESSION_HEADER.encode())
        if session_id is None and scope["method"] == "POST" and desktops.full():
            message = (
                f"all {desktops.cap} desktops are in use; end a session, or start the server "
                "with a larger --max-desktops"
            )
            await _refuse(503, message, "desktops_full")(scope, receive, send)
            return
        if session_id is not None:
            desktops.touch(session_id)

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and session_id is None:
                headers = dict(message.get("headers", ()))
                opened = headers.get(SESSION_HEADER.encode())
                if opened and message["status"] < 300:
                    desktops.open(opened.decode("latin-1"))
            await send(message)

        await self.app(scope, receive, watch)
        if session_id is not None and scope["method"] == "DELETE":
            desktops.end(session_id)


async def _health(desktops: SessionDesktops | None) -> Response:
    body: dict[str, object] = {"status": "ok"}
    if desktops is not None:
        body["desktops"] = {"open": len(desktops), "capacity": desktops.cap}
    return JSONResponse(body)


def build_app(
    options: HttpOptions,
    *,
    record: Path | None = None,
    workflows: Mapping[str, Workflow] | None = None,
) -> tuple[ASGIApp, Callable[[], Awaitable[None]]]:
    """The ASGI app and its shutdown; ``record`` the directory each session's workflow
    file goes to, ``workflows`` the recorded workflows every session gets as tools.

    Without desktops per session, every session shares one ``ToolBox`` on
    this process's desktop, as stdio clients do, so its scheduler still orders
    every write to that desktop; a recording session gets a view of it with a
    recorder of its own, dropped with its MCP session.
    """
    desktops = (
        SessionDesktops(
            options.apps,
            options.max_desktops,
            options.idle_s,
            wayland=options.wayland,
            record=record,
        )
        if options.desktop_per_session
        else None
    )
    computer = None if desktops else ToolBox()
    recorded: weakref.WeakKeyDictionary[object, ToolBox] = weakref.WeakKeyDictionary()

    async def computer_for(ctx: object) -> ToolBox:
        if desktops is None:
            assert computer is not None
            session = getattr(ctx, "session", None)
            if record is None or session is None:
                return computer
            if session not in recorded:
                recorded[session] = computer.recorded_by(Recorder(record))
            return recorded[session]
        request = getattr(ctx, "request", None)
        session_id = request.headers.get(SESSION_HEADER) if isinstance(request, Request) else None
        return await desktops.computer(session_id)

    server = build_server(computer_for, workflows)

    async def health(_request: Request) -> Response:
        return await _health(desktops)

    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        max_request_body_size=MAX_BODY_BYTES,
        session_idle_timeout=options.idle_s,
        # The door checks Host and Origin (for every route, not just /mcp).
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        host=options.host,
        custom_starlette_routes=[Route(HEALTH_PATH, health, methods=["GET"])],
    )

    async def shutdown() -> None:
        if desktops is not None:
            await desktops.close()
        if computer is not None:
            await computer.close()

    gate = _Gate(app, Door.for_options(options), desktops)
    if desktops is None:
        return gate, shutdown
    return _Reaper(gate, desktops), shutdown


class _Reaper:
    """Runs the idle sweep beside the app (started with the first request)."""

    def __init__(self, app: ASGIApp, desktops: SessionDesktops) -> None:
        self.app = app
        self.desktops = desktops
        self._task: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._sweep())
        await self.app(scope, receive, send)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(REAP_EVERY_S)
            self.desktops.reap_idle()


class _Server(uvicorn.Server):
    """uvicorn's server, stopping on SIGINT/SIGTERM without dying of the signal afterwards.

    uvicorn re-raises a captured signal once it has shut down, which would end
    the process before the desktops' teardown runs.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        loop = asyncio.get_running_loop()
        signals = (signal.SIGINT, signal.SIGTERM)
        for sig in signals:
            loop.add_signal_handler(sig, self.handle_exit, sig, None)
        try:
            yield
        finally:
            for sig in signals:
                loop.remove_signal_handler(sig)


def announce(options: HttpOptions, port: int) -> str:
    """The start-up line: where to connect, and the token if actui made it up."""
    host = f"[{options.host}]" if ":" in options.host else options.host
    lines = [f"actui mcp: serving MCP on http://{host}:{port}{MCP_PATH}"]
    if options.token_generated:
        lines.append(f"actui mcp: bearer token (generated for this run): {options.token}")
    if options.desktop_per_session:
        shown = "sway" if options.wayland is True else options.wayland
        kind = f"Wayland ({shown}) " if shown else ""
        lines.append(
            f"actui mcp: one private {kind}desktop per session, at most {options.max_desktops}"
        )
    return "\n".join(lines)


async def serve_http(
    options: HttpOptions,
    *,
    record: Path | None = None,
    workflows: Mapping[str, Workflow] | None = None,
) -> None:
    app, shutdown = build_app(options, record=record, workflows=workflows)
    server = _Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    # Bound here rather than by uvicorn, so the start-up line can name the port (for --port 0).
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((options.host.strip("[]"), options.port))
        except OSError as error:
            raise HttpUsageError(
                f"cannot listen on {options.host} port {options.port} ({error.strerror}); "
                "choose another --port or --host"
            ) from None
        # Listening before the start-up line: a client that reads it and connects at once is
        # queued in the backlog while uvicorn still starts, not refused by a bound, deaf port.
        listener.listen(BACKLOG)
        print(announce(options, listener.getsockname()[1]), file=sys.stderr, flush=True)
        await server.serve(sockets=[listener])
    finally:
        listener.close()
        await shutdown()


def http_main(
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    *,
    record: Path | None = None,
    workflows: Mapping[str, Workflow] | None = None,
) -> int:
    """``actui mcp --http ...`` (``record`` and ``workflows`` as ``build_app`` takes them,
    from ``--record`` and ``--workflows``); returns the exit code."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="actui mcp",
        description="Serve the tools over MCP's Streamable HTTP transport (docs/deploy.md).",
    )
    parser.add_argument("--http", action="store_true", required=True, help="serve over HTTP")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    parser.add_argument("--port", type=int, default=8765, help="port (0: any free one)")
    parser.add_argument("--token-file", metavar="PATH", help=f"the bearer token (or {TOKEN_VAR})")
    parser.add_argument(
        "--desktop-per-session", action="store_true", help="a private desktop per MCP session"
    )
    parser.add_argument(
        "--wayland",
        nargs="?",
        const="sway",
        choices=("sway", "gnome"),
        help="each desktop is a headless Wayland compositor: sway, or gnome-shell with "
        "`--wayland=gnome`",
    )
    parser.add_argument(
        "--app", action="append", default=[], metavar="CMD", help="an app each desktop starts"
    )
    parser.add_argument("--max-desktops", type=int, default=4, help="desktops at once (4)")
    parser.add_argument(
        "--idle-timeout", type=float, default=IDLE_S, metavar="SECONDS", help="end idle sessions"
    )
    parser.add_argument(
        "--allowed-host", action="append", default=[], metavar="HOST", help="also accept Host"
    )
    parser.add_argument(
        "--allowed-origin", action="append", default=[], metavar="ORIGIN", help="also accept Origin"
    )
    args = parser.parse_args(list(argv))
    try:
        options = resolve_options(
            host=args.host,
            port=args.port,
            token_file=args.token_file,
            env=os.environ if env is None else env,
            desktop_per_session=args.desktop_per_session,
            apps=args.app,
            max_desktops=args.max_desktops,
            idle_s=args.idle_timeout,
            allowed_hosts=args.allowed_host,
            allowed_origins=args.allowed_origin,
            wayland=args.wayland or False,
        )
    except HttpUsageError as error:
        print(f"actui mcp: {error}", file=sys.stderr)
        return 2
    if env is None:
        # Read once and forgotten: desktops copy this environment, and their apps (the ones an
        # agent drives, e.g. a terminal showing `env`) must not hold the token.
        os.environ.pop(TOKEN_VAR, None)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_http(options, record=record, workflows=workflows))
    except HttpUsageError as error:
        print(f"actui mcp: {error}", file=sys.stderr)
        return 2
    return 0
