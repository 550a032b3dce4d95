"""The words each tool's structured result is described in: its MCP ``outputSchema``.

Each names the keys a program reads, with their JSON types, and spells out
the values it branches on: the outcome, the check's status, each step's
outcome, a root delta's change. The rest of a result (timings, diagnostics,
a window's geometry) is not described: clients send the catalog to their
model on every turn, and describing every key would double it.
Nothing is ``additionalProperties: false``, so a new key never breaks a
client; a renamed or retyped one fails the test that validates real results
against these (``tests/integration/test_mcp_output_schemas.py``). Unlike the
parameter schemas, a key that may be ``null`` on the wire (a full view's
``baseStateId``) says so.

MCP clients check every ``structuredContent`` of a successful call against
the tool's schema; an error result (``isError``) is not checked: it is
``{"tool", "error": {"code", "message"}}``. This module must not build
results: it only describes the ones the tools build.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import get_args

from actui.backends.base import Geometry, JsonObject, Outcome, Reach
from actui.results.typed import VerificationStatus

Schema = JsonObject

STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
BOOLEAN: Schema = {"type": "boolean"}
OBJECT: Schema = {"type": "object"}


def nullable(schema: Schema) -> Schema:
    kind = schema["type"]
    return {**schema, "type": [*(kind if isinstance(kind, list) else [kind]), "null"]}


def one_of(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


def shape(required: tuple[str, ...] = (), **properties: Schema) -> Schema:
    """An object with these keys (others allowed), ``required`` always present."""
    out: Schema = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    return out


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


OUTCOME = one_of(*get_args(Outcome))
ERROR_INFO = shape(("code", "message"), code=STRING, message=STRING)

ROOT_DELTA = shape(
    ("change", "ref"), change=one_of("appeared", "closed", "focused"), ref=STRING, title=STRING
)
EXECUTION = shape(
    ("outcome", "steps", "stoppedAt", "verification", "rootDelta"),
    outcome=OUTCOME,
    steps=array(shape(("action", "outcome"), action=STRING, outcome=OUTCOME)),
    stoppedAt=nullable(INTEGER),
    verification=nullable(shape(("status",), status=one_of(*get_args(VerificationStatus)))),
    rootDelta=array(ROOT_DELTA),
)

ROOT_CAPABILITIES = shape(
    ("input", "capture", "geometry"),
    input=one_of(*get_args(Reach)),
    capture=one_of(*get_args(Reach)),
    geometry=one_of(*get_args(Geometry)),
)
"""What the display lets actui do to a root: ``none`` is refused before anything is sent."""

OBSERVATION: Mapping[str, Schema] = {
    "stateId": STRING,
    "baseStateId": nullable(STRING),
    "view": one_of("full", "diff"),
    "target": OBJECT,
}
"""A saved state's part of every result that returns one (a full view or a diff)."""
STATE = ("stateId",)
"""The key every result that names a state requires."""
ELEMENT = shape(("ref", "role"), ref=STRING, role=STRING)
