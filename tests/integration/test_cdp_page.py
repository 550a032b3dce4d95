"""CdpBackend on real headless Chromium: observing, acting and reading back a local form page.

One browser serves the module; every test navigates to a fresh copy of the page.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from actui.backends.base import ActionKind, ActionRequest, ActionResult, RawNode, RootInfo, Snapshot
from actui.backends.cdp import CdpBackend
from actui.errors import PageNavigated, SecureTextUnreadable

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
]

WEB = Path(__file__).resolve().parents[1] / "apps" / "web"
FORM_URL = (WEB / "form.html").as_uri()
SECRET = "hunter2-secret"


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: CdpBackend) -> RootInfo:
    roots = await browser.list_roots()
    return await browser.navigate(roots[0], FORM_URL)


def walk(node: RawNode) -> Iterator[RawNode]:
    yield node
    for child in node.children:
        yield from walk(child)


def find(snapshot: Snapshot, role: str, name: str) -> RawNode:
    for node in walk(snapshot.tree):
        if node.raw_role == role and node.name == name:
            return node
    raise AssertionError(f"no {role} {name!r} in the snapshot")


async def look(browser: CdpBackend, root: RootInfo) -> Snapshot:
    return await browser.snapshot(root, max_nodes=512, max_depth=20)


async def act(
    browser: CdpBackend,
    root: RootInfo,
    kind: ActionKind,
    target: RawNode | None = None,
    **kw: object,
) -> ActionResult:
    request = ActionRequest(
        kind=kind,
        root=root,
        policy="ax_only",
        target=target.native_id if target else None,
        **kw,  # type: ignore[arg-type]
    )
    return await browser.act(request)


async def js(browser: CdpBackend, root: RootInfo, expression: str) -> str:
    return (await browser.evaluate(root, expression)).value_json


async def test_snapshot_maps_the_form_with_states_caps_and_rects(
    browser: CdpBackend, page: RootInfo
) -> None:
    snap = await look(browser, page)
    assert snap.tree.raw_role == "RootWebArea" and snap.root.title == "actui form"
    name = find(snap, "textbox", "Name")
    assert name.value == "Ada" and {"setText", "typeText", "focus"} <= name.caps
    assert {"required", "editable", "enabled"} <= name.states
    assert name.rect is not None and name.rect.w > 100 and name.rect.h > 10
    assert "toggle" in find(snap, "checkbox", "I agree").caps
    assert "checked" in find(snap, "radio", "Free").states
    assert "select" in find(snap, "combobox", "Colour").caps
    disabled = find(snap, "button", "Disabled")
    assert "enabled" not in disabled.states and "press" not in disabled.caps
    icon = [n for n in walk(snap.tree) if n.raw_role == "button" and not n.name]
    assert icon and "press" in icon[0].caps  # unnamed controls stay addressable
    assert not [n for n in walk(snap.tree) if n.raw_role in ("InlineTextBox", "none")]


async def test_native_ids_are_stable_across_snapshots(browser: CdpBackend, page: RootInfo) -> None:
    first = {(n.raw_role, n.name): n.native_id for n in walk((await look(browser, page)).tree)}
    second = {(n.raw_role, n.name): n.native_id for n in walk((await look(browser, page)).tree)}
    assert first[("button", "Submit")] == second[("button", "Submit")]
    assert first == second


async def test_password_value_never_appears_in_a_snapshot(
    browser: CdpBackend, page: RootInfo
) -> None:
    snap = await look(browser, page)
    password = find(snap, "textbox", "Password")
    assert password.secure and password.value is None and not password.children
    assert SECRET not in repr(snap) and "•" not in repr(snap)
    with pytest.raises(SecureTextUnreadable):
        await browser.read_text(page, password.native_id, 0, 100)


async def test_typing_a_password_is_verified_without_echoing_it(
    browser: CdpBackend, page: RootInfo
) -> None:
    password = find(await look(browser, page), "textbox", "Password")
    result = await act(browser, page, "setText", password, text="n3w-passw0rd")
    assert result.outcome == "worked"
    assert "n3w-passw0rd" not in repr(result) and SECRET not in repr(result)
    assert await js(browser, page, "document.getElementById('pw').value") == '"n3w-passw0rd"'


async def test_iframe_content_is_grafted_under_its_frame(
    browser: CdpBackend, page: RootInfo
) -> None:
    snap = await look(browser, page)
    frame = find(snap, "Iframe", "Inner frame")
    inner = [n for n in walk(frame) if n.raw_role == "button" and n.name == "Inner button"]
    assert inner, "the iframe's button is missing"
    assert frame.rect and inner[0].rect and inner[0].rect.y > frame.rect.y
    result = await act(browser, page, "press", inner[0])
    assert result.outcome == "worked"
    snap = await look(browser, page)
    assert [n for n in walk(snap.tree) if n.name == "Inner pressed"]


async def test_set_text_replaces_the_value_and_reads_it_back(
    browser: CdpBackend, page: RootInfo
) -> None:
    name = find(await look(browser, page), "textbox", "Name")
    result = await act(browser, page, "setText", name, text="Grace Hopper")
    assert result.outcome == "worked" and result.evidence["value"] == "Grace Hopper"
    assert result.delivery == "pid" and result.mechanism == "cdp"
    assert find(await look(browser, page), "textbox", "Name").value == "Grace Hopper"


async def test_set_text_to_empty_clears_the_field(browser: CdpBackend, page: RootInfo) -> None:
    name = find(await look(browser, page), "textbox", "Name")
    assert (await act(browser, page, "setText", name, text="")).outcome == "worked"
    assert await js(browser, page, "document.getElementById('name').value") == '""'


async def test_type_text_appends_at_the_end(browser: CdpBackend, page: RootInfo) -> None:
    name = find(await look(browser, page), "textbox", "Name")
    result = await act(browser, page, "typeText", name, text=" Lovelace")
    assert result.outcome == "worked"
    assert await js(browser, page, "document.getElementById('name').value") == '"Ada Lovelace"'


async def test_type_text_without_target_goes_to_the_focused_field(
    browser: CdpBackend, page: RootInfo
) -> None:
    notes = find(await look(browser, page), "textbox", "Notes")
    assert (await act(browser, page, "focus", notes)).outcome == "worked"
    result = await act(browser, page, "typeText", text="hello")
    assert result.outcome == "worked"
    assert await js(browser, page, "document.getElementById('notes').value") == '"hello"'


async def test_type_text_with_nothing_focused_is_didnt(browser: CdpBackend, page: RootInfo) -> None:
    result = await act(browser, page, "typeText", text="lost")
    assert result.outcome == "didnt"


async def test_enter_submits_the_form(browser: CdpBackend, page: RootInfo) -> None:
    name = find(await look(browser, page), "textbox", "Name")
    result = await act(browser, page, "keypress", name, keys=("Enter",))
    assert result.outcome == "worked"
    assert (
        await js(browser, page, "document.getElementById('status').textContent")
        == '"submitted Ada"'
    )


async def test_keypress_chord_selects_all_and_replaces(browser: CdpBackend, page: RootInfo) -> None:
    name = find(await look(browser, page), "textbox", "Name")
    await act(browser, page, "keypress", name, keys=("ctrl", "a"))
    await act(browser, page, "keypress", keys=("shift", "z"))
    assert await js(browser, page, "document.getElementById('name').value") == '"Z"'


async def test_toggle_flips_the_checkbox_and_reports_it(
    browser: CdpBackend, page: RootInfo
) -> None:
    agree = find(await look(browser, page), "checkbox", "I agree")
    result = await act(browser, page, "toggle", agree)
    assert result.outcome == "worked" and result.evidence["after"] == "true"
    assert "checked" in find(await look(browser, page), "checkbox", "I agree").states


async def test_toggling_a_checked_radio_is_didnt(browser: CdpBackend, page: RootInfo) -> None:
    free = find(await look(browser, page), "radio", "Free")
    assert (await act(browser, page, "toggle", free)).outcome == "didnt"
    pro = find(await look(browser, page), "radio", "Pro")
    assert (await act(browser, page, "toggle", pro)).outcome == "worked"


async def test_select_picks_an_option_by_label_and_fires_change(
    browser: CdpBackend, page: RootInfo
) -> None:
    colour = find(await look(browser, page), "combobox", "Colour")
    result = await act(browser, page, "select", colour, text="Blue")
    assert result.outcome == "worked" and result.evidence["value"] == "blue"
    assert (
        await js(browser, page, "document.getElementById('status').textContent") == '"colour blue"'
    )
    assert find(await look(browser, page), "combobox", "Colour").value == "Blue"


async def test_selecting_a_missing_option_is_didnt(browser: CdpBackend, page: RootInfo) -> None:
    colour = find(await look(browser, page), "combobox", "Colour")
    assert (await act(browser, page, "select", colour, text="Purple")).outcome == "didnt"


async def test_press_that_changes_the_page_later_wakes_wait_for_change(
    browser: CdpBackend, page: RootInfo
) -> None:
    snap = await look(browser, page)
    await act(browser, page, "press", find(snap, "button", "Show later"))
    mark = browser.change_mark(page)
    started = time.monotonic()
    seen = ""
    while "late shown" not in seen and time.monotonic() - started < 3:
        mark = await browser.wait_for_change(page, mark, 3 - (time.monotonic() - started))
        seen = await js(browser, page, "document.getElementById('status').textContent")
    assert seen == '"late shown"'
    assert browser.waits_are_event_driven(page)


async def test_wait_for_change_times_out_quietly_on_a_still_page(
    browser: CdpBackend, page: RootInfo
) -> None:
    await asyncio.sleep(0.2)
    mark = browser.change_mark(page)
    started = time.monotonic()
    assert await browser.wait_for_change(page, mark, 0.3) == mark
    assert 0.25 < time.monotonic() - started < 1.0


async def test_press_without_visible_effect_is_unknown_not_worked(
    browser: CdpBackend, page: RootInfo
) -> None:
    heading = find(await look(browser, page), "heading", "Sign up")
    assert (await act(browser, page, "press", heading)).outcome == "unknown"


async def test_click_at_a_point_hits_the_element_there(browser: CdpBackend, page: RootInfo) -> None:
    snap = await look(browser, page)
    icon = next(n for n in walk(snap.tree) if n.raw_role == "button" and not n.name)
    assert icon.rect is not None
    result = await act(browser, page, "click", point=icon.rect.center)
    assert result.outcome == "worked"
    assert (
        await js(browser, page, "document.getElementById('status').textContent") == '"icon pressed"'
    )


async def test_scroll_moves_the_window_and_rects_follow(
    browser: CdpBackend, page: RootInfo
) -> None:
    before = find(await look(browser, page), "button", "Submit")
    result = await act(browser, page, "scroll", scroll=(0, 300))
    assert result.outcome == "worked" and result.evidence["after"] == [0, 300, 0, 300]
    after = find(await look(browser, page), "button", "Submit")
    assert before.rect and after.rect and after.rect.y == before.rect.y - 300


async def test_scroll_past_the_top_is_didnt(browser: CdpBackend, page: RootInfo) -> None:
    assert (await act(browser, page, "scroll", scroll=(0, -200))).outcome == "didnt"


async def test_scroll_with_a_target_brings_it_into_view(
    browser: CdpBackend, page: RootInfo
) -> None:
    bottom = find(await look(browser, page), "StaticText", "Bottom of the page")
    result = await act(browser, page, "scroll", bottom, scroll=(0, 20))
    assert result.outcome == "worked"
    assert "showing" in find(await look(browser, page), "StaticText", "Bottom of the page").states


async def test_read_text_of_the_page_and_of_an_element(browser: CdpBackend, page: RootInfo) -> None:
    whole = await browser.read_text(page, page.native_id, 0, 10_000)
    assert "Sign up" in whole.text and "Bottom of the page" in whole.text
    assert SECRET not in whole.text
    status = find(await look(browser, page), "status", "")
    part = await browser.read_text(page, status.native_id, 1, 2)
    assert (part.text, part.offset, part.total_chars) == ("dl", 1, 4)


async def test_evaluate_returns_json_and_reports_exceptions(
    browser: CdpBackend, page: RootInfo
) -> None:
    ok = await browser.evaluate(page, "Promise.resolve({a: [1, 'two']})")
    assert ok.value_json == '{"a": [1, "two"]}' and ok.exception is None
    bad = await browser.evaluate(page, "console.log('before'); throw new Error('kaboom')")
    assert bad.exception is not None and "kaboom" in bad.exception
    assert any("before" in line for line in bad.console)


async def test_evaluating_while_the_page_navigates_says_the_value_was_lost(
    browser: CdpBackend, page: RootInfo
) -> None:
    await js(browser, page, "window.before = 1")
    started = time.monotonic()
    with pytest.raises(PageNavigated) as lost:
        await browser.evaluate(
            page, "setTimeout(() => location.reload(), 50); new Promise(() => {})"
        )
    assert "may have run in part" in lost.value.message
    assert time.monotonic() - started < 2.0  # not the evaluation's 5 s timeout
    for _ in range(40):
        if await js(browser, page, "document.readyState") == '"complete"':
            break
        await asyncio.sleep(0.05)
    assert await js(browser, page, "[document.title, typeof window.before]") == (
        '["actui form", "undefined"]'
    )


async def test_console_drains_page_messages(browser: CdpBackend, page: RootInfo) -> None:
    browser.console(page)
    await browser.evaluate(page, "setTimeout(() => console.warn('later'), 100); 1")
    await asyncio.sleep(0.4)
    assert any("warning: later" in line for line in browser.console(page))
    assert browser.console(page) == ()


async def test_navigate_advances_the_change_mark_and_refreshes_the_root(
    browser: CdpBackend, page: RootInfo
) -> None:
    mark = browser.change_mark(page)
    fresh = await browser.navigate(page, "data:text/html,<title>second</title><p>two</p>")
    assert fresh.title == "second" and fresh.url.startswith("data:")
    assert browser.change_mark(page) > mark
    assert fresh.native_id == page.native_id
