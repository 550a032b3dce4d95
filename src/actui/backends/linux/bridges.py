"""Toolkit bridges to AT-SPI that an app only loads when its environment asks for them.

GTK 3 and 4, Qt and Chromium load their AT-SPI bridge themselves (Qt and Chromium once
accessibility is switched on). Two toolkits Debian ships load it only when told: GTK 2
through ``GTK_MODULES=gail:atk-bridge`` (which Debian's X session sets and a private
desktop does not), and Java's Swing/AWT through the ATK wrapper named as an assistive
technology (``libatk-wrapper-java``; ``JAVA_TOOL_OPTIONS`` reaches every JVM the app
starts). Without them such an app's window has no tree (``accessibility: none``).

The sandbox sets what :func:`bridge_env` gives; ``actui doctor`` prints what
:func:`unreadable_toolkits` finds missing in the user's own session. Both only read
the environment and the file system; they start nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

GTK2_MODULES = ("gail", "atk-bridge")
"""The GTK 2 modules that build its accessibility tree and carry it to AT-SPI."""
GTK2_BRIDGE = Path("/usr/lib/x86_64-linux-gnu/gtk-2.0/modules/libatk-bridge.so")
"""Where Debian's ``libatk-adaptor`` puts GTK 2's bridge module (amd64)."""
JAVA_WRAPPER_JAR = Path("/usr/share/java/java-atk-wrapper.jar")
"""Debian's ``libatk-wrapper-java``: the Java side of the ATK wrapper."""
JAVA_WRAPPER_CLASS = "org.GNOME.Accessibility.AtkWrapper"
JAVA_SWITCH = (
    f"-Djavax.accessibility.assistive_technologies={JAVA_WRAPPER_CLASS}",
    f"-Xbootclasspath/a:{JAVA_WRAPPER_JAR}",
)
"""JVM options that load the wrapper: AWT finds the class named as an assistive technology
through the system class loader, which sees the boot class path (``-cp`` cannot be given
in ``JAVA_TOOL_OPTIONS``)."""
JVM_OPTION_VARS = ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")
"""Variables every JVM (or the ``java`` launcher) reads options from."""


def _modules(value: str) -> list[str]:
    return [m for m in value.replace(",", ":").split(":") if m]


def bridge_env(
    env: Mapping[str, str], exists: Callable[[Path], bool] = Path.exists
) -> dict[str, str]:
    """The variables a private desktop's apps need for every installed bridge to load:
    ``env``'s ``GTK_MODULES`` and ``JAVA_TOOL_OPTIONS`` with the bridges added.

    Java's switch is added only when the wrapper is installed: naming an assistive
    technology AWT cannot load makes every Swing app fail to start (``AWTError``).
    """
    added: dict[str, str] = {}
    modules = _modules(env.get("GTK_MODULES", ""))
    added["GTK_MODULES"] = ":".join([*modules, *(m for m in GTK2_MODULES if m not in modules)])
    options = env.get("JAVA_TOOL_OPTIONS", "").split()
    if exists(JAVA_WRAPPER_JAR) and JAVA_SWITCH[0] not in options:
        added["JAVA_TOOL_OPTIONS"] = " ".join([*options, *JAVA_SWITCH])
    return added


def unreadable_toolkits(
    env: Mapping[str, str],
    exists: Callable[[Path], bool] = Path.exists,
) -> list[str]:
    """Why apps of a toolkit would have no tree in a session with ``env``: one sentence
    per toolkit, saying what is missing and how to fix it (empty when all can be read)."""
    gaps: list[str] = []
    modules = _modules(env.get("GTK_MODULES", ""))
    if not exists(GTK2_BRIDGE):
        gaps.append(
            "GTK 2 apps (gmrun, ...) cannot be read: their AT-SPI bridge is not installed "
            "(apt-get install libatk-adaptor libgail-common)"
        )
    elif "atk-bridge" not in modules:
        gaps.append(
            "GTK 2 apps (gmrun, ...) cannot be read: GTK_MODULES does not name atk-bridge; "
            "start them with GTK_MODULES=gail:atk-bridge (actui sandbox sets it)"
        )
    if not exists(JAVA_WRAPPER_JAR):
        gaps.append(
            "Java Swing/AWT apps cannot be read: the ATK wrapper is not installed "
            "(apt-get install libatk-wrapper-java-jni)"
        )
    elif not any(JAVA_WRAPPER_CLASS in env.get(k, "") for k in JVM_OPTION_VARS):
        gaps.append(
            f"Java Swing/AWT apps cannot be read: no JVM option names {JAVA_WRAPPER_CLASS}; "
            f"set JAVA_TOOL_OPTIONS={' '.join(JAVA_SWITCH)!r} (actui sandbox sets it)"
        )
    return gaps
