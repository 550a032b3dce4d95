"""The MCP server's stdin: every line it cannot take is answered, never dropped in silence.

The SDK's stdio transport parses each line and, when parsing fails, hands the
exception to its dispatcher, which logs it and replies nothing, so a client
waits forever on a request with a lone surrogate, a nesting too deep for the
parser, a 5,000-digit number or a float id (which the SDK's adapter reads as a
notification). This layer reads stdin in front of the SDK: each line is read
with a byte bound (a longer one is discarded as it arrives, never held),
checked for more act_ui steps than a call takes (``request_bounds``, before it is
parsed), then with the SDK's own message adapter, and a line that fails gets a
JSON-RPC error (``-32700`` parse error, ``-32600`` invalid request or too
large) on the server's write stream. The id is echoed when it can be
recovered, from the parsed line or, when the line does not parse, from an
``"id"`` member in its first KiB (where the SDK and most clients put it);
otherwise the reply has ``"id": null`` as JSON-RPC 2.0 prescribes.

Lines that pass are handed to the SDK unchanged. While it reads, fd 0 points
at the null device so that children cannot read the wire (as the SDK itself
does when it owns stdin).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import BinaryIO

import anyio
import mcp_types as types
from anyio import to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from actui.quoting import inline
from actui.server.request_bounds import give_back_memory, too_many_steps

MAX_REQUEST_BYTES = 4 * 1024 * 1024
"""The longest line accepted: 20 steps of 100,000 characters fit; larger is refused."""
_DISCARD_CHUNK = 64 * 1024
_ID_WINDOW = 1024
_ID_MEMBER = re.compile(r'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\\n]|\\.){0,256}")')

RequestId = int | str | None


@contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """Fd 0's wire as a private binary file; fd 0 itself reads the null device meanwhile."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        # closefd=False: a worker thread may still block on it after the server exits
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


def _read_line(source: BinaryIO, limit: int) -> tuple[bytes, int] | None:
    """One line (without its newline) cut to ``limit`` bytes and its full length; None at EOF."""
    line = source.readline(limit + 1)
    if not line:
        return None
    size = len(line)
    while size > limit and not line.endswith(b"\n"):  # too long: drop the rest as it arrives
        rest = source.readline(_DISCARD_CHUNK)
        size += len(rest)
        if not rest or rest.endswith(b"\n"):
            return line, size - int(rest.endswith(b"\n"))
    return line.removesuffix(b"\n"), size - int(line.endswith(b"\n"))


def _guess_id(prefix: bytes) -> RequestId:
    """The ``"id"`` member near the start of a line that does not parse, if any."""
    match = _ID_MEMBER.search(prefix[:_ID_WINDOW].decode("utf-8", "replace"))
    if match is None:
        return None
    try:
        found = json.loads(match.group(1))
    except ValueError:
        return None
    return found if isinstance(found, (int, str)) else None


def _parsed_id(parsed: object) -> RequestId:
    if isinstance(parsed, dict):
        found = parsed.get("id")
        if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
            return found
    return None


def _summary(exc: Exception) -> str:
    """The first thing wrong, in a few words (never the input itself)."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        text = f"{where}: {first['msg']}" if where else first["msg"]
    else:
        text = str(exc).split(";")[0]  # not Python's advice on raising its own limits
    return inline(text, 200)


def _has_id(text: str) -> bool:
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(parsed, dict) and "id" in parsed


def _problem(text: str) -> tuple[RequestId, int, str] | None:
    """Why the SDK could not take ``text``, as (id, code, message), or None if it can."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError as exc:
        return _unreadable(text, exc)
    if isinstance(message, types.JSONRPCNotification) and _has_id(text):
        # the SDK reads a request whose id is neither a string nor an integer as a notification
        return None, types.INVALID_REQUEST, "invalid request: an id must be a string or an integer."
    return None


def _unreadable(text: str, exc: ValueError) -> tuple[RequestId, int, str]:
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError) as error:
        reason = f"parse error: the line is not JSON this server can read ({_summary(error)})."
        return _guess_id(text.encode("utf-8", "replace")), types.PARSE_ERROR, reason
    reason = f"invalid request: not a JSON-RPC 2.0 message this server can read ({_summary(exc)})."
    return _parsed_id(parsed), types.INVALID_REQUEST, reason


class CheckedStdin:
    """Lines for the SDK's stdio transport, with the failed ones answered on :attr:`replies`."""

    def __init__(self, source: BinaryIO, *, limit: int = MAX_REQUEST_BYTES) -> None:
        self._source = source
        self._limit = limit
        self._send: MemoryObjectSendStream[SessionMessage]
        self.replies: MemoryObjectReceiveStream[SessionMessage]
        self._send, self.replies = anyio.create_memory_object_stream[SessionMessage](64)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async with self._send:
            while (read := await self._read()) is not None:
                line, size = read
                if size > self._limit:
                    await self._answer(
                        _guess_id(line),
                        types.INVALID_REQUEST,
                        f"request too large: {size} bytes; the limit is {self._limit} bytes. "
                        "Send less per call (split long text over several act_ui calls).",
                    )
                elif (crowded := too_many_steps(line)) is not None:
                    await self._answer(_guess_id(line), types.INVALID_REQUEST, crowded)
                    del line, read
                    give_back_memory()
                elif (text := line.decode("utf-8", "replace")).strip():
                    problem = _problem(text)
                    if problem is None:
                        yield text
                    else:
                        await self._answer(*problem)

    async def _read(self) -> tuple[bytes, int] | None:
        return await to_thread.run_sync(_read_line, self._source, self._limit)

    async def _answer(self, request_id: RequestId, code: int, message: str) -> None:
        error = types.JSONRPCError(
            jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
        )
        await self._send.send(SessionMessage(error))
