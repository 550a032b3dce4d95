"""act_ui's step lines: only the steps that say more than the result's header."""

from __future__ import annotations

from typing import Any

from actui.views import trace_summary


def step(action: str, outcome: str, **extra: Any) -> dict[str, Any]:
    return {
        "action": action,
        "ref": "@e5",
        "outcome": outcome,
        "delivery": "pid",
        "deliveryPolicy": "background",
        **extra,
    }


def test_steps_that_did_what_the_act_did_get_no_line() -> None:
    trace = {"outcome": "worked", "steps": [step("press", "worked"), step("toggle", "worked")]}
    assert trace_summary(trace) == []


def test_a_step_that_differs_escalated_or_failed_keeps_its_line_and_delivery() -> None:
    trace = {
        "outcome": "unknown",
        "stoppedAt": 2,
        "steps": [
            step("press", "worked"),
            step("press", "unknown", reason="no page change within 0.3 s"),
            step("press", "unknown", escalatedToForeground=True, escalationReason="ax failed"),
            step("wait", "unknown", error={"code": "timeout", "message": "timed out"}),
        ],
    }
    assert trace_summary(trace) == [
        "  1. press @e5 → worked via pid/background",
        "  2. press @e5 → unknown via pid/background (no page change within 0.3 s)",
        "  3. press @e5 → unknown via pid/background (escalated: ax failed)",
        "  4. wait @e5 → unknown via pid/background error timeout: timed out",
        "  stopped at step 3; later steps were not run",
    ]
