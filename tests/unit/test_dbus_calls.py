"""One D-Bus method call with a deadline, against a real private dbus-daemon.

A peer on the same private bus answers, refuses, or never answers, so each of
the three outcomes of :func:`actui.backends.dbus_calls.call` (and of its two
callers, the sandbox's start-up calls and gnome-shell's connection) comes from
the daemon and a real connection, not from a stand-in.
"""

from __future__ import annotations

import select
import subprocess
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from dbus_fast import Message, MessageFlag, MessageType
from dbus_fast.aio import MessageBus

from actui.backends import dbus_calls
from actui.backends.linux import sandbox
from actui.backends.linux.sandbox import SandboxError
from actui.backends.wayland import gnome
from actui.errors import BackendUnavailable, CallTimeout, DisplayGone

PEER = "org.example.Peer"
PATH = "/org/example/Peer"
INTERFACE = "org.example.Peer"
_DBUS = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")


class Raised(Exception):
    """What the test's failure callbacks return, carrying the sentence they were given."""

    def __init__(self, kind: str, sentence: str) -> None:
        super().__init__(f"{kind}: {sentence}")
        self.kind = kind
        self.sentence = sentence


def silent(sentence: str) -> Exception:
    return Raised("silent", sentence)


def refused(sentence: str) -> Exception:
    return Raised("refused", sentence)


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private session-policy bus daemon for this module; its address."""
    where = tmp_path_factory.mktemp("bus")
    daemon = subprocess.Popen(
        [
            "dbus-daemon",
            "--session",
            "--nofork",
            "--nosyslog",
            "--print-address=1",
            f"--address=unix:dir={where}",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert daemon.stdout is not None
        ready, _, _ = select.select([daemon.stdout], [], [], 10)
        assert ready, "dbus-daemon printed no address within 10 s"
        printed = daemon.stdout.readline().decode().strip()
        assert printed.startswith("unix:"), printed
        yield printed
    finally:
        daemon.terminate()
        daemon.wait(timeout=5)
        if daemon.stdout is not None:
            daemon.stdout.close()


def answering(peer: MessageBus, owned: str) -> None:
    """Make ``peer`` answer ``Echo`` (its argument back), ``Refuse`` (an error reply),
    ``Vanish`` (gives up ``owned``, then an error reply) and swallow ``Swallow`` (no reply)."""

    def on_message(message: Message) -> Message | bool | None:
        if message.message_type != MessageType.METHOD_CALL or message.interface != INTERFACE:
            return None
        if message.member == "Echo":
            return Message.new_method_return(message, "s", [message.body[0]])
        if message.member == "Vanish":
            peer.send(Message(*_DBUS, "ReleaseName", signature="s", body=[owned]))
        if message.member in ("Refuse", "Vanish"):
            return Message.new_error(message, "org.example.Error.Nope", "not today")
        return message.member == "Swallow"

    peer.add_message_handler(on_message)


@pytest.fixture
async def peer(address: str) -> AsyncIterator[MessageBus]:
    bus = await MessageBus(bus_address=address).connect()
    answering(bus, PEER)
    await bus.request_name(PEER)
    yield bus
    bus.disconnect()


@pytest.fixture
async def caller(address: str) -> AsyncIterator[MessageBus]:
    bus = await MessageBus(bus_address=address).connect()
    yield bus
    bus.disconnect()


def ask(member: str, body: list[object] | None = None) -> Message:
    return Message(PEER, PATH, INTERFACE, member, signature="s" if body else "", body=body or [])


async def test_a_reply_comes_back_whole(peer: MessageBus, caller: MessageBus) -> None:
    reply = await dbus_calls.call(
        caller, ask("Echo", ["Ωmega 42"]), 2.0, silent=silent, refused=refused
    )
    assert reply.message_type == MessageType.METHOD_RETURN
    assert reply.body == ["Ωmega 42"]
    assert reply.sender == peer.unique_name


async def test_an_error_reply_becomes_the_callers_refusal(
    peer: MessageBus, caller: MessageBus
) -> None:
    with pytest.raises(Raised) as raised:
        await dbus_calls.call(caller, ask("Refuse"), 2.0, silent=silent, refused=refused)
    assert raised.value.kind == "refused"
    assert raised.value.sentence == "org.example.Error.Nope: ['not today']"


async def test_a_name_nobody_owns_is_refused_by_the_daemon(caller: MessageBus) -> None:
    message = Message("org.example.Nobody", PATH, INTERFACE, "Echo", signature="s", body=["x"])
    with pytest.raises(Raised) as raised:
        await dbus_calls.call(caller, message, 2.0, silent=silent, refused=refused)
    assert raised.value.kind == "refused"
    assert raised.value.sentence.startswith("org.freedesktop.DBus.Error.ServiceUnknown: ")
    assert "org.example.Nobody" in raised.value.sentence


async def test_silence_ends_at_the_deadline_as_the_callers_error(
    peer: MessageBus, caller: MessageBus
) -> None:
    started = time.monotonic()
    with pytest.raises(Raised) as raised:
        await dbus_calls.call(caller, ask("Swallow"), 0.3, silent=silent, refused=refused)
    waited = time.monotonic() - started
    assert raised.value.kind == "silent"
    assert raised.value.sentence == f"{PEER} did not answer Swallow within 0.3 s"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    assert 0.3 <= waited < 2.0
    # the connection is still good for the next call
    reply = await dbus_calls.call(
        caller, ask("Echo", ["again"]), 2.0, silent=silent, refused=refused
    )
    assert reply.body == ["again"]


async def test_a_call_sent_expecting_no_reply_is_refused_as_no_reply(
    peer: MessageBus, caller: MessageBus
) -> None:
    message = ask("Echo", ["x"])
    message.flags = MessageFlag.NO_REPLY_EXPECTED
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(Raised) as raised,
    ):
        await dbus_calls.call(caller, message, 2.0, silent=silent, refused=refused)
    assert (raised.value.kind, raised.value.sentence) == ("refused", "no reply")


# -- the two callers keep their own errors --------------------------------------------------


async def test_the_sandbox_names_the_destination_and_member_in_its_errors(
    peer: MessageBus, caller: MessageBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await sandbox._call(caller, PEER, PATH, INTERFACE, "Echo", "s", ["hi"]) == ["hi"]
    with pytest.raises(SandboxError) as refusal:
        await sandbox._call(caller, PEER, PATH, INTERFACE, "Refuse")
    assert str(refusal.value) == f"{PEER} Refuse failed: org.example.Error.Nope: ['not today']"
    monkeypatch.setattr(sandbox, "CALL_TIMEOUT_S", 0.2)
    with pytest.raises(SandboxError) as silence:
        await sandbox._call(caller, PEER, PATH, INTERFACE, "Swallow")
    assert str(silence.value) == f"{PEER} did not answer Swallow within 0.2 s"


@pytest.fixture
async def shell(address: str) -> AsyncIterator[MessageBus]:
    """A peer that owns gnome-shell's name, so a ``ShellBus`` connects to this bus."""
    bus = await MessageBus(bus_address=address).connect()
    answering(bus, gnome.SHELL)
    await bus.request_name(gnome.SHELL)
    yield bus
    bus.disconnect()


async def test_gnome_shells_connection_keeps_its_errors(
    shell: MessageBus, address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gnome, "CALL_TIMEOUT_S", 0.2)
    bus = gnome.ShellBus(address, "wayland-test")
    try:
        reply = await bus.call(gnome.SHELL, PATH, INTERFACE, "Echo", "s", ["hi"])
        assert reply.body == ["hi"]
        with pytest.raises(BackendUnavailable) as refusal:
            await bus.call(gnome.SHELL, PATH, INTERFACE, "Refuse")
        assert type(refusal.value) is BackendUnavailable
        assert refusal.value.message == (
            "gnome-shell's Refuse failed: org.example.Error.Nope: ['not today']"
        )
        with pytest.raises(CallTimeout) as silence:
            await bus.call(gnome.SHELL, PATH, INTERFACE, "Swallow")
        assert silence.value.message == f"{gnome.SHELL} did not answer Swallow within 0.2 s"
        assert bus.gone() is None
        # the shell gives up its name, then refuses: its end is the news, not the refusal
        with pytest.raises(DisplayGone) as gone:
            await bus.call(gnome.SHELL, PATH, INTERFACE, "Vanish")
        assert gone.value is bus.gone()
    finally:
        bus.close()
