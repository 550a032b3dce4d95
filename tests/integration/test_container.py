"""The container image and the Kubernetes manifests, run for real with podman.

Builds the image with ``scripts/image.sh`` (what ``make image`` runs; nothing is
built when an image of the same inputs exists), serves from a container through the
official MCP client over Streamable HTTP, then plays ``deploy/k8s/`` with
``podman kube play`` and drives both pods at once. Each part ends by checking
that nothing of it is left on the host. Runs where podman is installed
(``scripts/bootstrap.sh`` installs it); skipped elsewhere.
"""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import pytest_asyncio
from mcp.client.session import ClientSession
from mcp_client import PROBE_APP, http_session
from mcp_client import call as _call
from mcp_client import probe_window as _probe_window

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
ENV = {**os.environ, "CONTAINERS_CONF": str(ROOT / "deploy" / "containers.conf")}
PODS = ("actui-pod-0", "actui-pod-1")

pytestmark = [
    pytest.mark.skipif(shutil.which("podman") is None, reason="podman is not installed"),
    pytest.mark.asyncio(loop_scope="module"),
    # The first run builds the base image and the image (minutes); later runs find them.
    pytest.mark.timeout(900),
]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["podman", *args], env=ENV, capture_output=True, text=True, timeout=120)


def podman(*args: str) -> str:
    done = _run(*args)
    assert done.returncode == 0, f"podman {' '.join(args)}: {done.stderr.strip()}"
    return done.stdout.strip()


def podman_ok(*args: str) -> bool:
    """Whether the podman command succeeds (``exists``, cleanup that may find nothing)."""
    return _run(*args).returncode == 0


@dataclass(frozen=True)
class Served:
    """One server in a container or pod, reached from the host."""

    container: str
    base: str
    token: str

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def health(self) -> dict[str, Any]:
        response = httpx2.get(f"{self.base}/health", timeout=10)
        assert response.status_code == 200, response.text
        return dict(response.json())

    def inside(self, *command: str) -> str:
        return podman("exec", self.container, *command)

    def alive(self, pid: int) -> bool:
        """Whether ``pid`` (a pid inside the container) still runs there."""
        return podman_ok("exec", self.container, "kill", "-0", str(pid))


def _host_leftovers(container_id: str) -> list[str]:
    """Host processes still in the container's cgroup, as '<pid> <name>'."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if container_id in (proc / "cgroup").read_text():
                found.append(f"{proc.name} {(proc / 'comm').read_text().strip()}")
        except OSError:
            continue
    return found


def _traces(container_id: str, upper_dir: str) -> list[str]:
    """What is left of an ended container on the host: processes, its writable layer."""
    left = _host_leftovers(container_id)
    if Path(upper_dir).exists():
        left.append(f"its writable layer {upper_dir}")
    return left


async def _ended_without_trace(container_id: str, upper_dir: str) -> None:
    # With --rm, podman removes the stopped container a moment after `stop` returns.
    await _until(lambda: not podman_ok("container", "exists", container_id), "container removed")
    assert _traces(container_id, upper_dir) == []


async def _ready(served: Served) -> None:
    """Wait as a readiness probe does: until /health answers."""
    async with asyncio.timeout(60):
        while True:
            try:
                served.health()
                return
            except (httpx2.HTTPError, AssertionError):
                await asyncio.sleep(0.25)


async def _until(check: Callable[[], bool], what: str) -> None:
    for _ in range(300):
        if check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within 30 s: {what}")


@pytest.fixture(scope="module")
def image() -> str:
    done = subprocess.run(
        [str(ROOT / "scripts" / "image.sh")], env=ENV, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def container(image: str) -> Iterator[Served]:
    token = secrets.token_urlsafe(24)
    container_id = podman(
        "run", "-d", "--rm", "-p", "127.0.0.1::8765", "-e", f"ACTUI_MCP_TOKEN={token}",
        image, "--max-desktops", "2", "--app", PROBE_APP,
    )  # fmt: skip
    port = podman("port", container_id, "8765").rsplit(":", 1)[1]
    served = Served(container_id, f"http://127.0.0.1:{port}", token)
    yield served
    podman_ok("rm", "-f", "-t", "5", container_id)


def _session(served: Served) -> AbstractAsyncContextManager[ClientSession]:
    return http_session(served.url, served.token)


async def _fill_probe(served: Served, session: ClientSession, phrase: str) -> str:
    """Type ``phrase`` into the desktop's zenity and press OK; returns the state id used.

    Checks the app was alive and showed the phrase before OK, and that zenity
    then printed it (its output goes to its log file in the desktop's run dir).
    """
    window = await _probe_window(session)
    state = await _call(session, "observe_ui", {"root": window["windowRef"]})
    entry = (await _call(session, "search_ui", {"stateId": state["stateId"], "role": "textbox"}))[
        "matches"
    ][0]["ref"]
    ok = (await _call(session, "search_ui", {"stateId": state["stateId"], "text": "OK"}))[
        "matches"
    ][0]["ref"]
    typed = await _call(
        session,
        "act_ui",
        {
            "stateId": state["stateId"],
            "actions": [{"action": "setText", "ref": entry, "text": phrase}],
            "expect": {"ref": entry, "value": phrase},
        },
    )
    assert typed["outcome"] == "worked", typed
    assert served.alive(int(window["pid"])), "zenity survived the typing"
    await _call(
        session,
        "act_ui",
        {"stateId": typed["stateId"], "actions": [{"action": "press", "ref": ok}]},
    )
    await _until(lambda: not served.alive(int(window["pid"])), "zenity exits when OK is pressed")
    printed = served.inside("sh", "-c", "cat /tmp/*/apps/zenity-*.log")
    assert phrase in printed.splitlines(), printed
    return str(state["stateId"])


async def test_the_image_holds_the_runtime_and_none_of_the_test_corpus(image: str) -> None:
    user = podman("image", "inspect", "--format", "{{.Config.User}}", image)
    assert user == "actui"
    listing = podman(
        "run", "--rm", "--entrypoint", "sh", image, "-c",
        "dpkg-query -W -f '${Package}\\n'; ls -A /opt/actui",
    ).split()  # fmt: skip
    for needed in ("xvfb", "dbus", "at-spi2-core", "openbox", "tesseract-ocr", "zenity", "tini"):
        assert needed in listing, needed
    for corpus in ("firefox-esr", "libreoffice-calc", "featherpad", "thunar", "chromium"):
        assert corpus not in listing, corpus
    assert listing[-1] == ".venv", "only the venv under /opt/actui: no sources, no tests"


async def test_health_answers_and_a_request_without_the_token_is_refused(
    container: Served,
) -> None:
    await _ready(container)
    assert container.health() == {"status": "ok", "desktops": {"open": 0, "capacity": 2}}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    async with httpx2.AsyncClient(timeout=10) as http:
        bare = await http.post(container.url, json=initialize)
        wrong = await http.post(
            container.url, json=initialize, headers={"Authorization": "Bearer nope"}
        )
    assert (bare.status_code, wrong.status_code) == (401, 401)
    assert container.health()["desktops"]["open"] == 0, "a refused request starts nothing"
    top = podman("top", container.container, "user", "comm").splitlines()[1:]
    assert {line.split()[0] for line in top} == {"actui"}, top


async def test_two_sessions_fill_their_own_forms_on_their_own_desktops(
    container: Served,
) -> None:
    async with _session(container) as first, _session(container) as second:
        windows = await asyncio.gather(_probe_window(first), _probe_window(second))
        assert windows[0]["pid"] != windows[1]["pid"], "each desktop runs its own zenity"
        environ = container.inside("cat", f"/proc/{windows[0]['pid']}/environ")
        assert "DISPLAY=" in environ and container.token not in environ, "the app has no token"
        assert container.health()["desktops"]["open"] == 2
        first_state = await _fill_probe(container, first, "typed in the first desktop")
        assert (await _call(first, "find_roots", {"text": "Probe"}))["windows"] == []
        assert (await _probe_window(second))["pid"] == windows[1]["pid"], "untouched by the first"
        foreign = await second.call_tool("search_ui", {"stateId": first_state, "text": "OK"})
        assert foreign.is_error, "a state of one session means nothing in the other"
        await _fill_probe(container, second, "typed in the second desktop")
    # The ended sessions' desktops go, every process of them with them.
    await _until(
        lambda: (
            not container.health()["desktops"]["open"]
            and _processes(container) == ["actui", "tini"]
        ),
        "the ended sessions' desktops are gone",
    )


def _processes(served: Served) -> list[str]:
    return sorted(podman("top", served.container, "comm").split()[1:])


async def test_stopping_the_container_leaves_nothing_on_the_host(container: Served) -> None:
    full_id = podman("inspect", "--format", "{{.Id}}", container.container)
    upper = podman("inspect", "--format", "{{.GraphDriver.Data.UpperDir}}", full_id)
    assert _host_leftovers(full_id), "the container runs in its own cgroup"
    podman("stop", "-t", "10", full_id)
    await _ended_without_trace(full_id, upper)
    with pytest.raises(httpx2.HTTPError):
        container.health()


def _manifests(tmp: Path, stored_token: str) -> Path:
    """deploy/k8s/ as one file for ``podman kube play``, the Secret holding ``stored_token``."""
    secret = (K8S / "secret.yaml").read_text()
    placeholder = "cmVwbGFjZS1tZQ=="  # "replace-me": the file's own value
    assert placeholder in secret
    parts = [
        secret.replace(placeholder, stored_token),
        (K8S / "deployment.yaml").read_text(),
        (K8S / "service.yaml").read_text(),
    ]
    played = tmp / "actui.yaml"
    played.write_text("\n---\n".join(parts))
    return played


def _kube_down(played: Path) -> None:
    """What ``kube down`` leaves in podman 4.3 goes too: the Secret and its volume."""
    podman_ok("kube", "down", str(played))
    podman_ok("secret", "rm", "actui-token")
    podman_ok("volume", "rm", "actui-token")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pods(image: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[list[Served]]:
    stored = base64.b64encode(secrets.token_urlsafe(24).encode()).decode()
    played = _manifests(tmp_path_factory.mktemp("k8s"), stored)
    podman("kube", "play", str(played))
    try:
        served = []
        for pod in PODS:
            name = f"{pod}-actui"
            address = podman(
                "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
                name,
            )  # fmt: skip
            # The server's token is the one the Secret volume mounted, read where it reads it.
            token = podman("exec", name, "cat", "/run/secrets/actui/token")
            served.append(Served(name, f"http://{address}:8765", token))
        yield served
    finally:
        _kube_down(played)


def _router_config(pods: list[Served], port: int) -> str:
    """router.yaml's haproxy.cfg, for a router on this host in front of the pods.

    Two lines change: it listens on loopback, and the pods are named by address
    (podman has no cluster DNS for ``server-template`` to resolve the headless Service).
    """
    text = (K8S / "router.yaml").read_text()
    block = text.split("haproxy.cfg: |\n", 1)[1].split("\n---", 1)[0]
    lines = [line.removeprefix("    ") for line in block.splitlines()]
    servers = [f"  server pod{n} {pod.base.removeprefix('http://')} check" for n, pod in
               enumerate(pods)]  # fmt: skip
    out = []
    for line in lines:
        if line.strip() == "bind :8765":
            out.append(f"  bind 127.0.0.1:{port}")
        elif line.strip().startswith("server-template "):
            out.extend(servers)
        else:
            out.append(line)
    assert len(out) == len(lines) + len(pods) - 1, "router.yaml has its bind and server lines"
    return "\n".join(out) + "\n"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def router(
    pods: list[Served], tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Served]:
    assert shutil.which("haproxy"), "haproxy is missing: scripts/bootstrap.sh installs it"
    # Started once the pods answer, so its health checks find both up from the start.
    await asyncio.gather(*(_ready(pod) for pod in pods))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path_factory.mktemp("router") / "haproxy.cfg"
    config.write_text(_router_config(pods, port))
    process = await asyncio.create_subprocess_exec(
        "haproxy", "-db", "-f", str(config), stdout=asyncio.subprocess.DEVNULL
    )
    try:
        # Not a container: its token checks are the pods'. Both pods hold the same token.
        yield Served(pods[0].container, f"http://127.0.0.1:{port}", pods[0].token)
    finally:
        process.terminate()
        async with asyncio.timeout(10):
            await process.wait()


async def test_kube_play_pods_are_ready_and_refuse_requests_without_the_token(
    pods: list[Served],
) -> None:
    deployment = (K8S / "deployment.yaml").read_text()
    assert "readinessProbe:" in deployment and "path: /health" in deployment
    assert "--token-file" in deployment and "secretName: actui-token" in deployment
    await asyncio.gather(*(_ready(pod) for pod in pods))
    for pod in pods:
        async with httpx2.AsyncClient(timeout=10) as http:
            refused = await http.post(pod.url, json={})
        assert refused.status_code == 401
        assert pod.health()["desktops"] == {"open": 0, "capacity": 2}


async def test_the_router_keeps_each_session_on_its_pod_and_two_pods_serve_at_once(
    pods: list[Served], router: Served
) -> None:
    await _ready(router)
    async with _session(router) as first:
        await _probe_window(first)
        first_pod = [n for n, pod in enumerate(pods) if pod.health()["desktops"]["open"]]
        async with _session(router) as second:
            await _probe_window(second)
            assert [pod.health()["desktops"]["open"] for pod in pods] == [1, 1], "one per pod"
            (n,) = first_pod
            # Both tasks at once, every call through the router: a call that reached the other
            # pod would find no such session there.
            await asyncio.gather(
                _fill_probe(pods[n], first, "through the router, first"),
                _fill_probe(pods[1 - n], second, "through the router, second"),
            )


async def test_the_router_sends_a_new_session_past_a_pod_with_every_desktop_taken(
    pods: list[Served], router: Served
) -> None:
    await _ready(router)
    await _until(
        lambda: not any(pod.health()["desktops"]["open"] for pod in pods),
        "the earlier sessions' desktops are gone",
    )
    async with _session(pods[0]), _session(pods[0]):
        assert pods[0].health()["desktops"]["open"] == 2, "the first pod is full"
        # Round robin sends one of two new sessions to the full pod; its 503 is retried
        # on the other one, and the client sees no error.
        async with _session(router) as first, _session(router) as second:
            assert [pod.health()["desktops"]["open"] for pod in pods] == [2, 2]
            await asyncio.gather(_probe_window(first), _probe_window(second))


async def test_kube_down_leaves_nothing_running(
    pods: list[Served], tmp_path_factory: pytest.TempPathFactory
) -> None:
    ids = [podman("inspect", "--format", "{{.Id}}", pod.container) for pod in pods]
    uppers = [podman("inspect", "--format", "{{.GraphDriver.Data.UpperDir}}", i) for i in ids]
    _kube_down(_manifests(tmp_path_factory.mktemp("down"), "eA=="))
    for container_id, upper in zip(ids, uppers, strict=True):
        await _ended_without_trace(container_id, upper)
    assert podman("pod", "ps", "-q", "--filter", "name=actui-pod") == ""
    assert "actui-token" not in podman("secret", "ls", "--format", "{{.Name}}").split()
    assert not podman_ok("volume", "exists", "actui-token")
