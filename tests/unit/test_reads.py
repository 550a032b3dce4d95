"""The typed readers of untyped replies (CDP JSON, D-Bus properties): members of the
expected type read as their values, anything else (absent, null, another type) as the
empty value, and a required member that is absent raises as indexing the reply did; a
page function's value and an integer property read the same way."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from actui.backends.atspi.bus import AtspiBus, CallFailed
from actui.backends.base import JsonObject
from actui.backends.cdp import dom
from actui.backends.reads import int_of, list_of, numbers, numbers_of, obj_of, objs_of, text_of

REPLY: JsonObject = {
    "result": {"type": "string", "value": "hi"},
    "nodes": [{"nodeId": "1"}, 7, None, {"nodeId": "2"}],
    "model": {"content": [1, 2.5, True, "3", 4]},
    "backendNodeId": 42,
    "scale": 1.5,
    "flag": True,
    "nothing": None,
}


def test_members_of_the_expected_type_read_as_themselves() -> None:
    assert obj_of(REPLY, "result") == {"type": "string", "value": "hi"}
    assert text_of(obj_of(REPLY, "result"), "value") == "hi"
    assert int_of(REPLY, "backendNodeId") == 42
    assert int_of(REPLY, "scale") == 1
    assert list_of(REPLY, "nodes") == [{"nodeId": "1"}, 7, None, {"nodeId": "2"}]


def test_arrays_keep_only_the_items_of_the_asked_type() -> None:
    assert objs_of(REPLY, "nodes") == [{"nodeId": "1"}, {"nodeId": "2"}]
    assert numbers_of(obj_of(REPLY, "model"), "content") == [1.0, 2.5, 4.0]
    assert numbers([3, False, 0.5]) == [3.0, 0.5]
    assert numbers({"not": "an array"}) == []


@pytest.mark.parametrize("key", ["absent", "nothing", "backendNodeId", "flag"])
def test_absent_null_or_mistyped_members_read_as_empty(key: str) -> None:
    assert obj_of(REPLY, key) == {}
    assert list_of(REPLY, key) == []
    assert objs_of(REPLY, key) == []
    assert text_of(REPLY, key, "fallback") == "fallback"
    assert numbers_of(REPLY, key) == []


def test_a_bool_is_not_a_number() -> None:
    assert int_of(REPLY, "flag", -1) == -1
    with pytest.raises(KeyError):
        int_of(REPLY, "flag")


def test_a_required_member_that_is_absent_raises_as_indexing_did() -> None:
    with pytest.raises(KeyError):
        obj_of(REPLY, "absent", required=True)
    with pytest.raises(KeyError):
        numbers_of(REPLY, "absent", required=True)
    with pytest.raises(KeyError):
        int_of(REPLY, "absent")
    assert int_of(REPLY, "absent", 0) == 0


class _Page:
    """Answers ``Runtime.callFunctionOn`` with one value, as a page function returned it."""

    def __init__(self, value: object) -> None:
        self.value = value

    async def send(
        self, method: str, params: Mapping[str, object] | None = None, *, timeout_s: float = 0
    ) -> JsonObject:
        assert method == "Runtime.callFunctionOn" and params is not None
        return {"result": {"type": "object", "value": self.value}}


@pytest.mark.parametrize(
    ("returned", "record", "state"),
    [
        ({"editable": True, "length": 3}, {"editable": True, "length": 3}, ""),
        ("true", {}, "true"),
        (True, {}, ""),  # the functions that only act return true
        (None, {}, ""),
        ([1, 2], {}, ""),
    ],
)
async def test_a_page_functions_value_reads_as_the_shape_its_caller_asked_for(
    returned: object, record: JsonObject, state: str
) -> None:
    page = _Page(returned)
    assert await dom.call(page, "obj-1", dom.READ_TEXT) == record
    assert await dom.call_text(page, "obj-1", dom.CHECKED) == state


class _Properties(AtspiBus):
    """Answers every property ``Get`` with one value, as the application sent it."""

    def __init__(self, value: object) -> None:
        super().__init__({})
        self.value = value

    async def get(self, destination: str, path: str, interface: str, name: str) -> object:
        return self.value


async def test_an_integer_property_reads_as_an_int_and_any_other_answer_fails_the_call() -> None:
    assert await _Properties(12).get_int(":1.2", "/a", "org.a11y.atspi.Text", "CaretOffset") == 12
    for answer in ("12", 1.5, None, [12]):
        with pytest.raises(CallFailed, match="CaretOffset"):
            await _Properties(answer).get_int(":1.2", "/a", "org.a11y.atspi.Text", "CaretOffset")
