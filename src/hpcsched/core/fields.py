"""Checked conversion of JSON values into instance fields.

Instance constructors use these so that every bad value ends in one
`InvalidInstanceError` naming the field path and the reason: wrong type,
NaN or infinity, a sign that the definition forbids, a dangling index.
Booleans are refused where numbers are expected (JSON ``true`` is not 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .errors import InvalidInstanceError

#: Largest integer magnitude accepted: 2^53 is exact as a float (HiGHS works in
#: doubles) and leaves room for sums of many such values in int64 (CP-SAT, numpy),
#: so no method overflows or silently rounds a legal instance.
LARGEST_INTEGER = 2**53


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _described(value: Any) -> str:
    """``null``, or the type and the value: ``string '443'``."""
    return "null" if value is None else f"{_type_name(value)} {value!r}"


def _magnitude(value: int) -> str:
    """A short rendering of a possibly huge integer (formatting it as a float overflows)."""
    digits = len(str(abs(value)))
    return f"{value:.3g}" if digits <= 300 else f"an integer of {digits} digits"


def require_int(value: Any, field: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int; floats with an integral value are accepted."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInstanceError(field, f"must be an integer, got {_described(value)}")
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise InvalidInstanceError(field, f"must be an integer, got {value!r}")
        value = int(value)
    if abs(value) > LARGEST_INTEGER:
        raise InvalidInstanceError(
            field, f"magnitude must be at most 2^53 = {LARGEST_INTEGER}, got {_magnitude(value)}"
        )
    if minimum is not None and value < minimum:
        raise InvalidInstanceError(field, f"must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InvalidInstanceError(field, f"must be <= {maximum}, got {value}")
    return value


def require_number(
    value: Any,
    field: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    strictly_positive: bool = False,
) -> float:
    """``value`` as a finite float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInstanceError(field, f"must be a number, got {_described(value)}")
    try:
        value = float(value)
    except OverflowError:  # an integer too large for a double: JSON allows any number of digits
        raise InvalidInstanceError(field, f"must be finite, got {_magnitude(value)}") from None
    if not math.isfinite(value):
        raise InvalidInstanceError(field, f"must be finite, got {value}")
    if strictly_positive and value <= 0:
        raise InvalidInstanceError(field, f"must be > 0, got {value}")
    if minimum is not None and value < minimum:
        raise InvalidInstanceError(field, f"must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InvalidInstanceError(field, f"must be <= {maximum}, got {value}")
    return value


def require_bool(value: Any, field: str) -> bool:
    """``value`` as a bool: only JSON ``true``/``false`` (a string \"no\" would otherwise be truthy)."""
    if not isinstance(value, bool):
        raise InvalidInstanceError(field, f"must be true or false, got {_described(value)}")
    return value


def require_list(value: Any, field: str, *, min_length: int = 0, length: int | None = None) -> list[Any]:
    """``value`` as a list, optionally of a given length."""
    if not isinstance(value, (list, tuple)):
        raise InvalidInstanceError(field, f"must be a list, got {_type_name(value)}")
    if length is not None and len(value) != length:
        raise InvalidInstanceError(field, f"must have {length} entries, got {len(value)}")
    if len(value) < min_length:
        raise InvalidInstanceError(field, f"must have at least {min_length} entries, got {len(value)}")
    return list(value)


def require_dict(value: Any, field: str) -> dict[str, Any]:
    """``value`` as a JSON object."""
    if not isinstance(value, dict):
        raise InvalidInstanceError(field, f"must be an object, got {_type_name(value)}")
    return value


def require_str(value: Any, field: str, *, choices: Sequence[str] | None = None) -> str:
    """``value`` as a string, optionally one of ``choices``."""
    if not isinstance(value, str):
        raise InvalidInstanceError(field, f"must be a string, got {_type_name(value)}")
    if choices is not None and value not in choices:
        raise InvalidInstanceError(field, f"must be one of {', '.join(choices)}, got {value!r}")
    return value


def require_known_keys(record: dict[str, Any], allowed: Sequence[str], field: str, what: str) -> None:
    """Refuse keys of ``record`` outside ``allowed``: a misspelt optional field would otherwise be ignored."""
    unknown = sorted(set(record) - set(allowed))
    if unknown:
        raise InvalidInstanceError(f"{field}.{unknown[0]}" if field else unknown[0], f"is not a field of {what}")


def require_key(data: dict[str, Any], key: str, field: str) -> Any:
    """``data[key]``, or an error naming ``field.key`` as missing."""
    if key not in data:
        raise InvalidInstanceError(f"{field}.{key}" if field else key, "is missing")
    return data[key]


def require_index(value: Any, field: str, size: int, what: str = "index") -> int:
    """``value`` as an index in ``range(size)`` (a dangling reference is an error)."""
    index = require_int(value, field)
    if not 0 <= index < size:
        raise InvalidInstanceError(field, f"{what} {index} does not exist (valid: 0..{size - 1})")
    return index


def int_list(value: Any, field: str, *, minimum: int | None = None, length: int | None = None) -> tuple[int, ...]:
    """A list of ints, each checked, as a tuple."""
    items = require_list(value, field, length=length)
    # fast path for the common case (plain ints in range), same verdict: 10^5 items in ms, not 0.4 s
    lowest = -LARGEST_INTEGER if minimum is None else max(minimum, -LARGEST_INTEGER)
    if all(type(item) is int for item in items) and (
        not items or (max(items) <= LARGEST_INTEGER and min(items) >= lowest)
    ):
        return tuple(items)
    return tuple(require_int(item, f"{field}[{i}]", minimum=minimum) for i, item in enumerate(items))


def number_list(
    value: Any, field: str, *, minimum: float | None = None, length: int | None = None
) -> tuple[float, ...]:
    """A list of finite floats, each checked, as a tuple."""
    items = require_list(value, field, length=length)
    if all(type(item) is float or type(item) is int for item in items):  # fast path, same verdict
        try:
            values = tuple(map(float, items))
        except OverflowError:
            values = ()
        finite = len(values) == len(items) and all(map(math.isfinite, values))
        if finite and (minimum is None or not values or min(values) >= minimum):
            return values
    return tuple(require_number(item, f"{field}[{i}]", minimum=minimum) for i, item in enumerate(items))


def check_method_options(method: Any, options: dict[str, Any]) -> None:
    """``method.build_params(options)``, where any error of the check itself is the user's.

    ``method`` is a `Method` that runs itself (resolve a dispatcher first:
    its chosen method's options count). The check parses values the user
    typed (``--opt``, a study file); a value it cannot even handle (an integer
    too large for a double, say) is still a bad option, not a bug. A plain
    error raised by the check becomes one `OptionError` naming the option:
    each option is checked alone to find the culprit, ``options`` as a whole
    when none is one alone (a cross-option rule). The method's own
    computation is not involved: an error there remains an internal error.
    """
    from .errors import HpcschedError, OptionError

    try:
        method.build_params(options)
    except HpcschedError:
        raise
    except (ArithmeticError, ValueError, TypeError, KeyError, AttributeError) as error:
        for name, value in options.items():
            try:
                method.build_params({name: value})
            except HpcschedError:
                raise
            except (ArithmeticError, ValueError, TypeError, KeyError, AttributeError) as alone:
                raise OptionError(f"options.{name}", f"cannot be used: {alone} (got {_short(value)})") from None
        raise OptionError("options", f"cannot be used together: {error}") from None


def _short(value: Any) -> str:
    """``repr(value)``, cut when long (a 400-digit integer is not worth printing)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


#: Largest method seed: CP-SAT's ``random_seed`` and HiGHS's are 32-bit signed
#: integers, and ``numpy.random.default_rng`` takes no negative seed.
LARGEST_SEED = 2**31 - 1


def require_seed(value: Any, field: str) -> int:
    """``value`` as a method seed in ``0..LARGEST_SEED`` (a larger one overflows inside the solvers)."""
    if isinstance(value, int) and not isinstance(value, bool) and value > LARGEST_SEED:
        shown = value if len(str(value)) <= 30 else _magnitude(value)
        raise InvalidInstanceError(field, f"must be <= {LARGEST_SEED} (solvers take 32-bit seeds), got {shown}")
    return require_int(value, field, minimum=0)
