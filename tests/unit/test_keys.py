"""A key press is judged by what it changed at the keyboard focus (``backends/keys.py``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.atspi.fields import FieldText
from actui.backends.base import TextFormat, TextRun
from actui.backends.keys import AtFocus, key_effect

PLAIN = TextFormat(caret=0, selections=(), defaults={"weight": "400"}, runs=())


def _at(text: str = "Bold words", start: int = 0, end: int = 0, **bold: str) -> AtFocus:
    runs = (TextRun(0, len(text), dict(bold)),) if bold else ()
    field = FieldText(text, start, end, secure=False, editable=True)
    return AtFocus(":1.5/p/1", field, TextFormat(start, (), {"weight": "400"}, runs))


def test_ctrl_b_on_a_selection_reads_back_as_a_formatting_change() -> None:
    before, after = _at(start=0, end=10), _at(start=0, end=10, weight="700")
    assert key_effect(before, after) == "the focused element's formatting changed"


def test_home_and_shift_end_read_back_as_the_caret_or_selection_moving() -> None:
    assert key_effect(_at(start=4, end=4), _at(start=0, end=0)) == (
        "the focused element's caret or selection changed"
    )
    assert "caret or selection" in (key_effect(_at(), _at(start=0, end=10)) or "")


def test_a_key_that_edits_reads_back_as_text_and_caret() -> None:
    effect = key_effect(_at("ab", 2, 2), _at("a", 1, 1))
    assert effect == "the focused element's text and caret or selection changed"


def test_return_closing_a_dialog_moves_or_drops_the_focus() -> None:
    ok = AtFocus(":1.5/button/ok")
    assert key_effect(ok, AtFocus(":1.5/p/1")) == "the keyboard focus moved"
    assert key_effect(ok, AtFocus(None)) == "the focused element lost focus"


def test_a_key_with_no_effect_at_the_focus_has_no_evidence() -> None:
    assert key_effect(_at(), _at()) is None
    assert key_effect(AtFocus(None), AtFocus(None)) is None


texts = st.text(max_size=8)
offsets = st.integers(min_value=0, max_value=8)
weights = st.sampled_from(["", "400", "700"])


@st.composite
def readings(draw: st.DrawFn) -> AtFocus:
    element = draw(st.sampled_from([None, ":1.5/a", ":1.5/b"]))
    if element is None or draw(st.booleans()):
        return AtFocus(element)
    weight = draw(weights)
    bold = {"weight": weight} if weight else {}
    return _at(draw(texts), draw(offsets), draw(offsets), **bold)


@given(readings(), readings())
def test_an_effect_is_named_exactly_when_the_focus_reads_differently(
    before: AtFocus, after: AtFocus
) -> None:
    effect = key_effect(before, after)
    assert (effect is None) == (before == after)
    assert key_effect(before, before) is None
