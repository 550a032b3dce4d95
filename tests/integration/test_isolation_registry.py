"""A restarted accessibility registry is re-attached: its apps stay listed and usable.

``at-spi2-registryd`` is killed mid-session in this module's private desktop;
the accessibility bus starts a new one on the next call to its name. A GTK 3
app that was running goes on being listed (with its tree, not as a bare
window), a state observed before still takes a write, and an app started
after the restart sends the events waits need (actui registered them with the
new registry) to a change made by another client.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from computer_helpers import (
    assert_alive,
    desktop_pids,
    entry_dialog,
    executed,
    kill_and_wait,
    matches_of,
    paired_root,
    state_id_of,
    windows_of,
)
from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus

from actui.backends.linux.sandbox import Sandbox
from actui.tools.dispatch import ToolBox

pytestmark = pytest.mark.asyncio(loop_scope="module")

REGISTRY = "org.a11y.atspi.Registry"
ACCESSIBLE = "org.a11y.atspi.Accessible"
APP_ROOT = "/org/a11y/atspi/accessible/root"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def computer(module_sandbox: Sandbox) -> AsyncIterator[ToolBox]:
    computer = ToolBox(env=module_sandbox.env)
    yield computer
    await computer.close()


async def _observed_field(computer: ToolBox, root: str) -> tuple[str, str]:
    seen = await computer.call("observe_ui", {"root": root})
    assert not seen.is_error, seen.text
    state = state_id_of(seen)
    found = await computer.call("search_ui", {"stateId": state, "role": "text"})
    return state, matches_of(found)[0].ref


def _registry_pids(sandbox: Sandbox) -> list[int]:
    return desktop_pids(sandbox, b"registryd")


async def test_a_restarted_registry_is_reattached_and_its_apps_relisted(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    before = await entry_dialog(module_sandbox, "Before restart")
    qt = await module_sandbox.launch(["featherpad"])  # Qt 5: does not register again
    await module_sandbox.wait_for_app(qt.pid)
    await paired_root(computer, pid=qt.pid)
    root = (await paired_root(computer, pid=before.pid)).ref
    state, field = await _observed_field(computer, root)
    (registry,) = _registry_pids(module_sandbox)
    await kill_and_wait(registry)

    # at once: the new registry may not have heard from the app yet, actui has
    listed = await computer.call("find_roots", {"pid": before.pid})
    assert not listed.is_error, listed.text
    windows = windows_of(listed)
    assert [(w.kind, w.root.accessibility) for w in windows] == [("dialog", "full")], listed.text
    assert "gone" not in listed.text, listed.text
    acted = await computer.call(
        "act_ui",
        {
            "stateId": state,
            "actions": [{"action": "setText", "ref": field, "text": "kept"}],
            "expect": {"ref": field, "value": "kept"},
        },
    )
    assert not acted.is_error and executed(acted).outcome == "worked", acted.text
    (step,) = executed(acted).steps
    assert (step.delivery, step.policy) == ("ax", "background"), step
    assert _registry_pids(module_sandbox), "the bus started a registry again"

    await asyncio.sleep(1.0)  # GTK 3 has registered again by now; Qt 5 never does
    listed = await computer.call("find_roots", {"pid": qt.pid})
    assert [w.root.accessibility for w in windows_of(listed)] == ["full"], listed.text
    assert "not (yet) registered" in listed.text, listed.text
    qt_seen = await computer.call("observe_ui", {"root": windows_of(listed)[0].ref})
    assert not qt_seen.is_error and 'menuitem "File"' in qt_seen.text, qt_seen.text

    after = await entry_dialog(module_sandbox, "After restart")
    state_after, _ = await _observed_field(
        computer, (await paired_root(computer, pid=after.pid)).ref
    )
    waiting = asyncio.ensure_future(
        computer.call(
            "wait_for", {"stateId": state_after, "text": "from outside", "timeoutMs": 10000}
        )
    )
    await asyncio.sleep(0.5)
    changed = time.perf_counter()
    await _set_text_from_outside(module_sandbox, after.pid, "from outside")
    waited = await asyncio.wait_for(waiting, 15)
    took = time.perf_counter() - changed
    print(f"the wait woke {1000 * took:.0f} ms after the change")
    assert not waited.is_error and "appeared" in waited.text, waited.text
    assert took < 2.0, f"woken {took:.1f} s after the change: no event reached the wait"

    observed = await computer.call("observe_ui", {"root": root})
    found = await computer.call("search_ui", {"stateId": state_id_of(observed), "text": "kept"})
    assert matches_of(found), found.text
    for app in (before, qt, after):
        assert_alive(app.pid)


async def _set_text_from_outside(sandbox: Sandbox, pid: int, text: str) -> None:
    """Set the app's text field over a connection of its own that registers no events,
    so only the events actui itself registered can announce the change."""
    bus = await MessageBus(bus_address=sandbox.env["AT_SPI_BUS_ADDRESS"]).connect()
    try:

        async def call(dest: str, path: str, iface: str, member: str, *body: str) -> list[object]:
            sig = "s" * len(body)
            reply = await bus.call(
                Message(
                    destination=dest,
                    path=path,
                    interface=iface,
                    member=member,
                    signature=sig,
                    body=list(body),
                )
            )
            assert reply is not None and reply.message_type != MessageType.ERROR, reply
            return list(reply.body)

        (apps,) = await call(REGISTRY, APP_ROOT, ACCESSIBLE, "GetChildren")
        for name, _ in apps:  # type: ignore[attr-defined]
            (owner,) = await call(
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus",
                "GetConnectionUnixProcessID",
                name,
            )
            if owner != pid:
                continue
            pending = [APP_ROOT]
            while pending:
                path = pending.pop()
                (role,) = await call(name, path, ACCESSIBLE, "GetRoleName")
                if role == "text":
                    await call(name, path, "org.a11y.atspi.EditableText", "SetTextContents", text)
                    return
                (children,) = await call(name, path, ACCESSIBLE, "GetChildren")
                pending.extend(p for _, p in children)  # type: ignore[attr-defined]
        raise AssertionError(f"no text field of pid {pid} on the accessibility bus")
    finally:
        bus.disconnect()


async def test_a_registry_killed_during_a_listing_leaves_the_known_apps_listed(
    module_sandbox: Sandbox, computer: ToolBox
) -> None:
    app = await entry_dialog(module_sandbox, "Listed while it dies")
    await paired_root(computer, pid=app.pid)
    (registry,) = _registry_pids(module_sandbox)
    os.kill(registry, signal.SIGSTOP)  # the listing's call to it waits
    listing = asyncio.ensure_future(computer.call("find_roots", {"pid": app.pid}))
    await asyncio.sleep(0.5)
    await kill_and_wait(registry)  # the bus answers the waiting call: no reply will come
    listed = await asyncio.wait_for(listing, 10)
    assert not listed.is_error, listed.text
    assert [w.root.accessibility for w in windows_of(listed)] == ["full"], listed.text
    assert "registry (org.a11y.atspi.Registry) is not running" in listed.text, listed.text
    assert "gone" not in listed.text, listed.text
    again = await computer.call("find_roots", {"pid": app.pid})  # the bus starts it again
    assert [w.root.accessibility for w in windows_of(again)] == ["full"], again.text
    assert_alive(app.pid)
