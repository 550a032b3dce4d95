"""The MCP stdin layer's pure parts: bounded line reads, id recovery, what it answers."""

from __future__ import annotations

import io

import mcp_types as types

from actui.server.stdin_guard import _guess_id, _problem, _read_line


def test_lines_are_read_whole_or_cut_to_the_limit_with_their_full_length() -> None:
    source = io.BytesIO(b"short\n" + b"x" * 100 + b"\nlast")
    assert _read_line(source, 10) == (b"short", 5)
    line, size = _read_line(source, 10) or (b"", 0)
    assert size == 100 and len(line) == 11, "an oversized line is cut, its rest drained"
    assert _read_line(source, 10) == (b"last", 4)
    assert _read_line(source, 10) is None


def test_an_id_is_recovered_from_the_start_of_a_line_that_does_not_parse() -> None:
    assert _guess_id(b'{"jsonrpc":"2.0","id":42,"method":"x","params":{') == 42
    assert _guess_id(b'{"id": "a\\"b", "method":') == 'a"b'
    assert _guess_id(b'{"id": 1.5, "method":') is None
    assert _guess_id(b"garbage") is None


def test_valid_messages_pass_and_broken_ones_get_the_right_code() -> None:
    assert _problem('{"jsonrpc":"2.0","id":1,"method":"ping"}') is None
    assert _problem('{"jsonrpc":"2.0","method":"notifications/initialized"}') is None
    cases = {
        "{": (None, types.PARSE_ERROR),
        '{"jsonrpc":"2.0","id":7,"method":1}': (7, types.INVALID_REQUEST),
        '{"jsonrpc":"2.0","id":true,"method":"ping"}': (None, types.INVALID_REQUEST),
    }
    for line, wanted in cases.items():
        problem = _problem(line)
        assert problem is not None and problem[:2] == wanted, line
