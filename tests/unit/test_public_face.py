"""The package's top exports the whole Python API and every public error, once."""

from __future__ import annotations

import inspect

import actui
from actui import api, errors


def test_every_public_error_is_exported_from_the_package() -> None:
    public = {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value)
        and issubclass(value, Exception)
        and value.__module__ == errors.__name__
        and not name.startswith("_")
    }
    assert public, "errors.py defines public errors"
    assert public <= set(actui.__all__), sorted(public - set(actui.__all__))


def test_the_python_api_s_classes_and_step_makers_are_exported() -> None:
    made_here = {
        name
        for name, value in vars(api).items()
        if (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == api.__name__
        and not name.startswith("_")
    }
    assert made_here <= set(actui.__all__), sorted(made_here - set(actui.__all__))


def test_every_name_in_all_is_bound_and_listed_once() -> None:
    assert len(actui.__all__) == len(set(actui.__all__))
    assert all(hasattr(actui, name) for name in actui.__all__)
