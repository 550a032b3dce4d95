"""The typed results' wire forms conform to the output schemas MCP clients are given.

Any execution (any steps, stop, check and root deltas), any find_roots and
any search_ui result, as ``to_wire()`` writes it, validates against the schema part that
describes it; and the schemas cost the catalog less than the parameters do.
"""

from __future__ import annotations

import json
from typing import get_args

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import outlines

from actui.backends.base import Outcome, RootInfo, RootKind
from actui.outline.conditions import UiCondition
from actui.outline.model import Outline
from actui.outline.search import search
from actui.results.schemas import EXECUTION
from actui.results.typed import (
    BackgroundAttempt,
    Execution,
    Found,
    FoundRoot,
    RootsFound,
    RootView,
    StepError,
    StepTrace,
    Verification,
    VerificationStatus,
    Where,
)
from actui.runtime.deltas import RootDelta, SettledBy
from actui.runtime.reaching import Coverage, Unopened
from actui.tokens import estimate_tokens
from actui.tools.catalog import BY_NAME, TOOL_NAMES, export_schemas

OUTCOMES = st.sampled_from(get_args(Outcome))
KINDS = st.sampled_from(get_args(RootKind))
TEXT = st.text(max_size=12)


def _steps() -> st.SearchStrategy[StepTrace]:
    escalation = st.one_of(
        st.just({}),
        st.just(
            {
                "escalated": True,
                "escalation_reason": "foreground_required",
                "background_attempt": BackgroundAttempt("foreground_required", "keys"),
            }
        ),
    )
    return st.builds(
        lambda action, outcome, ref, error, extra: StepTrace(
            action, outcome, ref=ref, error=error, **extra
        ),
        st.sampled_from(["press", "setText", "wait", "click"]),
        OUTCOMES,
        st.one_of(st.none(), st.just("@e3")),
        st.one_of(st.none(), st.builds(StepError, TEXT, TEXT)),
        escalation,
    )


def _verifications() -> st.SearchStrategy[Verification | None]:
    where = st.one_of(st.none(), st.builds(Where, st.booleans(), TEXT, TEXT, TEXT))
    return st.one_of(
        st.none(),
        st.builds(
            Verification,
            st.sampled_from(get_args(VerificationStatus)),
            st.just(UiCondition(text="Saved")),
            where,
            st.one_of(st.none(), st.tuples(TEXT)),
        ),
    )


ROOTS = st.builds(
    RootInfo,
    native_id=TEXT,
    pid=st.integers(0, 1 << 22),
    app_name=TEXT,
    title=TEXT,
    kind=KINDS,
    raw_role=TEXT,
    window_id=st.one_of(st.none(), st.integers(1, 1 << 30)),
    url=TEXT,
)
DELTAS = st.builds(
    RootDelta, st.sampled_from(["appeared", "closed", "focused"]), KINDS, TEXT, TEXT,
    st.integers(0, 1 << 22), st.booleans(),
)  # fmt: skip


@settings(deadline=None)  # a wide random execution takes over 200 ms on a loaded machine
@given(
    OUTCOMES,
    st.lists(_steps(), max_size=4),
    st.one_of(st.none(), st.integers(0, 3)),
    _verifications(),
    st.lists(DELTAS, max_size=3),
    st.sampled_from(["events", "window", "launch", "none"]),
)
def test_any_execution_conforms_to_the_act_schema(
    outcome: Outcome,
    steps: list[StepTrace],
    stopped: int | None,
    verification: Verification | None,
    deltas: list[RootDelta],
    settled: SettledBy,
) -> None:
    execution = Execution(outcome, tuple(steps), stopped, verification, tuple(deltas), settled)
    wire = execution.to_wire()
    jsonschema.validate(wire["execution"], EXECUTION)
    jsonschema.validate(wire, BY_NAME["act_ui"].result)


@given(st.lists(st.tuples(TEXT, ROOTS, st.floats(0, 1), st.booleans()), max_size=4), st.booleans())
def test_any_find_roots_result_conforms_to_its_schema(
    found: list[tuple[str, RootInfo, float, bool]], headless: bool
) -> None:
    roots = tuple(FoundRoot(RootView(ref, root), score, ok) for ref, root, score, ok in found)
    result = RootsFound(roots, len(roots) + 1, ("a notice",), True, headless)
    jsonschema.validate(json.loads(json.dumps(result.to_wire())), BY_NAME["find_roots"].result)


@given(outlines(), st.sampled_from(["Save", "OK", "Name", "x"]))
def test_any_search_result_conforms_to_its_schema(outline: Outline, text: str) -> None:
    read = (Coverage(outline.root_node, 10, ((0, 4),)), Unopened(1, (outline.root_node,)))
    found = Found("s1", search(outline, text=text), "s0", read)
    jsonschema.validate(found.to_wire(), BY_NAME["search_ui"].result)


def test_every_tool_has_a_valid_output_schema_in_the_mcp_catalog() -> None:
    listed = {tool["name"]: tool for tool in export_schemas("mcp")}
    assert list(TOOL_NAMES) == list(listed)
    for name, tool in listed.items():
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])
        assert tool["outputSchema"] == BY_NAME[name].result


def test_the_output_schemas_cost_less_than_the_parameters() -> None:
    catalog = export_schemas("mcp")
    outputs = sum(estimate_tokens(json.dumps(tool["outputSchema"])) for tool in catalog)
    inputs = sum(estimate_tokens(json.dumps(tool["inputSchema"])) for tool in catalog)
    assert outputs < inputs / 2, (outputs, inputs)
