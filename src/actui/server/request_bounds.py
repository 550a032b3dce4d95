"""Requests refused before they are parsed: more act_ui steps than one call may hold.

Parsing is where a request costs: a 2.5 MB line of 100,000 steps became some 33 MB of
Python objects and blocked the server for most of a second before the contract refused
its 21st step, and the memory did not all return. Both transports (the stdin guard and
the HTTP gate) therefore count the steps in the raw bytes first. A step is an object
with an ``"action"`` member, and that key can appear unescaped only as a key: inside a
JSON string its quotes are escaped. This module only counts; the line and body length
bounds are the transports' own.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re

from actui.tools.contract import MAX_ACTIONS

_STEP_KEY = re.compile(rb'(?<!\\)"action"\s*:')


def too_many_steps(raw: bytes) -> str | None:
    """Why ``raw`` is refused unparsed (more ``"action"`` members than one act_ui takes),
    or None. Stops counting at the first one over the bound."""
    for count, _ in enumerate(_STEP_KEY.finditer(raw), 1):
        if count > MAX_ACTIONS:
            return (
                f"request refused unparsed: it holds more than {MAX_ACTIONS} actions, and "
                f"act_ui takes at most {MAX_ACTIONS} per call. Send the steps over several "
                "act_ui calls."
            )
    return None


def give_back_memory() -> None:
    """Return the C heap's free memory to the system, after a refused request's bytes.

    The bytes were read on a worker thread, into that thread's malloc arena, which keeps
    freed memory for reuse; with a new thread for a later line, each arena kept a few
    MB more. glibc's ``malloc_trim`` gives it back; elsewhere this does nothing.
    """
    name = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    if trim is not None:
        trim(0)
