"""The accessibility-bus connection: calls sent together in one write each get their own
answer, and one call that cannot be sent fails alone."""

from __future__ import annotations

import asyncio

import pytest
from atspi_helpers import launch_app

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import MAX_IN_FLIGHT, PROPERTIES, AtspiBus
from actui.backends.atspi.reader import ACCESSIBLE, children_of
from actui.backends.linux.sandbox import Sandbox
from actui.errors import BackendUnavailable


async def _all_elements(bus: AtspiBus, app: Address) -> list[Address]:
    """Every element of the application, read one call at a time."""
    found, frontier = [], [app]
    while frontier:
        at = frontier.pop()
        found.append(at)
        frontier += children_of(await bus.call(at.bus, at.path, ACCESSIBLE, "GetChildren"))
    return found


async def test_calls_sent_together_each_get_their_own_answer_and_a_bad_one_fails_alone(
    sandbox: Sandbox,
) -> None:
    process = await launch_app(sandbox, ["gtk3-widget-factory"])
    bus = AtspiBus(sandbox.env)
    try:
        registry = await bus.call(
            "org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root", ACCESSIBLE, "GetChildren"
        )
        apps = [Address.of(pair) for pair in registry[0]]
        owned = [a for a in apps if await bus.connection_pid(a.bus) == process.pid]
        elements = await _all_elements(bus, owned[0])
        assert len(elements) > 2 * MAX_IN_FLIGHT, "enough calls to fill the bound twice"

        one_by_one = [
            (await bus.call(at.bus, at.path, ACCESSIBLE, "GetRole"))[0] for at in elements
        ]
        bad = bus.request(elements[0].bus, elements[0].path, PROPERTIES, "Get", "ss", (1, 2))
        together = [bus.request(at.bus, at.path, ACCESSIBLE, "GetRole") for at in elements]
        roles = [body[0] for body in await asyncio.gather(*together)]

        assert roles == one_by_one
        assert len(set(roles)) > 5, "the elements have many roles: answers cannot be swapped"
        with pytest.raises(BackendUnavailable, match="could not be sent"):
            await bad
        name = await bus.get(owned[0].bus, owned[0].path, ACCESSIBLE, "Name")
        assert name == "gtk3-widget-factory", "the connection still serves"
    finally:
        await bus.close()
