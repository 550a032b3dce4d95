"""The state store: immutable observations, kept by id, bounded in number.

Every ``stateId`` an agent holds names one :class:`State` here. The store keeps
the newest ``capacity`` states (re-saving one makes it newest again, so states
in use survive) and forgets the rest: an agent holding a forgotten id is told
to observe again rather than being served an outdated tree. This module must
not talk to a backend, schedule work or render anything.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from actui.backends.base import RootInfo
from actui.errors import InvalidParams, UnknownState
from actui.outline.model import Node, Outline

DEFAULT_CAPACITY = 128


_SERIAL = itertools.count(1)


def new_state_id() -> str:
    """A fresh id, short for the agent that reads it on every turn: ``s14``.

    Unique for the life of the process, so an id from an earlier state (or
    another session's store) is never mistaken for a current one: it is
    unknown, or stale, and refused as such. It need not be unguessable: a
    store only answers for the states it saved.
    """
    return f"s{next(_SERIAL)}"


ObserveMode = Literal["semantic", "fused", "visual"]
Intervals = tuple[tuple[int, int], ...]
"""Sorted, disjoint, inclusive 0-based row intervals."""


@dataclass(frozen=True)
class StateMeta:
    """How a state was taken, beside what it shows.

    ``mode`` is the observation mode its successors keep; ``scale`` image
    pixels per screen pixel (1.0 without an image); ``generation`` the
    page's document generation when it was taken (a page that navigated
    since refuses the state); ``searched_rows`` per windowed container
    (native id) the rows searches already read.
    """

    mode: ObserveMode = "fused"
    scale: float = 1.0
    generation: int = 0
    searched_rows: Mapping[str, Intervals] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.searched_rows, MappingProxyType):
            object.__setattr__(self, "searched_rows", MappingProxyType(dict(self.searched_rows)))


@dataclass(frozen=True)
class State:
    """One saved observation of one root at one epoch of its resource.

    ``base_state_id`` links a successor to the state it was derived from.
    """

    state_id: str
    resource_key: str
    epoch: int
    root_ref: str
    root: RootInfo
    outline: Outline
    captured_at: float
    base_state_id: str | None = None
    image_size: tuple[int, int] | None = None
    meta: StateMeta = StateMeta()

    def node(self, ref: str, field: str = "ref") -> Node:
        """The element ``ref`` of this state, or an error naming ``field``."""
        node = self.outline.get(ref)
        if node is None:
            raise InvalidParams(
                field,
                f"{ref} is not an element of state {self.state_id}.",
                "Use a ref from this state's outline (search_ui helps), or observe again.",
            )
        return node


class StateStore:
    """Insertion-ordered, newest last; overflow evicts the oldest."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self._capacity = capacity
        self._states: OrderedDict[str, State] = OrderedDict()

    def put(self, state: State) -> None:
        """Save (or re-save) ``state`` as the newest, evicting the oldest on overflow."""
        self._states[state.state_id] = state
        self._states.move_to_end(state.state_id)
        while len(self._states) > self._capacity:
            self._states.popitem(last=False)

    def get(self, state_id: str) -> State:
        state = self._states.get(state_id)
        if state is None:
            raise UnknownState(
                f"unknown stateId {state_id!r}: it was never issued or has been forgotten "
                f"(only the newest {self._capacity} states are kept). Call observe_ui again "
                "and use the stateId it returns."
            )
        return state

    def newest(self) -> State | None:
        """The most recently saved (or re-saved) state of any resource."""
        return next(reversed(self._states.values()), None)

    def newest_for(self, resource_key: str) -> State | None:
        """The most recently saved state of one resource, if any is still kept."""
        for state in reversed(self._states.values()):
            if state.resource_key == resource_key:
                return state
        return None

    def __len__(self) -> int:
        return len(self._states)
