"""The state store keeps the newest states and forgets the rest with clear advice."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actui.backends.base import RawNode, RootInfo
from actui.errors import UnknownState
from actui.outline.model import build_outline
from actui.runtime.store import State, StateMeta, StateStore, new_state_id

ROOT = RootInfo(
    native_id=":1.5/root", pid=42, app_name="calc", title="Calc", kind="window", raw_role="frame"
)
OUTLINE = build_outline(RawNode(native_id="n1", raw_role="frame", name="Calc"), None)


def make_state(state_id: str, key: str = "desktop-pid:42", epoch: int = 0) -> State:
    return State(
        state_id=state_id,
        resource_key=key,
        epoch=epoch,
        root_ref="@r1",
        root=ROOT,
        outline=OUTLINE,
        captured_at=1.0,
    )


def test_capacity_two_store_evicts_the_first_of_three() -> None:
    store = StateStore(capacity=2)
    for state_id in ("a", "b", "c"):
        store.put(make_state(state_id))
    assert len(store) == 2
    with pytest.raises(UnknownState):
        store.get("a")
    assert store.get("b").state_id == "b"
    assert store.get("c").state_id == "c"


def test_resaving_a_state_keeps_it_past_newer_ones() -> None:
    store = StateStore(capacity=2)
    store.put(make_state("a"))
    store.put(make_state("b"))
    store.put(store.get("a"))
    store.put(make_state("c"))
    assert store.get("a").state_id == "a"
    with pytest.raises(UnknownState):
        store.get("b")


def test_unknown_state_error_tells_the_agent_to_observe_again() -> None:
    store = StateStore()
    with pytest.raises(UnknownState) as caught:
        store.get("nope")
    assert caught.value.code == "unknown_state"
    assert "'nope'" in caught.value.message
    assert "observe_ui again" in caught.value.message


def test_newest_for_returns_the_latest_state_of_that_resource_only() -> None:
    store = StateStore()
    store.put(make_state("a", key="desktop-pid:1", epoch=0))
    store.put(make_state("b", key="desktop-pid:2", epoch=0))
    store.put(make_state("c", key="desktop-pid:1", epoch=1))
    store.put(make_state("d", key="desktop-pid:2", epoch=3))
    newest = store.newest_for("desktop-pid:1")
    assert newest is not None and newest.state_id == "c"
    assert store.newest_for("cdp:page") is None


def test_the_rows_a_state_searched_cannot_be_mutated_through_it() -> None:
    searched = {"list": ((0, 9),)}
    state = State(
        state_id="a",
        resource_key="k",
        epoch=0,
        root_ref="@r1",
        root=ROOT,
        outline=OUTLINE,
        captured_at=0.0,
        meta=StateMeta(searched_rows=searched),
    )
    searched["list"] = ((0, 99),)
    assert state.meta.searched_rows["list"] == ((0, 9),)
    with pytest.raises(TypeError):
        state.meta.searched_rows["list"] = ()  # type: ignore[index]


def test_state_ids_are_unique() -> None:
    assert len({new_state_id() for _ in range(1000)}) == 1000


def test_state_ids_are_a_few_characters_and_never_come_back() -> None:
    seen = [new_state_id() for _ in range(10_000)]
    assert all(len(sid) <= 8 and sid.startswith("s") for sid in seen)
    later = {new_state_id() for _ in range(1000)}
    assert later.isdisjoint(seen), "an id of a forgotten state is never given to a new one"


def test_zero_capacity_is_refused() -> None:
    with pytest.raises(ValueError):
        StateStore(capacity=0)


@given(capacity=st.integers(1, 8), ids=st.lists(st.sampled_from("abcdefghij"), max_size=40))
def test_store_holds_exactly_the_most_recently_saved_distinct_ids(
    capacity: int, ids: list[str]
) -> None:
    store = StateStore(capacity=capacity)
    for state_id in ids:
        store.put(make_state(state_id))
    recent: list[str] = []
    for state_id in reversed(ids):
        if state_id not in recent:
            recent.append(state_id)
    kept = recent[:capacity]
    assert len(store) == len(kept)
    for state_id in kept:
        assert store.get(state_id).state_id == state_id
    for state_id in set(ids) - set(kept):
        with pytest.raises(UnknownState):
            store.get(state_id)
