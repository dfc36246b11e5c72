"""Method options as frozen, self-checking ``Params`` dataclasses.

Every method that has options declares them as a frozen dataclass (PyVRP's
``IteratedLocalSearchParams`` style): one field per option with its type and
default, and a ``__post_init__`` that checks the ranges with the helpers
below. The registry builds the dataclass from the user's options (`build`),
so an unknown name, a value of the wrong type or out of range fails once, in
one place, with an `OptionError` naming ``options.<name>``, before the method
runs. A method never re-checks its options.

Example
-------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class LocalSearchParams:
...     max_iterations: int = 1000
...     workers: int = 1
...     def __post_init__(self):
...         at_least("max_iterations", self.max_iterations, 0)
...         at_least("workers", self.workers, 1)
>>> build(LocalSearchParams, {"max_iterations": 10})
LocalSearchParams(max_iterations=10, workers=1)
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, Union

from .errors import OptionError

P = TypeVar("P")

_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string", dict: "an object"}


def build(params_type: type[P], options: Mapping[str, Any]) -> P:
    """The ``params_type`` instance for the user's ``options`` (JSON-like values).

    Raises
    ------
    OptionError
        An unknown option, a value of the wrong type, or one its
        ``__post_init__`` refuses; the message names ``options.<name>``.
    """
    fields = {f.name: f for f in dataclasses.fields(params_type)}  # type: ignore[arg-type]
    unknown = sorted(set(options) - set(fields))
    if unknown:
        known = ", ".join(sorted(fields)) or "none"
        raise OptionError(
            "options." + unknown[0],
            f"unknown option {', '.join(repr(u) for u in unknown)} (the options are: {known})",
        )
    hints = typing.get_type_hints(params_type)
    values = {name: _convert(f"options.{name}", value, hints[name]) for name, value in options.items()}
    try:
        return params_type(**values)
    except OptionError:
        raise
    except (TypeError, ValueError) as error:  # a __post_init__ that raised a plain error
        raise OptionError("options", str(error)) from None


def describe(params_type: type | None) -> list[tuple[str, str, Any]]:
    """``(name, type, default)`` of every option, for ``hpcsched methods`` and the docs."""
    if params_type is None:
        return []
    hints = typing.get_type_hints(params_type)
    rows = []
    for f in dataclasses.fields(params_type):
        default = f.default if f.default is not dataclasses.MISSING else None
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        rows.append((f.name, _type_text(hints[f.name]), default))
    return rows


def _type_text(annotation: Any) -> str:
    if typing.get_origin(annotation) is Literal:
        return " | ".join(repr(a) for a in typing.get_args(annotation))
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return " | ".join(_type_text(a) for a in typing.get_args(annotation))
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def check_value(field: str, value: Any, annotation: Any) -> Any:
    """``value`` checked against the type ``annotation`` (as an option's), or `OptionError` naming ``field``.

    Also used for generator parameters (`hpcsched.core.generation`): an
    int, a finite number, a string, a list of them, None where allowed.
    """
    return _convert(field, value, annotation)


def _convert(field: str, value: Any, annotation: Any) -> Any:
    """``value`` checked against ``annotation`` (and widened int -> float where a float is asked)."""
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return _convert_union(field, value, annotation)
    if origin is Literal:
        return _convert_literal(field, value, annotation)
    if origin in (tuple, list):
        return _convert_sequence(field, value, annotation, origin)
    if origin is dict or annotation is dict:
        if not isinstance(value, dict):
            raise OptionError(field, f"must be an object, got {_got(value)}")
        return value
    scalar = _SCALARS.get(annotation)
    if scalar is not None:
        return scalar(field, value)
    return value  # Any, or a type this check does not know: the dataclass's own checks decide


def _convert_union(field: str, value: Any, annotation: Any) -> Any:
    """The first alternative of ``annotation`` that accepts ``value`` (None where allowed)."""
    alternatives = typing.get_args(annotation)
    if value is None and type(None) in alternatives:
        return None
    errors = []
    for alternative in alternatives:
        if alternative is type(None):
            continue
        try:
            return _convert(field, value, alternative)
        except OptionError as error:
            errors.append(error.reason)
    raise OptionError(field, " or ".join(errors) if len(errors) == 1 else _expected(annotation, value))


def _convert_literal(field: str, value: Any, annotation: Any) -> Any:
    """``value`` when it is one of the literal's choices, of the same type (``1`` is not ``True``)."""
    choices = typing.get_args(annotation)
    if value in choices and type(value) in {type(c) for c in choices}:
        return value
    raise OptionError(field, f"must be one of {', '.join(repr(c) for c in choices)}, got {value!r}")


def _convert_sequence(field: str, value: Any, annotation: Any, origin: Any) -> Any:
    """A list or tuple (as ``origin`` asks) of items each checked against the item type."""
    (item_type, *_rest) = typing.get_args(annotation) or (Any,)
    if not isinstance(value, (list, tuple)):
        raise OptionError(field, f"must be a list, got {_got(value)}")
    items = [_convert(f"{field}[{i}]", item, item_type) for i, item in enumerate(value)]
    return tuple(items) if origin is tuple else items


def _convert_bool(field: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise OptionError(field, f"must be true or false, got {_got(value)}")


def _convert_int(field: str, value: Any) -> int:
    """An integer of at most 64 bits; an integral float (``3.0``) is taken as its integer."""
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > 2**63 - 1:
            raise OptionError(field, f"must be an integer of at most 64 bits, got {len(str(value))} digits")
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise OptionError(field, f"must be an integer, got {_got(value)}")


def _convert_float(field: str, value: Any) -> float:
    """A finite number; an integer beyond 2^53 is refused (it would lose digits as a float)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise OptionError(field, f"must be a number, got {_got(value)}")
    if isinstance(value, int) and abs(value) > 2**53:
        raise OptionError(field, f"must be a number of magnitude at most 2^53, got {len(str(value))} digits")
    if not math.isfinite(value):
        raise OptionError(field, f"must be finite, got {value!r}")
    return float(value)


def _convert_str(field: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise OptionError(field, f"must be a string, got {_got(value)}")


_SCALARS: dict[Any, Callable[[str, Any], Any]] = {
    bool: _convert_bool,
    int: _convert_int,
    float: _convert_float,
    str: _convert_str,
}


def _got(value: Any) -> str:
    return "null" if value is None else f"{type(value).__name__} {value!r}"


def _expected(annotation: Any, value: Any) -> str:
    return f"must be {_type_text(annotation)}, got {_got(value)}"


# --- range checks for __post_init__ ----------------------------------------------------------


def at_least(name: str, value: float | None, minimum: float) -> None:
    """Refuse ``value < minimum`` (None passes: it means "no limit")."""
    if value is not None and not value >= minimum:
        raise OptionError(f"options.{name}", f"must be >= {minimum}, got {value!r}")


def positive(name: str, value: float | None) -> None:
    """Refuse ``value <= 0`` (None passes)."""
    if value is not None and not value > 0:
        raise OptionError(f"options.{name}", f"must be > 0, got {value!r}")


def within(name: str, value: float | None, low: float, high: float) -> None:
    """Refuse a value outside ``[low, high]`` (None passes)."""
    if value is not None and not low <= value <= high:
        raise OptionError(f"options.{name}", f"must be between {low} and {high}, got {value!r}")
