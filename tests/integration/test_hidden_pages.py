"""gtk4-widget-factory's hidden stack pages through the tools: the outline says they are
not shown and how many items they hold unread; expand_ui reads one on demand into a
successor state; search_ui finds a widget on a hidden page by reading on demand."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from computer_helpers import expanded_of, found_of, waited_of
from corpus_helpers import Driven, headless_app

from actui.backends.linux.sandbox import Sandbox
from actui.runtime.reaching import Unopened

pytestmark = pytest.mark.asyncio(loop_scope="module")

UNREAD = re.compile(r"^\s*(@e\d+) .*\(not shown; (\d+) items? unread\)", re.MULTILINE)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def factory(module_sandbox: Sandbox) -> AsyncIterator[Driven]:
    async with headless_app(module_sandbox, ["gtk4-widget-factory"]) as app:
        yield app


async def _observed(app: Driven) -> tuple[str, str]:
    return await app.look("Widget Factory"), app.texts[-1]


async def test_hidden_pages_are_unread_and_expand_ui_reads_one(factory: Driven) -> None:
    state, outline = await _observed(factory)
    hidden = UNREAD.findall(outline)
    assert hidden, outline
    assert "Data source: Wikipedia" not in outline, "a hidden page was read"
    ref, count = max(hidden, key=lambda pair: int(pair[1]))
    expanded = expanded_of(
        await factory.ok("expand_ui", {"stateId": state, "ref": ref, "depth": 1})
    )
    text = factory.texts[-1]
    assert expanded.base_state_id == state and expanded.state_id != state
    assert "read on demand into stateId" in text
    assert len(re.findall(r"^\s+@e\d+ ", text, re.MULTILINE)) >= int(count), text
    again = expanded_of(await factory.ok("expand_ui", {"stateId": expanded.state_id, "ref": ref}))
    assert again.state_id == expanded.state_id, "read once: the successor holds it"
    await factory.answering()


async def test_search_ui_finds_a_widget_on_a_hidden_page_by_reading_on_demand(
    factory: Driven,
) -> None:
    state, _ = await _observed(factory)
    found = found_of(
        await factory.ok("search_ui", {"stateId": state, "text": "Data source: Wikipedia"})
    )
    exact = [m for m in found.result.matches if m.reason == "exact"]
    assert exact, factory.texts[-1]
    assert found.base_state_id == state and found.state_id != state
    assert any(isinstance(each, Unopened) for each in found.unread), found.unread
    await factory.ok("inspect_ui", {"stateId": found.state_id, "ref": exact[0].ref})
    assert "Data source: Wikipedia" in factory.texts[-1], factory.texts[-1]
    stored = factory.computer.state(state).outline
    assert any(n.unread for n in stored), "the stored state itself stayed unread"
    await factory.answering()


async def test_wait_for_text_on_a_hidden_page_finds_it_by_reading_on_demand(
    factory: Driven,
) -> None:
    state, outline = await _observed(factory)
    assert "Data source: Wikipedia" not in outline, "the page is hidden, unread"
    waited = waited_of(
        await factory.ok(
            "wait_for", {"stateId": state, "text": "Data source: Wikipedia", "timeoutMs": 10_000}
        )
    )
    text = factory.texts[-1]
    assert waited.found and waited.matches, text
    assert "read on demand into stateId" in text, text
    assert waited.observation.base_state_id == state, text
    assert any(isinstance(each, Unopened) for each in waited.unread), waited.unread
    assert any(n.unread for n in factory.computer.state(state).outline), "stored unchanged"
    await factory.answering()
