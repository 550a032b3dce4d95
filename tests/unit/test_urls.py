"""One URL rule, run once by the contract on every URL parameter: every refusal names it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.errors import InvalidParams
from actui.tools.browser import LaunchBrowser, NavigateBrowser
from actui.tools.catalog import validate_call as validate


def navigate_to(url: object) -> str:
    params = validate("navigate_browser", {"stateId": "s1", "url": url})
    assert isinstance(params, NavigateBrowser)
    return params.url


@pytest.mark.parametrize(
    "url", ["https://example.org/", " http://[::1]:8080/x ", "file:///tmp/a.html", "about:blank"]
)
def test_web_file_data_and_blank_pages_pass(url: str) -> None:
    assert navigate_to(url) == url.strip()
    launch = validate("launch_browser", {"url": url})
    assert isinstance(launch, LaunchBrowser) and launch.url == url.strip()


@pytest.mark.parametrize(
    "url",
    ["http://[::1", "http://host:99999/", "http://[zz]/", "ftp://x", "javascript:1", "http:x", ""],
)
@pytest.mark.parametrize("tool", ["navigate_browser", "launch_browser"])
def test_unparsable_or_foreign_urls_are_refused_naming_the_field(tool: str, url: str) -> None:
    arguments = {"stateId": "s1", "url": url} if tool == "navigate_browser" else {"url": url}
    with pytest.raises(InvalidParams) as caught:
        validate(tool, arguments)
    assert caught.value.field == "url"
    assert caught.value.message.startswith("url: ")
    assert "https://example.org/" in caught.value.message  # the hint says what would do


def test_an_overlong_url_is_refused_before_it_is_parsed() -> None:
    with pytest.raises(InvalidParams) as caught:
        navigate_to("https://example.org/" + "x" * 9000)
    assert caught.value.field == "url"
    assert "8192" in caught.value.message


@given(st.text(max_size=60).map(lambda tail: "http://" + tail) | st.text(max_size=60))
def test_any_text_is_a_url_or_an_invalid_params_error(url: str) -> None:
    try:
        navigate_to(url)
    except InvalidParams as error:
        assert error.field == "url"
        assert len(error.message.splitlines()) == 1
