"""One persistent X server connection, driven from one worker thread.

python-xlib blocks and is not thread-safe, so every request on a connection
runs on a single dedicated thread and the asyncio loop only awaits the result
with a timeout. This module owns that thread, the :class:`Xlib.display.Display`
and the translation of Xlib failures into :mod:`actui.errors`; it knows
nothing of windows, images or input.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from Xlib import display as xdisplay
from Xlib import error as xerror

from actui.errors import ActuiError, BackendUnavailable, CallTimeout, TargetGone

P = ParamSpec("P")
T = TypeVar("T")

DEFAULT_TIMEOUT_S = 5.0


class XConnection:
    """A lazily opened ``Display`` whose every call runs on one worker thread."""

    def __init__(self, display: str) -> None:
        self.display_name = display
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=f"x11{display}"
        )
        self._display: xdisplay.Display | None = None
        self._atoms: dict[str, int] = {}
        self._closed = False

    @property
    def display(self) -> xdisplay.Display:
        """The open connection; only valid inside a function passed to :meth:`call`."""
        if self._display is None:
            try:
                self._display = xdisplay.Display(self.display_name)
            except (xerror.DisplayError, xerror.ConnectionClosedError, OSError) as exc:
                raise BackendUnavailable(
                    f"cannot connect to the X server {self.display_name!r}: {exc}. "
                    "Check DISPLAY, or run inside `actui sandbox run`."
                ) from exc
        return self._display

    def atom(self, name: str) -> int:
        """An interned atom, cached for the connection's life (worker thread only)."""
        if name not in self._atoms:
            self._atoms[name] = self.display.intern_atom(name)
        return self._atoms[name]

    async def call(
        self,
        fn: Callable[P, T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """Run ``fn`` on the worker thread, bounded by :data:`DEFAULT_TIMEOUT_S`."""
        return await self.call_within(DEFAULT_TIMEOUT_S, functools.partial(fn, *args, **kwargs))

    async def call_within(self, timeout_s: float, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the worker thread; raise :class:`CallTimeout` after ``timeout_s``.

        A timed-out call keeps its thread until the server answers; functions
        that loop (typing, dragging) check their own deadline so they stop soon.
        """
        if self._closed:
            raise BackendUnavailable("the X11 connection is closed")
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, _translated, fn)
        try:
            return await asyncio.wait_for(future, timeout_s)
        except TimeoutError as exc:
            raise CallTimeout(
                f"the X server {self.display_name!r} did not answer within {timeout_s:.1f} s"
            ) from exc

    async def close(self) -> None:
        """Disconnect (which also drops this client's Composite redirections)."""
        if self._closed:
            return
        self._closed = True
        loop = asyncio.get_running_loop()
        with contextlib.suppress(TimeoutError, xerror.ConnectionClosedError, OSError):
            await asyncio.wait_for(loop.run_in_executor(self._executor, self._disconnect), 2.0)
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _disconnect(self) -> None:
        if self._display is not None:
            self._display.close()
            self._display = None


def _translated(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except ActuiError:
        raise
    except (xerror.BadWindow, xerror.BadDrawable) as exc:
        raise TargetGone("the X window", f"no longer exists ({exc.__class__.__name__})") from exc
    except xerror.ConnectionClosedError as exc:
        raise BackendUnavailable(f"the X server closed the connection: {exc}") from exc
    except xerror.XError as exc:
        raise BackendUnavailable(f"the X server refused a request: {type(exc).__name__}") from exc
