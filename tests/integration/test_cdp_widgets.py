"""CdpBackend on real headless Chromium: covered targets, focus hand-offs, value widgets,
disclosures and JavaScript dialogs, each judged by what the page shows afterwards.

One browser serves the module; every test navigates to a fresh copy of the page.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from test_cdp_page import act, find, js, look, walk

from actui.backends.base import RootInfo
from actui.backends.cdp import CdpBackend
from actui.errors import DialogOpen, PageNavigated

pytestmark = [pytest.mark.asyncio(loop_scope="module")]

WIDGETS_URL = (Path(__file__).resolve().parents[1] / "apps" / "web" / "widgets.html").as_uri()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: CdpBackend) -> AsyncIterator[RootInfo]:
    roots = await browser.list_roots()
    root = await browser.navigate(roots[0], WIDGETS_URL)
    yield root
    session = await browser._session(root)
    if session.dialog is not None:  # a failed test must not leave the page blocked
        await session.answer_dialog(False)


async def status(browser: CdpBackend, root: RootInfo) -> str:
    return await js(browser, root, "document.getElementById('status').textContent")


async def test_press_on_a_partly_covered_button_clicks_its_visible_part(
    browser: CdpBackend, page: RootInfo
) -> None:
    under = find(await look(browser, page), "button", "Under")
    result = await act(browser, page, "press", under)
    assert result.outcome == "worked" and result.evidence["via"] == "mouse"
    assert result.evidence["covered"] is True and result.evidence["coveredBy"] == "button#over"
    assert await status(browser, page) == '"under pressed"'


async def test_press_on_an_uncovered_button_clicks_its_centre(
    browser: CdpBackend, page: RootInfo
) -> None:
    over = find(await look(browser, page), "button", "Over")
    result = await act(browser, page, "press", over)
    assert result.evidence["covered"] is False and over.rect is not None
    assert (result.evidence["x"], result.evidence["y"]) == over.rect.center
    assert await status(browser, page) == '"over pressed"'


async def test_press_on_a_fully_covered_button_falls_back_to_dom_click_and_says_so(
    browser: CdpBackend, page: RootInfo
) -> None:
    buried = find(await look(browser, page), "button", "Buried")
    result = await act(browser, page, "press", buried)
    assert result.outcome == "worked" and result.evidence["via"] == "dom.click"
    assert "div#veil" in str(result.evidence["reason"])
    assert await status(browser, page) == '"buried pressed"'


async def test_focus_counts_when_the_page_moves_focus_on_at_once(
    browser: CdpBackend, page: RootInfo
) -> None:
    hop = find(await look(browser, page), "textbox", "Hop")
    result = await act(browser, page, "focus", hop)
    assert result.outcome == "worked"
    assert result.evidence == {"focused": False, "focusEvent": True, "focusNow": "input#landing"}
    assert await js(browser, page, "document.activeElement.id") == '"landing"'


async def test_set_value_types_into_a_spinner_field_and_the_widget_sees_it(
    browser: CdpBackend, page: RootInfo
) -> None:
    spin = find(await look(browser, page), "spinbutton", "Spinner")
    assert "setValue" in spin.caps
    result = await act(browser, page, "setValue", spin, value=12)
    assert result.outcome == "worked" and result.evidence["via"] == "typed"
    assert await status(browser, page) == '"spin 12"'
    assert find(await look(browser, page), "spinbutton", "Spinner").value == "12"


async def test_set_value_steps_an_aria_slider_with_arrow_keys(
    browser: CdpBackend, page: RootInfo
) -> None:
    slider = find(await look(browser, page), "slider", "Volume")
    assert "setValue" in slider.caps
    result = await act(browser, page, "setValue", slider, value=9)
    assert result.outcome == "worked" and result.evidence["via"] == "keys"
    assert await js(browser, page, "slider.getAttribute('aria-valuenow')") == '"9"'
    down = await act(browser, page, "setValue", slider, value=2)
    assert down.outcome == "worked" and down.evidence["after"] == 2


async def test_set_value_beyond_a_slider_limit_is_not_worked(
    browser: CdpBackend, page: RootInfo
) -> None:
    slider = find(await look(browser, page), "slider", "Volume")
    result = await act(browser, page, "setValue", slider, value=50)
    assert result.outcome == "unknown" and result.evidence["after"] == 20


async def test_expand_and_collapse_an_aria_disclosure(browser: CdpBackend, page: RootInfo) -> None:
    more = find(await look(browser, page), "button", "More")
    assert "expand" in more.caps and "collapsed" in more.states
    opened = await act(browser, page, "expand", more)
    assert opened.outcome == "worked" and opened.evidence["after"] == "true"
    snap = await look(browser, page)
    assert "expanded" in find(snap, "button", "More").states
    assert find(snap, "StaticText", "Hidden details")
    again = await act(browser, page, "expand", more)
    assert again.outcome == "worked" and again.evidence["already"] is True
    closed = await act(browser, page, "collapse", more)
    assert closed.outcome == "worked" and closed.evidence["after"] == "false"


async def test_expand_a_details_summary(browser: CdpBackend, page: RootInfo) -> None:
    summary = next(
        n
        for n in walk((await look(browser, page)).tree)
        if "expand" in n.caps and n.name == "Summary"
    )
    assert (await act(browser, page, "expand", summary)).outcome == "worked"
    assert await js(browser, page, "document.getElementById('details').open") == "true"


async def test_an_alert_is_reported_shown_and_answered_without_hanging(
    browser: CdpBackend, page: RootInfo
) -> None:
    button = find(await look(browser, page), "button", "Alert")
    started = time.monotonic()
    pressed = await act(browser, page, "press", button)
    assert pressed.outcome == "worked"
    assert pressed.evidence["dialog"] == {"type": "alert", "message": "Saved!"}
    snap = await look(browser, page)
    dialog = find(snap, "alertdialog", "Saved!")
    assert [n.name for n in dialog.children if n.raw_role == "button"] == ["OK"]
    with pytest.raises(DialogOpen, match="alert"):
        await browser.evaluate(page, "1 + 1")
    assert any("dialog: alert 'Saved!'" in line for line in browser.console(page))
    ok = find(snap, "button", "OK")
    assert (await act(browser, page, "press", ok)).outcome == "worked"
    assert await status(browser, page) == '"after alert"'
    assert time.monotonic() - started < 3.0
    assert not [n for n in walk((await look(browser, page)).tree) if n.raw_role == "alertdialog"]


async def test_confirm_answered_with_cancel_returns_false_to_the_page(
    browser: CdpBackend, page: RootInfo
) -> None:
    await act(browser, page, "press", find(await look(browser, page), "button", "Confirm"))
    snap = await look(browser, page)
    assert find(snap, "alertdialog", "Delete it?")
    result = await act(browser, page, "press", find(snap, "button", "Cancel"))
    assert result.outcome == "worked" and result.evidence["accepted"] is False
    assert await status(browser, page) == '"confirm false"'


async def test_confirm_accepted_with_enter_returns_true(
    browser: CdpBackend, page: RootInfo
) -> None:
    await act(browser, page, "press", find(await look(browser, page), "button", "Confirm"))
    assert (await act(browser, page, "keypress", keys=("Enter",))).outcome == "worked"
    assert await status(browser, page) == '"confirm true"'


async def test_prompt_takes_typed_text(browser: CdpBackend, page: RootInfo) -> None:
    await act(browser, page, "press", find(await look(browser, page), "button", "Prompt"))
    snap = await look(browser, page)
    field = find(snap, "textbox", "Your name?")
    assert field.value == "Ada"
    assert (await act(browser, page, "setText", field, text="Grace")).outcome == "worked"
    await act(browser, page, "press", find(snap, "button", "OK"))
    assert await status(browser, page) == '"prompt Grace"'


async def test_a_dialog_opened_by_a_script_fails_other_commands_fast(
    browser: CdpBackend, page: RootInfo
) -> None:
    started = time.monotonic()
    with pytest.raises(DialogOpen):
        await browser.evaluate(page, "alert('from script')")
    with pytest.raises(DialogOpen):
        await act(browser, page, "scroll", scroll=(0, 100))
    assert await browser.capture(page, max_dimension=400) is None
    assert time.monotonic() - started < 2.0
    mark = browser.change_mark(page)
    await act(browser, page, "keypress", keys=("Escape",))
    assert browser.change_mark(page) > mark
    await asyncio.sleep(0)
    assert await status(browser, page) == '"idle"'


async def test_leaving_a_page_that_asks_first_shows_the_question_and_ok_leaves(
    browser: CdpBackend, page: RootInfo
) -> None:
    asking = await browser.navigate(
        page,
        "data:text/html,<script>onbeforeunload = (e) => { e.preventDefault(); "
        "e.returnValue = ''; }</script><button>Touch</button>",
    )
    # Chromium asks only on pages the user interacted with.
    await act(browser, asking, "press", find(await look(browser, asking), "button", "Touch"))
    with pytest.raises(DialogOpen, match="beforeunload"):
        await browser.navigate(asking, "data:text/html,<title>next</title>")
    snap = await look(browser, asking)
    assert find(snap, "alertdialog", "Leave site? Changes that you made may not be saved.")
    assert (await act(browser, asking, "press", find(snap, "button", "OK"))).outcome == "worked"
    for _ in range(20):
        # The title is read while the page may still be leaving: that read is lost.
        with contextlib.suppress(PageNavigated):
            if (await browser.evaluate(asking, "document.title")).value_json == '"next"':
                break
        await asyncio.sleep(0.05)
    assert (await browser.evaluate(asking, "document.title")).value_json == '"next"'
