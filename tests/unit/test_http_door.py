"""The HTTP server's door: token, Host and Origin checks, and the options it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.server.mcp_http import Door, HttpUsageError, is_loopback, resolve_options

LOOPBACK = Door.for_options(resolve_options(host="127.0.0.1", port=0, token_file=None, env={}))


def _scope(path: str = "/mcp", **headers: str) -> dict[str, object]:
    raw = [(k.lower().replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    return {"type": "http", "path": path, "headers": raw}


def _status(door: Door, **headers: str) -> int | None:
    refusal = door.refusal(_scope(**headers))  # type: ignore[arg-type]
    return None if refusal is None else refusal.status_code


def test_a_loopback_server_generates_a_token_and_wants_it() -> None:
    options = resolve_options(host="127.0.0.1", port=0, token_file=None, env={})
    assert options.token_generated and len(options.token) >= 32
    door = Door.for_options(options)
    assert _status(door, host="127.0.0.1:9") == 401
    assert _status(door, host="127.0.0.1:9", authorization="Bearer wrong") == 401
    assert _status(door, host="127.0.0.1:9", authorization=f"Bearer {options.token}") is None
    assert _status(door, host="localhost:9", authorization=f"bearer {options.token}") is None


def test_the_health_endpoint_needs_no_token_but_still_checks_the_host() -> None:
    assert LOOPBACK.refusal(_scope("/health", host="127.0.0.1:9")) is None  # type: ignore[arg-type]
    refused = LOOPBACK.refusal(_scope("/health", host="evil.example:9"))  # type: ignore[arg-type]
    assert refused is not None and refused.status_code == 421


def test_a_rebound_host_name_and_a_foreign_origin_are_refused_even_with_the_token() -> None:
    token = f"Bearer {LOOPBACK.token}"
    assert _status(LOOPBACK, host="attacker.example:8765", authorization=token) == 421
    assert (
        _status(
            LOOPBACK, host="127.0.0.1:8765", origin="http://attacker.example", authorization=token
        )
        == 403
    )
    assert (
        _status(
            LOOPBACK, host="127.0.0.1:8765", origin="http://localhost:3000", authorization=token
        )
        is None
    )


def test_a_non_loopback_address_needs_an_explicit_token(tmp_path: Path) -> None:
    with pytest.raises(HttpUsageError, match="--token-file"):
        resolve_options(host="0.0.0.0", port=8765, token_file=None, env={})
    explicit = resolve_options(
        host="0.0.0.0", port=8765, token_file=None, env={"ACTUI_MCP_TOKEN": "from-env"}
    )
    assert explicit.token == "from-env" and not explicit.token_generated
    token_file = tmp_path / "token"
    token_file.write_text("from-file\n")
    from_file = resolve_options(host="10.1.2.3", port=1, token_file=str(token_file), env={})
    assert from_file.token == "from-file"
    # anything at all may name the host on a non-loopback bind, unless told otherwise
    door = Door.for_options(from_file)
    assert _status(door, host="actui.default.svc:8765", authorization="Bearer from-file") is None
    assert _status(door, origin="http://127.0.0.1:1", authorization="Bearer from-file") == 403


def test_bad_options_name_the_flag(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_text("")
    cases = {
        "--token-file": {"token_file": str(empty)},
        "--max-desktops": {"max_desktops": 0},
        "--idle-timeout": {"idle_s": -1.0},
        "--port": {"port": 70000},
        "--app": {"apps": ["  "]},
        "--wayland": {"wayland": True},
    }
    for flag, override in cases.items():
        args: dict[str, object] = {"host": "127.0.0.1", "port": 0, "token_file": None, "env": {}}
        with pytest.raises(HttpUsageError, match=flag):
            resolve_options(**{**args, **override})  # type: ignore[arg-type]
    with pytest.raises(HttpUsageError, match="cannot read"):
        resolve_options(host="::1", port=0, token_file=str(tmp_path / "missing"), env={})


@given(st.text(min_size=1, max_size=40))
def test_no_token_but_the_right_one_opens_the_door(guess: str) -> None:
    status = _status(LOOPBACK, host="127.0.0.1:1", authorization=f"Bearer {guess}")
    assert (status is None) == (guess.strip() == LOOPBACK.token)


def test_loopback_names() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.8.0.1", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "10.0.0.1", "example.com", "::"))
