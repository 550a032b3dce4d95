"""The browser tools end to end: a real MCP client, `actui mcp`, headless Chromium, local pages."""

from __future__ import annotations

import asyncio
import json
import os
import re
import urllib.parse
from pathlib import Path
from typing import Any

from actui.server.demo import Agent, connect
from actui.tokens import estimate_tokens

FORM_URL = (Path(__file__).resolve().parents[1] / "apps" / "web" / "form.html").as_uri()
SECRET = "hunter2-secret"


def _no_desktop_env() -> dict[str, str]:
    """No display and no session bus: the browser tools must not need a desktop."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS")
    }


def _data_url(html: str) -> str:
    return "data:text/html," + urllib.parse.quote(html)


async def _ref(agent: Agent, state: str, **query: str) -> str:
    found = await agent.details("search_ui", {"stateId": state, **query})
    assert found["matches"], query
    return str(found["matches"][0]["ref"])


def _everything(result: Any) -> str:
    return Agent.text(result) + json.dumps(result.structured_content)


async def test_a_form_page_is_observed_filled_submitted_and_verified() -> None:
    async with connect(_no_desktop_env()) as agent:
        launched = await agent.call("launch_browser", {"url": FORM_URL})
        assert not launched.is_error, Agent.text(launched)
        assert SECRET not in _everything(launched)
        state = launched.structured_content["stateId"]  # type: ignore[index]
        roots = await agent.details("find_roots", {})
        assert [w["kind"] for w in roots["windows"]] == ["browser_page"]
        name = await _ref(agent, state, text="Name", role="textbox")
        submit = await _ref(agent, state, text="Submit", role="button")
        act = await agent.call(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {"action": "setText", "ref": name, "text": "Grace"},
                    {"action": "press", "ref": submit},
                ],
                "expect": {"text": "submitted Grace"},
            },
        )
        assert not act.is_error, Agent.text(act)
        details = act.structured_content
        assert details["outcome"] == "worked"  # type: ignore[index]
        assert details["execution"]["verification"]["status"] == "verified"  # type: ignore[index]
        assert details["execution"]["steps"][0]["outcome"] == "worked"  # type: ignore[index]
        assert SECRET not in _everything(act)
        # The page's own state, read back independently of the outline.
        value = await agent.details(
            "evaluate_browser",
            {"stateId": details["stateId"], "expression": "document.getElementById('name').value"},  # type: ignore[index]
        )
        assert json.loads(value["value"]) == "Grace"
        # An explicit read of the password field is refused.
        pw = await _ref(agent, value["stateId"], role="password")
        refused = await agent.call("read_text", {"stateId": value["stateId"], "ref": pw})
        assert refused.is_error and SECRET not in Agent.text(refused)


async def test_wait_for_wakes_on_a_delayed_change_and_evaluate_reports_exceptions() -> None:
    async with connect(_no_desktop_env()) as agent:
        state = (await agent.details("launch_browser", {"url": FORM_URL}))["stateId"]
        later = await _ref(agent, state, text="Show later", role="button")
        act = await agent.details(
            "act_ui", {"stateId": state, "actions": [{"action": "press", "ref": later}]}
        )
        waited = await agent.details(
            "wait_for", {"stateId": act["stateId"], "text": "Arrived late", "timeoutMs": 5000}
        )
        assert waited["found"] is True and waited["timedOut"] is False
        assert waited["waitedBy"] == "events"
        failed = await agent.details(
            "evaluate_browser",
            {"stateId": waited["stateId"], "expression": "throw new Error('boom')"},
        )
        assert "boom" in failed["exception"]
        assert failed["value"] is None


async def test_navigation_makes_old_states_stale() -> None:
    async with connect(_no_desktop_env()) as agent:
        state = (await agent.details("launch_browser", {"url": _data_url("<p>first</p>")}))[
            "stateId"
        ]
        navigated = await agent.details(
            "navigate_browser",
            {"stateId": state, "url": _data_url("<button>Go</button><p>second</p>")},
        )
        assert "second" in json.dumps(navigated)
        stale = await agent.call(
            "act_ui", {"stateId": state, "actions": [{"action": "press", "ref": "@e1"}]}
        )
        assert stale.is_error and "stale" in Agent.text(stale)
        assert navigated["view"] == "full"
        # A page that navigates by itself also makes its state stale.
        form = await agent.details(
            "navigate_browser", {"stateId": navigated["stateId"], "url": FORM_URL}
        )
        timer = await agent.details(
            "evaluate_browser",
            {
                "stateId": form["stateId"],
                "expression": "setTimeout(() => { location.href = 'frame.html'; }, 200); 1",
            },
        )
        await asyncio.sleep(1.0)
        moved = await agent.call(
            "act_ui", {"stateId": timer["stateId"], "actions": [{"action": "press", "ref": "@e2"}]}
        )
        assert moved.is_error and "navigated" in Agent.text(moved)
        for url in ("ftp://x", "javascript:alert(1)"):
            bad = await agent.call("navigate_browser", {"stateId": timer["stateId"], "url": url})
            assert bad.is_error and Agent.text(bad).startswith("navigate_browser failed: url:")


async def test_a_visual_page_state_carries_a_screenshot_and_coordinates_click_there() -> None:
    async with connect(_no_desktop_env()) as agent:
        launched = await agent.details("launch_browser", {"url": FORM_URL})
        roots = await agent.details("find_roots", {})
        visual = await agent.call(
            "observe_ui", {"root": roots["windows"][0]["windowRef"], "mode": "visual"}
        )
        images = [b for b in visual.content if b.type == "image"]
        assert images and images[0].mime_type == "image/png"
        state = visual.structured_content["stateId"]  # type: ignore[index]
        assert launched["stateId"] != state
        button = await _ref(agent, state, text="Show later", role="button")
        rect = (await agent.details("inspect_ui", {"stateId": state, "ref": button}))["target"][
            "rect"
        ]
        act = await agent.details(
            "act_ui",
            {
                "stateId": state,
                "actions": [
                    {"action": "click", "x": rect["x"] + rect["w"] / 2, "y": rect["y"] + 3}
                ],
                "expect": {"text": "Arrived late", "timeoutMs": 5000},
            },
        )
        assert act["execution"]["verification"]["status"] == "verified"


async def test_results_keep_to_max_tokens_and_say_how_to_get_the_rest(tmp_path: Path) -> None:
    rows = "".join(
        f"<p>Paragraph {i} of a long page.</p>"
        f"<button onclick=\"document.title='pressed {i}'\">Button {i}</button>"
        for i in range(40)
    )
    page = tmp_path / "long.html"
    page.write_text(f"<title>Long</title>{rows}", encoding="utf-8")
    async with connect(_no_desktop_env()) as agent:
        launched = await agent.call("launch_browser", {"url": page.as_uri(), "maxTokens": 150})
        text = Agent.text(launched)
        assert not launched.is_error and estimate_tokens(text) <= 150, text
        assert "@e" in text and text.splitlines()[-1].startswith("▸ folds: expand_ui"), text
        page_ref = launched.structured_content["target"]["windowRef"]  # type: ignore[index]
        again = Agent.text(
            await agent.call("observe_ui", {"root": page_ref, "maxTokens": 150})
        )  # the session has read how to open a fold: its folds are still counted
        assert " ▸ (" in again and "more: " in again and "▸ folds:" not in again, again
        state = launched.structured_content["stateId"]  # type: ignore[index]
        found = await agent.call(
            "search_ui", {"stateId": state, "role": "button", "maxTokens": 100}
        )
        listed = Agent.text(found)
        assert estimate_tokens(listed) <= 100 and "(maxTokens 100)" in listed, listed
        stored = re.search(r'"ref": "(@o\d+)", "offset": (\d+)', listed)
        assert stored is not None, listed
        rest = await agent.call("read_text", {"ref": stored[1], "offset": int(stored[2])})
        assert "Button 11" in Agent.text(rest), "the cut matches are there to read"
        last = found.structured_content["matches"][-1]  # type: ignore[index]
        assert last["label"] == "Button 11"
        acted = await agent.call(
            "act_ui",
            {
                "stateId": state,
                "actions": [{"action": "press", "ref": last["ref"]}],
                "maxTokens": 120,
            },
        )
        assert estimate_tokens(Agent.text(acted)) <= 120 and "outcome worked" in Agent.text(acted)
        title = await agent.details(
            "evaluate_browser",
            {"stateId": acted.structured_content["stateId"], "expression": "document.title"},  # type: ignore[index]
        )
        assert json.loads(title["value"]) == "pressed 11", "the page answered and was pressed"
        refused = await agent.call("observe_ui", {"maxTokens": 5})
        assert refused.is_error and "maxTokens: 5 is not a token budget" in Agent.text(refused)
