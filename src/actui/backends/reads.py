"""Typed reads of values that arrive untyped: CDP replies and event params (JSON), and
AT-SPI property bodies (D-Bus values made plain by ``atspi/bus.py``).

A CDP reply is a :data:`~actui.backends.base.JsonObject` and a D-Bus property set a
``dict[str, object]``; these readers are the one place their members are narrowed, so
callers write ``obj_of(reply, "model")`` instead of ``reply["model"]`` chains that the
type checker cannot follow. An optional member that is absent, ``null`` or of another
type reads as the empty value; a member always sent (``required=True``) raises
``KeyError`` as indexing it did.
"""

from __future__ import annotations

from collections.abc import Mapping

from actui.backends.base import JsonObject


def obj_of(obj: Mapping[str, object], key: str, *, required: bool = False) -> JsonObject:
    """``obj[key]`` when it is a JSON object, else ``{}``."""
    value = obj[key] if required else obj.get(key)
    return value if isinstance(value, dict) else {}


def list_of(obj: Mapping[str, object], key: str) -> list[object]:
    """``obj[key]`` when it is a JSON array, else ``[]``."""
    value = obj.get(key)
    return value if isinstance(value, list) else []


def objs_of(obj: Mapping[str, object], key: str) -> list[JsonObject]:
    """The JSON objects in the array ``obj[key]``; other items and a missing array give none."""
    return [item for item in list_of(obj, key) if isinstance(item, dict)]


def text_of(obj: Mapping[str, object], key: str, default: str = "") -> str:
    """``obj[key]`` when it is a string, else ``default``."""
    value = obj.get(key)
    return value if isinstance(value, str) else default


def int_of(obj: Mapping[str, object], key: str, default: int | None = None) -> int:
    """``obj[key]`` as an int (CDP ids are JSON numbers); ``default`` when it is absent or
    not a number, and ``KeyError`` then when there is no default."""
    value = obj.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    if default is None:
        raise KeyError(key)
    return default


def number_of(obj: Mapping[str, object], key: str, default: float = 0.0) -> float:
    """``obj[key]`` as a float when it is a JSON number, else ``default``."""
    value = obj.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return default


def numbers(value: object) -> list[float]:
    """The JSON numbers in ``value`` when it is an array (a quad, a rect), as floats."""
    items = value if isinstance(value, list) else []
    return [
        float(item)
        for item in items
        if isinstance(item, (int, float)) and not isinstance(item, bool)
    ]


def numbers_of(obj: Mapping[str, object], key: str, *, required: bool = False) -> list[float]:
    """:func:`numbers` of ``obj[key]``."""
    return numbers(obj[key] if required else obj.get(key))
