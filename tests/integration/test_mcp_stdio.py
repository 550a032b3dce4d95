"""``actui mcp``'s stdin, raw: every line it cannot take is answered, a huge one refused fast,
and a client that goes away leaves no traceback behind."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from actui.server.stdin_guard import MAX_REQUEST_BYTES

PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class RawServer:
    """``actui mcp`` over pipes, spoken to one line at a time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "actui.server.cli", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")},
        )

    def send(self, line: str | bytes) -> None:
        assert self.process.stdin is not None
        data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the server closed its output"
        return dict(json.loads(line))

    def initialize(self) -> None:
        params = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        self.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}))
        assert self.reply()["id"] == 0
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def ping(self, request_id: int) -> dict[str, Any]:
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}))
        return self.reply()


@pytest.fixture(scope="module")
def server() -> Iterator[RawServer]:
    raw = RawServer()
    raw.initialize()
    yield raw
    assert raw.process.stdin is not None
    raw.process.stdin.close()
    assert raw.process.wait(30) == 0


PING = '{"jsonrpc":"2.0","id":%s,"method":"ping","params":%s}'
MALFORMED = [
    ("lone surrogate", PING % (11, '{"x":"\\ud800"}'), 11, INVALID_REQUEST),
    ("deep nesting", PING % (12, "[" * 1_200 + "]" * 1_200), 12, PARSE_ERROR),
    ("5,000-digit integer", PING % (13, '{"n":' + "9" * 5_000 + "}"), 13, PARSE_ERROR),
    ("float id", '{"jsonrpc":"2.0","id":14.5,"method":"ping"}', None, INVALID_REQUEST),
    ("not JSON", "hello, server", None, PARSE_ERROR),
    ("cut short", '{"jsonrpc":"2.0","id":15,"method":"pi', 15, PARSE_ERROR),
    ("not JSON-RPC", '{"id":16,"hello":"world"}', 16, INVALID_REQUEST),
    ("an array", "[1, 2, 3]", None, INVALID_REQUEST),
]


@pytest.mark.parametrize(("line", "wanted_id", "code"), [m[1:] for m in MALFORMED])
def test_a_malformed_line_gets_a_json_rpc_error_and_the_server_goes_on(
    server: RawServer, line: str, wanted_id: int | None, code: int
) -> None:
    server.send(line)
    answer = server.reply()
    assert answer["id"] == wanted_id
    assert answer["error"]["code"] == code
    assert answer["error"]["message"]
    assert server.ping(99) == {"jsonrpc": "2.0", "id": 99, "result": {}}


def test_bytes_that_are_not_utf8_are_answered_too(server: RawServer) -> None:
    server.send(b'\xff\xfe{"id": 3')
    assert server.reply()["error"]["code"] == PARSE_ERROR
    assert server.ping(98)["id"] == 98


def test_an_oversized_request_is_refused_quickly_and_names_the_limit(server: RawServer) -> None:
    text = "x" * (MAX_REQUEST_BYTES + 1_000_000)
    arguments = {"name": "find_roots", "arguments": {"text": text}}
    line = json.dumps({"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": arguments})
    started = time.monotonic()
    server.send(line)
    answer = server.reply()
    elapsed = time.monotonic() - started
    assert answer["id"] == 21 and answer["error"]["code"] == INVALID_REQUEST
    assert str(MAX_REQUEST_BYTES) in answer["error"]["message"]
    assert elapsed < 5, f"refusing took {elapsed:.1f} s"
    assert server.ping(97)["id"] == 97


def test_a_client_that_goes_away_leaves_no_traceback() -> None:
    raw = RawServer()
    raw.initialize()
    assert raw.process.stdout is not None and raw.process.stdin is not None
    raw.process.stdout.close()  # the client stops reading...
    with contextlib.suppress(BrokenPipeError):  # the server may be gone already
        for request_id in range(1, 6):
            raw.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}))
        time.sleep(1)
        raw.process.stdin.close()  # ...and goes away
    assert raw.process.wait(30) == 0
    assert raw.process.stderr is not None
    assert raw.process.stderr.read() == b""


def _rss_mb(pid: int) -> float:
    pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_a_request_of_100000_actions_is_refused_unparsed_and_memory_returns(
    server: RawServer,
) -> None:
    """2.5 MB of steps under the line bound: refused before parsing, with the id, fast;
    the server's resident memory stays within a few MB of where it was."""
    steps = [{"action": "press", "ref": "@e1"}] * 100_000
    arguments = {"name": "act_ui", "arguments": {"stateId": "s1", "actions": steps}}
    line = json.dumps({"jsonrpc": "2.0", "id": 31, "method": "tools/call", "params": arguments})
    assert 2_000_000 < len(line) < MAX_REQUEST_BYTES
    before = 0.0
    for round_ in range(4):  # the first round's memory is the level (buffers, an arena)
        if round_ == 1:
            assert server.ping(96)["id"] == 96  # settled before measuring
            before = _rss_mb(server.process.pid)
        started = time.monotonic()
        server.send(line)
        answer = server.reply()
        elapsed = time.monotonic() - started
        assert answer == {
            "jsonrpc": "2.0",
            "id": 31,
            "error": {
                "code": INVALID_REQUEST,
                "message": "request refused unparsed: it holds more than 20 actions, and act_ui "
                "takes at most 20 per call. Send the steps over several act_ui calls.",
            },
        }
        assert elapsed < 0.5, f"round {round_}: refusing took {elapsed:.2f} s"
    grown = _rss_mb(server.process.pid) - before
    print(f"refused in {elapsed * 1000:.0f} ms; resident memory grew {grown:.1f} MB")
    assert grown < 2, f"the server kept {grown:.1f} MB"
    assert server.ping(95)["id"] == 95
