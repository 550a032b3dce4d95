"""act_ui's step lines: only the steps that say more than the result's header."""

from __future__ import annotations

from typing import Any

from actui.backends.base import Outcome
from actui.results.typed import BackgroundAttempt, Execution, StepError, StepTrace
from actui.results.views import trace_summary


def step(action: str, outcome: Outcome, **extra: Any) -> StepTrace:
    return StepTrace(action, outcome, ref="@e5", delivery="pid", policy="background", **extra)


def execution(outcome: Outcome, *steps: StepTrace, stopped_at: int | None = None) -> Execution:
    return Execution(outcome, steps, stopped_at, None, (), "none")


def test_steps_that_did_what_the_act_did_get_no_line() -> None:
    done = execution("worked", step("press", "worked"), step("toggle", "worked"))
    assert trace_summary(done) == []


def test_a_step_that_differs_escalated_or_failed_keeps_its_line_and_delivery() -> None:
    escalated = step(
        "press",
        "unknown",
        escalated=True,
        escalation_reason="foreground_required",
        background_attempt=BackgroundAttempt("foreground_required", "keys need input"),
    )
    done = execution(
        "unknown",
        step("press", "worked"),
        step("press", "unknown", reason="no page change within 0.3 s"),
        escalated,
        step("wait", "unknown", error=StepError("timeout", "timed out")),
        stopped_at=2,
    )
    assert trace_summary(done) == [
        "  1. press @e5 → worked via pid/background",
        "  2. press @e5 → unknown via pid/background (no page change within 0.3 s)",
        "  3. press @e5 → unknown via pid/background (escalated: foreground_required)",
        "  4. wait @e5 → unknown via pid/background error timeout: timed out",
        "  stopped at step 3; later steps were not run",
    ]
