"""What GTK 3 exposes of gtk3-widget-factory's pages that are not shown, measured.

GTK 4 lists a stack's hidden pages (test_hidden_pages.py: actui leaves them
unread and reads them on demand). GTK 3 does not: its stack says it has one
child, the page shown, and neither a walk (``ChildCount``) nor the cache
(``Cache.GetItems``) holds anything of the other pages, so there is nothing to
read on demand and a search cannot tell it left anything out; the page's
switcher button is how an agent reaches it. What GTK 3 does list of what is
not shown (notebook pages, popovers, menus) comes whole from the cache at no
call each, so nothing of it is left unread either.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from computer_helpers import assert_alive, found_of, matches_of
from corpus_helpers import Driven, headless_app
from dbus_fast import Message, MessageType

from actui.backends.atspi.address import Address
from actui.backends.atspi.bus import AtspiBus
from actui.backends.atspi.reader import ACCESSIBLE
from actui.backends.linux.sandbox import Sandbox
from actui.outline.model import Node, Outline

pytestmark = pytest.mark.asyncio(loop_scope="module")

ON_PAGE_2 = "All systems are operating normally."
"""A label of gtk3-widget-factory's second stack page."""
ON_PAGE_1 = "Inset"
"""A frame's label on its first stack page."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def factory(module_sandbox: Sandbox) -> AsyncIterator[Driven]:
    async with headless_app(module_sandbox, ["gtk3-widget-factory"]) as app:
        yield app


async def _look(app: Driven) -> tuple[str, Outline]:
    state = await app.look("gtk3-widget-factory")
    return state, app.computer.state(state).outline


def _named(outline: Outline, name: str) -> Node:
    (node,) = [n for n in outline if n.name == name][:1]
    return node


def _ancestors(outline: Outline, node: Node) -> list[Node]:
    found = []
    while node.parent is not None:
        node = outline.nodes[node.parent]
        found.append(node)
    return found


async def _cached_names(bus: AtspiBus, wire: str) -> set[str]:
    """The names of everything GTK 3's cache holds (asked on the bare connection: actui's
    bus sends ``GetItems`` only where a snapshot chose it)."""
    asked = Message(
        destination=Address.parse(wire).bus,
        path="/org/a11y/atspi/cache",
        interface="org.a11y.atspi.Cache",
        member="GetItems",
    )
    reply = await asyncio.wait_for((await bus.a11y()).call(asked), 5)
    assert reply is not None and reply.message_type == MessageType.METHOD_RETURN, reply
    (items,) = reply.body
    assert len(items) > 100, len(items)
    return {str(item[6]) for item in items}


async def _child_count(bus: AtspiBus, wire: str) -> Any:
    at = Address.parse(wire)
    return (await bus.get_many(at.bus, at.path, ACCESSIBLE, ("ChildCount",)))["ChildCount"]


async def test_gtk3_lists_only_the_shown_page_of_a_stack_and_the_switcher_reaches_another(
    factory: Driven, module_sandbox: Sandbox
) -> None:
    state, first = await _look(factory)
    assert not any(n.unread for n in first), "GTK 3 leaves nothing unread: the cache holds it"
    assert ON_PAGE_2 not in {n.name for n in first}
    searched = await factory.ok("search_ui", {"stateId": state, "text": ON_PAGE_2})
    assert not [m for m in matches_of(searched) if m.reason == "exact"], searched.text
    assert not found_of(searched).unread, "nothing known was left unsearched"
    bus = AtspiBus(module_sandbox.env)
    try:
        inset = _named(first, ON_PAGE_1)
        assert inset.wire is not None
        assert ON_PAGE_2 not in await _cached_names(bus, inset.wire), "nor is it in the cache"
        radios = await factory.ok(
            "search_ui", {"stateId": state, "text": "Page 2", "role": "radio"}
        )
        (switch,) = [m.ref for m in matches_of(radios) if m.label == "Page 2"]
        pressed = await factory.act(
            {"stateId": state, "actions": [{"action": "press", "ref": switch}]}
        )
        assert pressed.outcome == "worked", factory.texts[-1]
        _, second = await _look(factory)
        label = _named(second, ON_PAGE_2)
        assert ON_PAGE_1 not in {n.name for n in second}, "the first page left the tree"
        before = {n.wire for n in _ancestors(first, inset)}
        stack = next(n for n in _ancestors(second, label) if n.wire in before)
        assert stack.wire is not None
        assert len(stack.children) == 1 and await _child_count(bus, stack.wire) == 1, (
            "the stack holds the shown page alone, whichever it is"
        )
    finally:
        await bus.close()
    assert_alive(factory.pid)
    await factory.answering()
