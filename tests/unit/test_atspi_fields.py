"""Where typed text lands in a field, and which element has the focus, from events."""

from __future__ import annotations

from dbus_fast import Message, MessageType, Variant
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.fields import BULLET, RECENT, FieldText, FocusTracker

EVENT = "org.a11y.atspi.Event.Object"


def _field(text: str, start: int, end: int, *, secure: bool = False) -> FieldText:
    return FieldText(text, start, end, secure=secure, editable=True)


@given(st.text(max_size=30), st.text(max_size=30), st.data())
def test_typing_replaces_the_selection_and_keeps_the_rest(
    text: str, typed: str, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    after = _field(text, start, end).after_typing(typed)
    assert after == text[:start] + typed + text[end:]
    assert len(after) == len(text) - (end - start) + len(typed)


def test_a_password_field_is_expected_as_bullets_only() -> None:
    field = _field(BULLET * 3, 3, 3, secure=True)
    assert field.after_typing("hunter2") == BULLET * 10


def _focus_event(sender: str, path: str, focused: bool) -> Message:
    return Message(
        message_type=MessageType.SIGNAL,
        sender=sender,
        path=path,
        interface=EVENT,
        member="StateChanged",
        signature="siiva{sv}",
        body=["focused", int(focused), 0, Variant("i", 0), {}],
    )


def test_the_focus_follows_each_applications_own_events() -> None:
    tracker = FocusTracker()
    tracker.on_signal(_focus_event(":1.5", "/a/1", True))
    tracker.on_signal(_focus_event(":1.9", "/b/1", True))
    tracker.on_signal(_focus_event(":1.5", "/a/2", True))
    tracker.on_signal(_focus_event(":1.5", "/a/1", False))  # the old one's loss comes late
    assert tracker.recent(":1.5") == (":1.5/a/2",)
    assert tracker.recent(":1.9") == (":1.9/b/1",)
    tracker.on_signal(_focus_event(":1.9", "/b/1", False))
    assert tracker.recent(":1.9") == ()


def test_the_elements_that_took_the_focus_are_kept_newest_first() -> None:
    # LibreOffice's root pane takes the focus as a menu command ends, while the page's
    # paragraph, which announced nothing, has it again: both are kept, newest first
    tracker = FocusTracker()
    tracker.on_signal(_focus_event(":1.5", "/p/1", True))
    tracker.on_signal(_focus_event(":1.5", "/pane", True))
    assert tracker.recent(":1.5") == (":1.5/pane", ":1.5/p/1")
    tracker.note(":1.5/p/1")  # taking it again moves it to the front, once
    assert tracker.recent(":1.5") == (":1.5/p/1", ":1.5/pane")
    for n in range(2 * RECENT):
        tracker.on_signal(_focus_event(":1.5", f"/x/{n}", True))
    assert len(tracker.recent(":1.5")) == RECENT


def test_an_element_actui_focused_counts_even_without_an_event() -> None:
    tracker = FocusTracker()
    tracker.note(":1.5/a/7")
    assert tracker.recent(":1.5") == (":1.5/a/7",)
    tracker.note("not an element")  # ignored, not raised
    assert tracker.recent(":1.5") == (":1.5/a/7",)
