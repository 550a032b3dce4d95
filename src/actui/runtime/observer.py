"""The observation service: resolve a root, take a snapshot in its lane, save it, wait on it.

Every tool that reads the UI goes through here, so a snapshot is always taken
in its resource's lane with the epoch it belongs to, a saved state always
records its image geometry and document generation, and a root that closed
is always ``TargetGone``. It holds the session's states, lanes and root refs;
it must not render text or choose a platform (the registry does).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from actui.backends.base import Backend, RootInfo, Snapshot
from actui.backends.registry import Backends
from actui.errors import BackendUnavailable, InvalidParams, StaleDocument, TargetGone, UnknownState
from actui.outline.conditions import UiCondition
from actui.outline.model import Outline
from actui.runtime.deltas import Announced
from actui.runtime.imaging import image_geometry, scale_of
from actui.runtime.reaching import ConditionReach, ReadNote
from actui.runtime.roots import (
    RootRegistry,
    is_browser_app,
    match_root,
    pick_default,
    promote_modal,
)
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import ObserveMode, State, StateMeta, StateStore, new_state_id
from actui.runtime.waiting import OpenedFn, Reader, WaitResult, wait_until

MAX_NODES = 4096
MAX_DEPTH = 64

T = TypeVar("T")


class Observer:
    """Takes, saves, waits and resolves for one session."""

    def __init__(
        self,
        backends: Backends,
        *,
        store: StateStore,
        lanes: Scheduler,
        roots: RootRegistry,
        announced: Announced,
    ) -> None:
        self._backends = backends
        self._store = store
        self._lanes = lanes
        self._roots = roots
        self._announced = announced

    def backend_for(self, root: RootInfo) -> Backend:
        """The backend of ``root``; refused for a browser while browser use is off."""
        if is_browser_app(root) and not self._backends.config().browser_use:
            raise BackendUnavailable(
                "browser use is turned off (browser_use = false), so browser windows and "
                "pages are not available. Turn it on in the configuration to use them."
            )
        return self._backends.backend_for(root)

    def state(self, state_id: str) -> State:
        """The saved state ``state_id``, or an error naming ``stateId``."""
        try:
            return self._store.get(state_id)
        except UnknownState as exc:
            raise InvalidParams("stateId", exc.message) from None

    def keep(self, state: State) -> None:
        """Save a successor state someone else built (a read on demand)."""
        self._store.put(state)

    def check_document(self, state: State) -> None:
        """Refuse a state whose page has navigated away since it was observed."""
        now = self.backend_for(state.root).document_generation(state.root)
        if now != state.meta.generation:
            raise StaleDocument(state.root_ref)

    async def pick(self, ref: str | None) -> RootInfo:
        """The root an observation of ``ref`` reaches: its current record, or the modal
        in front of it (docs/design-notes.md §1); without a ref, the desktop's likeliest
        window."""
        if ref is None:
            chosen = pick_default(await self._backends.desktop.list_roots())
            if chosen is None:
                raise TargetGone("no windows are open on this desktop. Launch an app first.")
            return chosen
        wanted = self._roots.get(ref)
        siblings = await self.backend_for(wanted).list_roots(pid=wanted.pid)
        self._announced.listed(wanted.pid, siblings, self._roots.ref_for)
        root = promote_modal(match_root(wanted, siblings), siblings)
        self._roots.ref_for(root)
        return root

    async def resolve(self, root: RootInfo) -> RootInfo:
        """The root's current record, or TargetGone if it closed."""
        return self.resolved(root, await self.backend_for(root).list_roots(pid=root.pid))

    def resolved(self, root: RootInfo, listed: list[RootInfo]) -> RootInfo:
        """The root's record in a fresh listing (noting its process's window changes)."""
        self._announced.listed(root.pid, listed, self._roots.ref_for)
        fresh = match_root(root, listed)
        self._roots.ref_for(fresh)
        return fresh

    async def snapshot(self, root: RootInfo) -> Snapshot:
        """The root's tree now (outside any lane: for windows no state belongs to yet)."""
        return await self.backend_for(root).snapshot(root, max_nodes=MAX_NODES, max_depth=MAX_DEPTH)

    async def snapshot_at_epoch(self, root: RootInfo, key: str) -> tuple[Snapshot, int]:
        """A snapshot taken in the resource's lane, with the epoch it belongs to.

        A successor saved with this epoch can never claim to be current while
        showing content from before another write.
        """

        async def job(epoch: int) -> tuple[Snapshot, int]:
            return await self.snapshot(root), epoch

        return await self._lanes.read(key, job)

    async def read_at(self, state: State, job: Callable[[int], Awaitable[T]]) -> T:
        """Run ``job`` in ``state``'s lane, refused if a write moved its epoch."""
        return await self._lanes.read_at(state.resource_key, state.epoch, job)

    def save(
        self,
        snapshot: Snapshot,
        outline: Outline,
        epoch: int,
        base: State | None = None,
        mode: ObserveMode | None = None,
    ) -> State:
        """A new state of ``snapshot``, kept in the store; its mode is ``base``'s by default."""
        root = snapshot.root
        mode = mode or (base.meta.mode if base else "fused")
        scale, image_size = image_geometry(root, mode)
        state = State(
            state_id=new_state_id(),
            resource_key=root.resource_key or f"desktop-pid:{root.pid}",
            epoch=epoch,
            root_ref=self._roots.ref_for(root),
            root=root,
            outline=outline,
            captured_at=snapshot.captured_at,
            base_state_id=base.state_id if base else None,
            image_size=image_size,
            meta=StateMeta(
                mode=mode, scale=scale, generation=self.backend_for(root).document_generation(root)
            ),
        )
        self._store.put(state)
        return state

    async def wait(
        self,
        state: State,
        root: RootInfo,
        cond: UiCondition,
        *,
        in_lane: bool = False,
        opened: OpenedFn | None = None,
    ) -> WaitResult:
        """Wait for ``cond`` on fresh snapshots; ``in_lane`` when the caller holds the lane.

        ``opened`` reads the windows a transaction opened, where an unanchored ``cond``
        may be met too."""
        backend = self.backend_for(root)

        async def take() -> tuple[Snapshot, int]:
            if in_lane:
                return await self.snapshot(root), self._lanes.epoch(state.resource_key)
            return await self.snapshot_at_epoch(root, state.resource_key)

        reach = ConditionReach(backend, cond, state.outline, scale_of(state))
        return await wait_until(
            backend, root, cond, state.outline, take, scale=scale_of(state), opened=opened,
            reach=reach if in_lane else _InLane(reach, self._lanes, state.resource_key),
        )  # fmt: skip


class _InLane:
    """A wait's reads on demand run in the resource's lane, like its looks: a write to
    the same app then never interleaves with the calls a read on demand makes."""

    def __init__(self, reader: Reader, lanes: Scheduler, key: str) -> None:
        self._reader = reader
        self._lanes = lanes
        self._key = key

    def due_in(self) -> float | None:
        return self._reader.due_in()

    async def __call__(
        self, root: RootInfo, outline: Outline, budget_s: float
    ) -> tuple[Outline, Sequence[ReadNote]]:
        async def job(_epoch: int) -> tuple[Outline, Sequence[ReadNote]]:
            return await self._reader(root, outline, budget_s)

        return await self._lanes.read(self._key, job)
