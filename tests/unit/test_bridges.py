"""Which AT-SPI bridges a private desktop's apps are given, and what ``actui doctor`` says
is missing in a session (``backends/linux/bridges.py``), from the environment and the
files present alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.linux.bridges import (
    GTK2_BRIDGE,
    JAVA_SWITCH,
    JAVA_WRAPPER_JAR,
    bridge_env,
    unreadable_toolkits,
)


def _present(*paths: Path) -> Callable[[Path], bool]:
    return lambda path: path in paths


def test_a_sandbox_loads_gtk2s_bridge_and_javas_wrapper_when_it_is_installed() -> None:
    env = bridge_env({}, _present(JAVA_WRAPPER_JAR))
    assert env["GTK_MODULES"] == "gail:atk-bridge"
    assert env["JAVA_TOOL_OPTIONS"] == " ".join(JAVA_SWITCH)


def test_java_is_not_switched_on_without_the_wrapper_awt_would_fail_to_start() -> None:
    env = bridge_env({"JAVA_TOOL_OPTIONS": "-Xmx1g"}, _present())
    assert "JAVA_TOOL_OPTIONS" not in env


@given(
    modules=st.lists(st.sampled_from(["gail", "atk-bridge", "canberra-gtk-module"]), max_size=4),
    options=st.lists(st.sampled_from(["-Xmx1g", "-Dfoo=1", JAVA_SWITCH[0]]), unique=True),
)
def test_what_is_already_set_is_kept_and_nothing_is_named_twice(
    modules: list[str], options: list[str]
) -> None:
    given_env = {"GTK_MODULES": ":".join(modules), "JAVA_TOOL_OPTIONS": " ".join(options)}
    env = bridge_env(given_env, _present(JAVA_WRAPPER_JAR))
    names = env["GTK_MODULES"].split(":")
    assert names[: len(modules)] == modules
    assert set(names) == set(modules) | {"gail", "atk-bridge"}
    assert all(names.count(m) == max(1, modules.count(m)) for m in ("gail", "atk-bridge"))
    java = env.get("JAVA_TOOL_OPTIONS", given_env["JAVA_TOOL_OPTIONS"]).split()
    assert java.count(JAVA_SWITCH[0]) == 1
    assert java[: len(options)] == options


def test_doctor_says_why_each_toolkit_cannot_be_read_and_how_to_fix_it() -> None:
    everything = _present(GTK2_BRIDGE, JAVA_WRAPPER_JAR)
    gaps = unreadable_toolkits({}, everything)
    assert len(gaps) == 2
    assert "GTK 2" in gaps[0] and "GTK_MODULES=gail:atk-bridge" in gaps[0]
    assert "Java" in gaps[1] and "JAVA_TOOL_OPTIONS" in gaps[1]
    set_up = {"GTK_MODULES": "gail:atk-bridge", "JAVA_TOOL_OPTIONS": " ".join(JAVA_SWITCH)}
    assert unreadable_toolkits(set_up, everything) == []
    missing = unreadable_toolkits(set_up, _present())
    assert ["apt-get install" in gap for gap in missing] == [True, True]
