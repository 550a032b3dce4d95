"""The Linux desktop backend: AT-SPI for semantics, X11, sway or gnome-shell physically.

AT-SPI delivers everything it can without focus or pointer. A request the
runtime sends with the ``foreground`` (or ``default``) policy needs physical
input and goes to XTEST; keyboard input aimed at an element first gets that
element focused semantically, so the keys land where the agent meant, and a
physical Enter waits (briefly) for the default button it activates to be
enabled, and a click aimed at an element for that element, as a person would.
Typed or physically set text is not done until it has arrived (``arrival``):
keys reach a web page later than the next call. No key goes to an
application held inside an earlier action's AT-SPI call (a modal dialog it
runs there): its bridge would deadlock on the key. Roots are AT-SPI's,
enriched with their X11 windows (id, stacking, activation), plus the X11
windows no accessible application describes: those are bare windows, read by
their pixels (a one-node snapshot; visual mode adds OCR) and driven by
physical input only. A step a policy forbids is answered as data (``Refused``:
AT-SPI has no semantic form for it, the window has no tree, or the default
policy meets an inactive window); whether it goes again in the foreground is
``actui.tools.actions``'s decision. When the X display is gone, that is the error of every
call, whatever the accessibility bus or the registry said first (they go with
the display or fail oddly after it), and waits on events end at once. On Wayland
the physical side is sway's (IPC, virtual input, grim) in the same shape
(:mod:`~actui.backends.linux.physical` chooses it), or in actui's own headless
gnome-shell the shell's (its window list without positions, remote-desktop
keys, screenshots; roots get no frame, and text that would be pasted is never
typed into a password field); a Wayland session without either has none, and a
step that needs it is refused before anything is sent.
This module only composes; each half owns its platform.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path

from actui.backends.arrival import ArrivingText
from actui.backends.atspi.backend import AtspiBackend
from actui.backends.atspi.insets import shows_popup
from actui.backends.base import (
    NO_PHYSICAL_INPUT,
    ActionRequest,
    ActionResult,
    Backend,
    Image,
    PageScan,
    ProcessExit,
    RawNode,
    RootInfo,
    RowQuery,
    SemanticReach,
    Snapshot,
    TextFormat,
    TextSlice,
    semantic_only,
)
from actui.backends.exit_records import RECORDS_VAR
from actui.backends.exits import process_exit
from actui.backends.keys import KeyEffects
from actui.backends.linux.physical import Screen, open_desktop
from actui.backends.procfs import started_by
from actui.backends.x11.ewmh import XWindow
from actui.backends.x11.pairing import is_window_only, pair_windows, unclaimed_roots
from actui.errors import (
    ActuiError,
    CallTimeout,
    CoordinateBlocked,
    DisplayGone,
    TargetGone,
    UnsupportedAction,
)
from actui.refusals import Refused

UNPAIRED_GRACE_S = 1.5
EXITS_KEPT = 256
"""How many known process exits are remembered (the oldest are forgotten first)."""
"""How long a window of an accessible application may stay unpaired before it is listed
on its own: its toolkit exposes a new window within milliseconds, or never."""
_ENTER = (["return"], ["enter"])
_KEYBOARD = ("typeText", "keypress", "setText")
_WINDOW_ONLY = SemanticReach(unreachable="this window has no accessibility tree")


class LinuxBackend(Backend):
    name = "linux"

    def __init__(self, env: Mapping[str, str] | None = None, *, switch_on: bool = True) -> None:
        self.desktop = open_desktop(env or {})
        # an agent needs the trees: toolkits that build them only on request get asked
        # (a probe that must change nothing passes switch_on=False); on Wayland an XWayland
        # DISPLAY must not place native windows
        atspi_env = dict(env or {})
        if self.desktop.kind != "x11":
            atspi_env.pop("DISPLAY", None)
        self.atspi = AtspiBackend(
            env=atspi_env if env is not None else None,
            switch_on=switch_on,
            windows=self.desktop.origins,
        )
        self._screen = self.desktop.screen
        self._input = self.desktop.input
        self._typing = ArrivingText(self.atspi, self._input) if self._input else None
        self._keys = KeyEffects(self.atspi)
        if self._screen is not None:
            self._screen.lifeline.when_gone(self.atspi.end_waits)
        self._screen_started = False
        self._screen_starting = asyncio.Lock()
        self._unpaired_since: dict[int, float] = {}
        records = (env or {}).get(RECORDS_VAR, "")
        self._exit_records = Path(records) if records else None
        self._exits: dict[int, ProcessExit] = {}

    async def _session(self) -> Screen | None:
        """The display's session (X11 or sway), started once even when several calls arrive
        together."""
        if self._screen is not None and not self._screen_started:
            async with self._screen_starting:
                if not self._screen_started:
                    await self._screen.start()
                    self._screen_started = True
        return self._screen

    @contextlib.contextmanager
    def _on_display(self) -> Iterator[None]:
        """Run one call of this backend; once its display is gone, that is the error."""
        gone = self._display_gone()
        if gone is not None:
            raise gone
        try:
            yield
        except ActuiError as exc:
            gone = self._display_gone()
            if gone is None or isinstance(exc, DisplayGone):
                raise
            raise gone from None

    def _display_gone(self) -> DisplayGone | None:
        return self._screen.lifeline.gone() if self._screen is not None else None

    async def list_roots(self, pid: int | None = None) -> list[RootInfo]:
        with self._on_display():
            return await self._list_roots(pid)

    async def _list_roots(self, pid: int | None) -> list[RootInfo]:
        """AT-SPI's roots paired with the display's windows (both listed at once), then the
        windows no answering accessible application describes."""
        listing, windows = await asyncio.gather(self.atspi.listing(pid), self._windows())
        gone = self._display_gone()  # the X listing's failure is not an empty screen
        if gone is not None:
            raise gone
        if windows is None:
            if self.desktop.kind == "wayland":  # surface-local extents: no screen geometry
                return [semantic_only(root) for root in listing.roots]
            return [self._reach(root) for root in listing.roots]
        paired = pair_windows(listing.roots, windows, untold_pids=not self.desktop.pids)
        mine = [w for w in windows if not pid or w.pid == pid]
        overdue = self._overdue(paired, mine, {w.window_id for w in windows})
        unclaimed = unclaimed_roots(paired, mine, listing.described, listing.silent, overdue)
        roots = [self._reach(root) for root in paired + unclaimed]
        if not self.desktop.positions:  # gnome-shell: a window never placed has no frame
            return [_unplaced(r) if r.frame and r.frame.empty else r for r in roots]
        return roots

    def _reach(self, root: RootInfo) -> RootInfo:
        """The root with what the display lets actui do to it: input and capture need a
        window of the display; without one, a compositor's surface-local extents place
        nothing (X11's are the screen's)."""
        if root.window_id:
            return root
        if self.desktop.kind != "x11":
            return semantic_only(root)
        capabilities = replace(root.capabilities, input="none", capture="none")
        return replace(root, capabilities=capabilities)

    def _overdue(
        self, paired: list[RootInfo], windows: list[XWindow], existing: set[int]
    ) -> frozenset[int]:
        """The windows unpaired for longer than :data:`UNPAIRED_GRACE_S`, as of this listing."""
        now = time.monotonic()
        taken = {root.window_id for root in paired}
        for window_id in [w for w in self._unpaired_since if w not in existing]:
            del self._unpaired_since[window_id]
        for window in windows:
            if window.window_id in taken:
                self._unpaired_since.pop(window.window_id, None)
            else:
                self._unpaired_since.setdefault(window.window_id, now)
        return frozenset(
            w.window_id
            for w in windows
            if now - self._unpaired_since.get(w.window_id, now) >= UNPAIRED_GRACE_S
        )

    async def _windows(self) -> list[XWindow] | None:
        """The window listing; None without a display or when it fails (roots stay unpaired)."""
        screen = await self._session()
        if screen is None:
            return None
        try:
            return await screen.windows()
        except ActuiError:
            return None

    async def snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        with self._on_display():
            return await self._snapshot(root, max_nodes=max_nodes, max_depth=max_depth)

    async def _snapshot(self, root: RootInfo, *, max_nodes: int, max_depth: int) -> Snapshot:
        if is_window_only(root):
            return await self._window_snapshot(root)
        try:
            snapshot = await self.atspi.snapshot(root, max_nodes=max_nodes, max_depth=max_depth)
        except CallTimeout:
            if root.accessibility != "not_answering" or not root.window_id:
                raise
            return await self._window_snapshot(root)  # its pixels can still be seen
        if snapshot.root.accessibility != "full":  # it answered after all
            snapshot = replace(snapshot, root=replace(snapshot.root, accessibility="full"))
        if self.desktop.kind == "sway" and shows_popup(snapshot.tree):
            capabilities = replace(snapshot.root.capabilities, geometry="approximate")
            snapshot = replace(snapshot, root=replace(snapshot.root, capabilities=capabilities))
        return snapshot

    async def _window_snapshot(self, root: RootInfo) -> Snapshot:
        """A root as its bare window, one node: its title and frame, nothing semantic."""
        window = next(
            (w for w in await self._windows() or [] if w.window_id == root.window_id), None
        )
        if window is None:
            raise TargetGone(
                f"the window {root.title!r} (pid {root.pid})",
                "is gone",
                then="find_roots",
                pid=root.pid,
            )
        fresh = replace(
            root,
            frame=window.frame,
            title=window.title or root.title,
            is_focused=window.is_active,
            is_minimized=window.is_minimized,
            z_order=window.z_order,
        )
        tree = RawNode(
            native_id=fresh.native_id,
            raw_role=fresh.raw_role,
            name=fresh.title,
            states=frozenset({"enabled", "sensitive", "showing", "visible"}),
            rect=fresh.frame,
        )
        return Snapshot(fresh, tree, time.time(), node_count=1, source="x11-window")

    async def capture(self, root: RootInfo, *, max_dimension: int) -> Image | None:
        with self._on_display():
            screen = await self._session()
            if screen is None or not root.window_id:
                return None
            shot = await screen.capture(root.window_id, max_dimension=max_dimension)
        return Image(shot.png, shot.width, shot.height, shot.scale, shot.source, shot.warnings)

    def semantic_reach(self, root: RootInfo) -> SemanticReach:
        return _WINDOW_ONLY if is_window_only(root) else self.atspi.semantic_reach(root)

    async def act(self, request: ActionRequest) -> ActionResult | Refused:
        with self._on_display():
            return await self._act(request)

    async def _act(self, request: ActionRequest) -> ActionResult | Refused:
        bare = is_window_only(request.root)
        if request.policy in NO_PHYSICAL_INPUT:
            refused = self.semantic_reach(request.root).refusal(request)
            if refused is not None:
                return refused
            result = await self.atspi.act(request)
            if (
                isinstance(result, ActionResult)
                and request.kind == "focus"
                and request.target
                and result.outcome == "worked"
            ):
                self.atspi.note_focused(request.target)
            return result
        window_id = request.root.window_id
        if request.root.capabilities.input == "none" or self._input is None or not window_id:
            why = self.desktop.missing() or "no window of the display is known for this root"
            raise CoordinateBlocked(
                f"this step needs pointer or keyboard input, and this root has input: none ({why})",
                instead="ref",
            )
        await self._session()
        refused = await self._input.refusal(request, window_id)
        if refused is not None:
            return refused
        if bare:  # nothing to focus or wait for: the point is all there is
            return await self._input.deliver(replace(request, target=None), window_id)
        if request.kind in _KEYBOARD and await self.atspi.stuck_in_call(request.root):
            raise CoordinateBlocked(
                f"{request.root.app_name} is held inside an earlier accessibility action (a "
                "modal dialog it opened there) and answers nothing; a key press now would "
                "deadlock it, so no key was sent",
                instead="click_dialog",
            )
        aimed = request  # typed or set text is confirmed by its arrival in the target
        if request.target is not None and request.kind in ("typeText", "keypress", "setText"):
            if request.policy == "foreground" and self._screen is not None:
                # a toolkit focuses no widget of a window its compositor has not activated
                # (GTK on Wayland); the delivery below would activate it anyway
                await self._screen.activate(window_id)
            focused = await self.atspi.act(replace(request, kind="focus", policy="background"))
            if isinstance(focused, Refused):
                return focused
            if focused.outcome == "didnt":
                raise CoordinateBlocked(
                    "the target could not be focused, so typed keys would land elsewhere",
                    instead="click_first",
                )
            self.atspi.note_focused(request.target)
            request = replace(request, target=None)
        if request.kind == "keypress" and [k.lower() for k in request.keys] in _ENTER:
            await self.atspi.until_default_enabled(request.root)
        refusal = await self.atspi.refusal_if_disabled(request)
        if refusal is not None:
            return refusal
        if request.kind in ("typeText", "setText") and self._typing is not None:
            refused = await self._secret_refusal(request, aimed.target)
            if refused is not None:
                return refused
            result = await self._typing.type(request, window_id, aimed.target)
        elif request.kind == "keypress":
            physical = self._input
            result = await self._keys.press(request, lambda: physical.deliver(request, window_id))
        else:
            await self._lands(request)
            result = await self._input.deliver(request, window_id)
        self.atspi.note_input(request.root)  # GTK4's events lag physical input too
        return result

    async def _secret_refusal(self, request: ActionRequest, aimed: str | None) -> Refused | None:
        """The display's refusal to type this text into a password field (the field aimed
        at, else the focused one), when it has one; a field it cannot see counts as one."""
        check = self.desktop.secret_refusal
        if check is None:
            return None
        field = aimed or await self.atspi.focused_element(request.root)
        try:
            text = await self.atspi.read_field(field) if field else None
        except ActuiError:
            text = None
        return check(request) if text is None or text.secure else None

    async def _lands(self, request: ActionRequest) -> None:
        """A pointer click aimed at an element goes only where the toolkit says that
        element is (``atspi.hits``); otherwise nothing is sent and the agent is told what
        is at the point instead."""
        miss = await self.atspi.point_miss(request)
        if miss is not None and request.point is not None:
            x, y = request.point
            raise CoordinateBlocked(
                f"the pointer at ({x}, {y}) would not land on the element it is aimed at: "
                f"{miss}, so nothing was sent",
                instead="look_again",
            )

    async def read_text(self, root: RootInfo, node_id: str, offset: int, limit: int) -> TextSlice:
        if is_window_only(root):
            raise UnsupportedAction(
                "this window", "has no accessibility tree, so it has no live text", instead="visual"
            )
        with self._on_display():
            return await self.atspi.read_text(root, node_id, offset, limit)

    async def text_format(self, root: RootInfo, node_id: str) -> TextFormat | None:
        if is_window_only(root):
            return None
        with self._on_display():
            return await self.atspi.text_format(root, node_id)

    async def find_in_rows(self, root: RootInfo, query: RowQuery) -> list[RawNode]:
        return await self.atspi.find_in_rows(root, query)

    async def scan_pages(
        self, root: RootInfo, node_id: str, accepts: Callable[[str], bool], budget_s: float
    ) -> PageScan | None:
        if is_window_only(root):
            return None
        return await self.atspi.scan_pages(root, node_id, accepts, budget_s)

    async def keyboard_focus(self, root: RootInfo) -> str | None:
        if is_window_only(root):
            return None
        with self._on_display():
            return await self.atspi.focused_element(root)

    async def read_below(self, root: RootInfo, node_id: str, budget_s: float) -> RawNode:
        return await self.atspi.read_below(root, node_id, budget_s)

    def change_mark(self, root: RootInfo) -> int:
        return super().change_mark(root) if is_window_only(root) else self.atspi.change_mark(root)

    async def wait_for_change(self, root: RootInfo, since: int, timeout_s: float) -> int:
        with self._on_display():
            if is_window_only(root):  # no events: the seam's declared polling
                return await super().wait_for_change(root, since, timeout_s)
            return await self.atspi.wait_for_change(root, since, timeout_s)

    def waits_are_event_driven(self, root: RootInfo) -> bool:
        return not is_window_only(root) and self.atspi.waits_are_event_driven(root)

    def settle_quiet_s(self, root: RootInfo) -> float | None:
        return None if is_window_only(root) else self.atspi.settle_quiet_s(root)

    async def process_exit(self, pid: int) -> ProcessExit | None:
        """How ``pid`` ended, told the same way every time it is asked.

        A status read once (from /proc before its parent reaped it) is remembered, so a
        later call does not say "not known" of a crash an earlier one named.
        """
        ended = await process_exit(pid, self._exit_records)
        if ended is None:  # it runs: a number the kernel gave to a new process
            self._exits.pop(pid, None)
            return None
        if ended.code is None and ended.signal is None:
            return self._exits.get(pid, ended)
        self._exits[pid] = ended
        while len(self._exits) > EXITS_KEPT:
            del self._exits[next(iter(self._exits))]
        return ended

    def notices(self) -> list[str]:
        gone = self._display_gone()  # what the accessibility side says follows from it
        if gone is not None:
            return [gone.message]
        limits = self.desktop.notice()
        return [limits, *self.atspi.notices()] if limits else self.atspi.notices()

    def started_processes(self, root: RootInfo, since: float) -> list[int]:
        return started_by(root.pid, since) if root.pid > 0 else []

    async def close(self) -> None:
        await self.atspi.close()
        if self._screen is not None:
            await self._screen.close()
        if self._input is not None:
            await self._input.close()


def _unplaced(root: RootInfo) -> RootInfo:
    """A window the compositor has not let actui place yet: no frame, and its coordinates
    are said to be unknown rather than guessed."""
    return replace(root, frame=None, capabilities=replace(root.capabilities, geometry="none"))
