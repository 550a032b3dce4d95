"""The per-toolkit call table: names and versions as real applications report them."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.bus import AtspiBus, CallWithheld
from actui.backends.atspi.toolkits import RISKY, Toolkit, allowed, call_kind, insert_length


@pytest.mark.parametrize(
    ("name", "version", "family", "major", "minor"),
    [
        ("Qt", "5.15.8", "qt", 5, 15),
        ("Qt", "6.4.2", "qt", 6, 4),
        ("Qt", "6.12.0", "qt", 6, 12),
        ("GTK", "3.24.38", "gtk", 3, 24),
        ("GTK", "4.8.3", "gtk", 4, 8),
        ("Gecko", "153.8.0", "gecko", 153, 8),
        ("VCL", "7.4", "libreoffice", 7, 4),
        ("LibreOffice", "7.4.7.2", "libreoffice", 7, 4),
        ("Chromium", "156.0.8078.114", "chromium", 156, 0),
        ("Chromium", "1.0", "chromium", 1, 0),  # what Chromium 156 reports
        ("Chromium", "", "chromium", None, None),
        ("Motif", "2.3", "unknown", 2, 3),
        ("", "", "unknown", None, None),
    ],
)
def test_toolkit_names_and_versions_parse_as_applications_report_them(
    name: str, version: str, family: str, major: int | None, minor: int | None
) -> None:
    assert Toolkit.parse(name, version) == Toolkit(family, major, minor)  # type: ignore[arg-type]


def test_no_qt_is_ever_sent_get_all() -> None:
    for version in ("5.15.8", "6.4.2", "6.12.0", ""):
        assert allowed(Toolkit.parse("Qt", version)) == {"cache"}, version


def test_gtk_chromium_gecko_may_be_sent_every_kind_they_answered() -> None:
    for name, version in (("GTK", "3.24.38"), ("GTK", "4.8.3"), ("Chromium", "1.0")):
        assert allowed(Toolkit.parse(name, version)) == RISKY, name
    assert allowed(Toolkit.parse("Gecko", "153.8.0")) == RISKY


def test_toolkits_not_seen_get_the_conservative_set() -> None:
    for name, version in (("VCL", "7.4"), ("GTK", "2.24"), ("Motif", "2.3")):
        assert allowed(Toolkit.parse(name, version)) == frozenset(), name


@given(st.text(max_size=12), st.text(max_size=12))
def test_an_unknown_toolkit_gets_the_most_conservative_set(name: str, version: str) -> None:
    toolkit = Toolkit.parse(name, version)
    if toolkit.family == "unknown":
        assert allowed(toolkit) == frozenset()
    assert allowed(toolkit) <= RISKY


def test_call_kinds_are_recognised_by_interface_and_member() -> None:
    assert call_kind("org.freedesktop.DBus.Properties", "GetAll") == "get_all"
    assert call_kind("org.a11y.atspi.Cache", "GetItems") == "cache"
    assert call_kind("org.freedesktop.DBus.Properties", "Get") is None
    assert call_kind("org.a11y.atspi.Accessible", "GetState") is None


async def test_the_bus_withholds_a_risky_call_until_the_toolkit_allows_it() -> None:
    bus = AtspiBus({})
    request = bus.request(":1.5", "/root", "org.freedesktop.DBus.Properties", "GetAll", "s", ("x",))
    with pytest.raises(CallWithheld):
        await request  # not identified: conservative, and nothing sent (there is no connection)
    bus.identify(":1.5", Toolkit.parse("Qt", "5.15.8"))
    assert not bus.allows(":1.5", "get_all")
    bus.identify(":1.6", Toolkit.parse("GTK", "3.24.38"))
    assert bus.allows(":1.6", "get_all") and bus.allows(":1.6", "cache")
    # an allowed call goes to the connection: here there is none, so it fails as unsendable
    sent = bus.request(":1.6", "/root", "org.freedesktop.DBus.Properties", "GetAll", "s", ("x",))
    with pytest.raises(Exception) as raised:
        await asyncio.wait_for(sent, 1)
    assert not isinstance(raised.value, CallWithheld)


def test_a_roots_toolkit_label_parses_like_its_name_and_version() -> None:
    assert Toolkit.from_label("GTK 3.24.38") == Toolkit.parse("GTK", "3.24.38")
    assert Toolkit.from_label("Qt 5.15.8") == Toolkit.parse("Qt", "5.15.8")
    assert Toolkit.from_label("Chromium") == Toolkit.parse("Chromium", "")
    assert Toolkit.from_label("").family == "unknown"


def test_insert_text_lengths_are_in_the_toolkits_own_unit() -> None:
    text = "Grüße ✓ 😀"
    assert insert_length("Qt 5.15.8", text) == 10  # UTF-16 units: the emoji is two
    assert insert_length("Qt 6.12.0", text) == 10
    assert insert_length("GTK 3.24.38", text) == len(text.encode())
    assert insert_length("", text) == len(text.encode())
