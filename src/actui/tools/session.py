"""The parts of one agent session, built once and handed to the tools.

A session *has* its parts, each with one job: the backend registry (which
platform answers, and the configuration), the state store, the resource
lanes, the root refs, what the agent was told about windows, the output store
for continued text, the observation service, the renderer, and the full
observation that composes them with the image policy and its OCR slot.
A tool handler receives this bundle and passes on only the parts each piece
of its work needs. No tool logic and no platform here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from actui.backends.base import Backend
from actui.backends.registry import Backends
from actui.results.bounds import OutputStore
from actui.results.rendering import Renderer
from actui.runtime.deltas import Announced
from actui.runtime.imaging import Ocr
from actui.runtime.observer import Observer
from actui.runtime.roots import RootRegistry
from actui.runtime.scheduler import Scheduler
from actui.runtime.store import StateStore
from actui.tools.observing import Looker


@dataclass(frozen=True)
class Session:
    """One agent session's parts; ``open`` wires them, ``close`` releases them."""

    backends: Backends
    store: StateStore
    lanes: Scheduler
    roots: RootRegistry
    announced: Announced
    output: OutputStore
    observer: Observer
    renderer: Renderer
    looker: Looker

    @classmethod
    def open(cls, *, env: Mapping[str, str] | None, desktop: Backend | None) -> Session:
        """The parts of a new session over ``env`` (see ``Backends``)."""
        backends = Backends(env=env, desktop=desktop)
        store, lanes, roots, announced = StateStore(), Scheduler(), RootRegistry(), Announced()
        observer = Observer(backends, store=store, lanes=lanes, roots=roots, announced=announced)
        renderer = Renderer(announced, backends.console)
        return cls(
            backends=backends,
            store=store,
            lanes=lanes,
            roots=roots,
            announced=announced,
            output=OutputStore(),
            observer=observer,
            renderer=renderer,
            looker=Looker(observer, renderer, Ocr()),
        )

    async def close(self) -> None:
        await self.lanes.close()
        await self.backends.close()
        self.output.close()
