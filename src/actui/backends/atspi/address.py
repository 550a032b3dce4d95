"""An accessible's address on the bus and its string form.

AT-SPI identifies an element by (bus name, object path). actui's ``native_id``
is the two concatenated (``:1.23/org/a11y/atspi/accessible/7``), which is
stable for the element's lifetime and splits unambiguously at the first ``/``.
"""

from __future__ import annotations

from typing import NamedTuple

from actui.errors import TargetGone

NULL_PATH = "/org/a11y/atspi/null"


class Address(NamedTuple):
    bus: str
    path: str

    @property
    def native_id(self) -> str:
        return f"{self.bus}{self.path}"

    @property
    def is_null(self) -> bool:
        return not self.bus or self.path in ("", "/", NULL_PATH)

    @classmethod
    def parse(cls, native_id: str) -> Address:
        """The address inside a ``native_id``; a malformed id is reported as gone."""
        slash = native_id.find("/")
        if slash <= 0:
            raise TargetGone(repr(native_id), "is not an AT-SPI element id", then="observe_ui")
        return cls(native_id[:slash], native_id[slash:])

    @classmethod
    def of(cls, pair: object) -> Address:
        """From a D-Bus ``(so)`` pair; anything else is reported as gone, as a malformed
        id is."""
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            return cls(str(pair[0]), str(pair[1]))
        raise TargetGone(repr(pair)[:80], "is not an AT-SPI (bus, path) pair", then="observe_ui")
