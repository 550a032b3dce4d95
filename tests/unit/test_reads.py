"""The typed readers of untyped replies (CDP JSON, D-Bus properties): members of the
expected type read as their values, anything else (absent, null, another type) as the
empty value, and a required member that is absent raises as indexing the reply did."""

from __future__ import annotations

import pytest

from actui.backends.base import JsonObject
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
