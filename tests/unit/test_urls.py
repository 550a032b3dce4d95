"""One URL rule for the browser tools and the backend: every refusal names the field."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.cdp.urls import check_url
from actui.errors import InvalidParams


@pytest.mark.parametrize(
    "url", ["https://example.org/", " http://[::1]:8080/x ", "file:///tmp/a.html", "about:blank"]
)
def test_web_file_data_and_blank_pages_pass(url: str) -> None:
    assert check_url(url) == url.strip()


@pytest.mark.parametrize(
    "url",
    ["http://[::1", "http://host:99999/", "http://[zz]/", "ftp://x", "javascript:1", "http:x", ""],
)
def test_unparsable_or_foreign_urls_are_refused_naming_the_field(url: str) -> None:
    with pytest.raises(InvalidParams) as caught:
        check_url(url, "url")
    assert caught.value.field == "url"
    assert caught.value.message.startswith("url: ")


@given(st.text(max_size=60).map(lambda tail: "http://" + tail) | st.text(max_size=60))
def test_any_text_is_a_url_or_an_invalid_params_error(url: str) -> None:
    try:
        check_url(url)
    except InvalidParams as error:
        assert len(error.message.splitlines()) == 1
