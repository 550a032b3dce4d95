"""What a backend answers when it sends nothing, and why: refusals and what blocks a step.

These are ground types: the backend seam returns them, and the agent's sentence is made
from them (``actui.sentences``, ``actui.errors``) without either importing a layer above
the ground. A refusal is an answer, not an error; whether to send the step again in the
foreground is decided in ``actui.tools.actions`` alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DeliveryPolicy = Literal["ax_only", "background", "default", "foreground"]
Blocked = Literal["", "disabled", "menu_closed", "modal_dialog"]
"""What stands in the way: the target stayed ``disabled``, or is in a closed menu
(``menu_closed``), and nothing was sent; or the step opened a ``modal_dialog`` that
blocks the application's accessibility until it is closed."""

Needs = Literal["physical", "pixels", "activation"]
"""What a refused step would need: ``physical`` input (pointer or keyboard; the step has
no semantic form here), physical input at a point of a window no accessibility tree
describes (``pixels``), or its window made active (``activation``)."""


@dataclass(frozen=True)
class Refused:
    """A step the backend sent nothing of, because ``policy`` forbids the input it needs.

    ``why`` is the fact that stood in the way (plain data, no advice); the
    agent's sentence is made from it at the tools boundary.
    """

    why: str
    needs: Needs
    policy: DeliveryPolicy
