"""Typed parts of an ``act_ui`` result, each turned into wire JSON by one ``to_wire()``.

A first slice of typed results: one step's trace and the verification of
``expect``. They are built where the facts are known (``actions.deliver``,
``transaction``), read by attribute there, and become the wire's dicts only
at the edge, key for key in the order agents have always received
(``tests/integration/test_golden_act.py`` holds that order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from actui.backends.base import DeliveryPolicy, Outcome
from actui.conditions import UiCondition, condition_json

Wire = dict[str, object]
VerificationStatus = Literal["verified", "preexisting", "failed", "skipped"]
EscalationReason = Literal["side_effect_free_didnt", "foreground_required"]


@dataclass(frozen=True)
class Where:
    """The window that decided a condition: it holds there (``held``), or an
    absent condition is still shown there."""

    held: bool
    ref: str
    title: str
    kind: str

    @property
    def key(self) -> str:
        return "satisfiedIn" if self.held else "shownIn"

    def to_wire(self) -> Wire:
        return {"ref": self.ref, "title": self.title, "kind": self.kind}


@dataclass(frozen=True)
class StepError:
    code: str
    message: str

    def to_wire(self) -> Wire:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class BackgroundAttempt:
    """What the background delivery did before the one foreground retry."""

    outcome: Literal["didnt", "foreground_required"]
    reason: str

    def to_wire(self) -> Wire:
        return {"outcome": self.outcome, "reason": self.reason}


@dataclass(frozen=True)
class StepTrace:
    """One step of a transaction: what was sent, how, and what came of it.

    Delivered steps carry the policy fields (``background_first`` …); wait
    steps carry ``ms`` or ``until`` (with ``elapsed_ms`` and ``where``).
    """

    action: str
    outcome: Outcome
    ref: str | None = None
    ms: int | None = None
    until: UiCondition | None = None
    background_first: bool | None = None
    escalated: bool | None = None
    policy: DeliveryPolicy | None = None
    escalation_reason: EscalationReason | None = None
    background_attempt: BackgroundAttempt | None = None
    delivery: str | None = None
    mechanism: str = ""
    reason: str = ""
    evidence: Mapping[str, object] | None = None
    elapsed_ms: int | None = None
    where: Where | None = None
    error: StepError | None = None

    def to_wire(self) -> Wire:
        out: Wire = {"action": self.action}
        if self.ref:
            out["ref"] = self.ref
        if self.ms is not None:
            out["ms"] = self.ms
        if self.until is not None:
            out["until"] = condition_json(self.until)
        if self.background_first is not None:
            out["backgroundFirst"] = self.background_first
        if self.escalated is not None:
            out["escalatedToForeground"] = self.escalated
        # A foreground_required refusal came before any policy was recorded, so
        # its policy has always followed the escalation fields on the wire.
        late_policy = self.escalation_reason == "foreground_required"
        if self.policy is not None and not late_policy:
            out["deliveryPolicy"] = self.policy
        if self.escalation_reason is not None and self.background_attempt is not None:
            out["escalationReason"] = self.escalation_reason
            out["backgroundAttempt"] = self.background_attempt.to_wire()
        if self.policy is not None and late_policy:
            out["deliveryPolicy"] = self.policy
        out["outcome"] = self.outcome
        if self.delivery is not None:
            out["delivery"] = self.delivery
        if self.mechanism:
            out["mechanism"] = self.mechanism
        if self.reason:
            out["reason"] = self.reason
        if self.evidence:
            out["evidence"] = dict(self.evidence)
        if self.elapsed_ms is not None:
            out["elapsedMs"] = self.elapsed_ms
        if self.where is not None:
            out[self.where.key] = self.where.to_wire()
        if self.error is not None:
            out["error"] = self.error.to_wire()
        return out


@dataclass(frozen=True)
class Verification:
    """The check of ``expect`` after the steps (``skipped`` when they stopped early).

    ``closest`` is what the UI shows instead, for a failed check or an absent
    condition an opened window still shows; None when there is nothing to say.
    """

    status: VerificationStatus
    condition: UiCondition
    where: Where | None = None
    closest: tuple[str, ...] | None = None

    def to_wire(self) -> Wire:
        out: Wire = {"status": self.status, **condition_json(self.condition)}
        if self.where is not None:
            out[self.where.key] = self.where.to_wire()
        if self.closest is not None:
            out["closest"] = list(self.closest)
        return out
