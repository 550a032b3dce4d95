"""Directories shallow enough for sockets: a Unix socket's path must fit in 107 bytes.

Programs make their sockets inside the directories they are handed (Chromium its
singleton socket under ``TMPDIR``, the private session bus and the accessibility bus
under the sandbox's run dir), and abort when the path does not fit a socket address
(``Socket path too long``). This module picks, for a directory about to be made, a
parent short enough for the longest path anyone will make below it: the one asked for
when it is, else ``/tmp``. It must not make or remove anything itself.
"""

from __future__ import annotations

import os

SUN_PATH_MAX = 107
"""Bytes of path a Unix socket address holds (``sun_path`` is 108, the last a NUL)."""
SHORT_DIR = "/tmp"
"""Where a directory goes when the temp dir asked for is too deep for its sockets."""


def roomy(preferred: str, room: int) -> str:
    """``preferred`` when a path ``room`` bytes longer still fits a socket address, else
    :data:`SHORT_DIR`."""
    return preferred if len(os.fsencode(preferred)) + room <= SUN_PATH_MAX else SHORT_DIR
