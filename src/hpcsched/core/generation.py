"""Checked generator parameters: types, finite numbers, ranges and each family's largest size.

A generator family is a function ``generate_x(*, seed, n=..., ...) -> Instance``.
`checked` wraps it so that every keyword a caller gives (``hpcsched generate
--param``, a study file, Python) is checked before any work, each in one
`InvalidInstanceError` naming the parameter:

* against its annotation (`hpcsched.core.params.check_value`): ``"abc"`` for
  a number, NaN or infinity for a float, ``1.5`` for an int are refused;
* against the `Range` the family declares for it (``median=POSITIVE``,
  ``edge_probability=PROBABILITY``);
* a size parameter against the family's documented maximum (`size`): the
  largest instance whose generation, writing and reading back stay within
  about a minute and a few GiB (``benchmarks/generators.py`` measures them),
  so that ``--n 10**12`` ends at once instead of in a MemoryError or an hour
  of work.

A family whose size grows faster than one parameter (edges ~ n² at a fixed
edge probability, T³/6 tasks of a T-tile Cholesky) also checks the size it
would make with `check_size` before drawing anything.

Defaults are not checked (they are in range by construction; a test runs
every family at its defaults). `limits(generator)` gives the declared ranges,
for the documentation and the tests.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import InvalidInstanceError, OptionError
from .fields import LARGEST_INTEGER

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Range:
    """The values a generator parameter may take (None: no limit on that side).

    ``what`` names the unit of a size ("tasks"): a size's maximum is the
    family's documented largest instance, and its message says so.
    """

    minimum: float | None = None
    maximum: float | None = None
    above: bool = False  # True: value > minimum (else >=)
    what: str = ""
    #: How a value that is not a number measures (a grid shape: the product of its dimensions).
    of: Callable[[Any], float] | None = None

    def check(self, field: str, value: Any) -> None:
        """Refuse ``value`` outside the range (None passes: the parameter's "not given")."""
        if self.of is not None and value is not None:
            value = self.of(value)
        if value is None or not isinstance(value, (int, float)) or isinstance(value, bool):
            return  # the type check decides about non-numbers (a list, a string choice)
        low = self.minimum
        if low is not None and (value <= low if self.above else value < low):
            raise InvalidInstanceError(field, f"must be {'>' if self.above else '>='} {low:g}, got {value!r}")
        if self.maximum is not None and value > self.maximum:
            if self.what:
                raise InvalidInstanceError(
                    field,
                    f"at most {self.maximum:,.0f} {self.what} (this family's largest instance, "
                    f"see docs/architecture.md 'Generator sizes'), got {_shown(value)}",
                )
            raise InvalidInstanceError(field, f"must be <= {self.maximum:g}, got {value!r}")


#: A quantity that must be > 0 (a time scale, a standard deviation, a rate).
POSITIVE = Range(0, above=True)
#: A quantity that may be 0 but not negative (a latency, an amalgamation threshold).
NON_NEGATIVE = Range(0)
#: A probability or a fraction in [0, 1].
PROBABILITY = Range(0, 1)
#: A count of at least one (processors, layers, children).
AT_LEAST_ONE = Range(1)


def size(maximum: int, what: str, minimum: int = 1, of: Callable[[Any], float] | None = None) -> Range:
    """A size parameter: at least ``minimum``, at most the family's documented ``maximum`` ``what``
    (measured by ``of`` when the parameter is not a number: ``of=math.prod`` for a grid shape)."""
    return Range(minimum, maximum, what=what, of=of)


def check_size(field: str, value: int, maximum: int, what: str, detail: str = "") -> None:
    """Refuse a derived size (edges, pairs drawn, tasks of a composite shape) above ``maximum``.

    ``field`` is the parameter the user sets (``n``); ``detail`` says how
    the size follows from the parameters (``"n(n-1)/2 x edge_probability"``).
    """
    if value > maximum:
        how = f" ({detail})" if detail else ""
        raise InvalidInstanceError(
            field,
            f"would make {_shown(value)} {what}{how}; this family makes at most {maximum:,} "
            "(see docs/architecture.md 'Generator sizes')",
        )


def _shown(value: float) -> str:
    """A number readable at any magnitude (10**12 is 1e+12, not thirteen digits)."""
    return f"{value:,}" if isinstance(value, int) and abs(value) < 10**9 else f"{value:.3g}"


def checked(**ranges: Range) -> Callable[[F], F]:
    """Decorate a generator family: check every given keyword's type and ``ranges`` before it runs.

    Examples
    --------
    >>> @checked(n=size(1000, "tasks"), rate=POSITIVE)
    ... def generate_toy(*, seed: int = 0, n: int = 10, rate: float = 1.0) -> list[float]:
    ...     return [rate] * n
    >>> generate_toy(n=3, rate=2)
    [2, 2, 2]
    >>> generate_toy(n=10**6)
    Traceback (most recent call last):
    ...
    hpcsched.core.errors.InvalidInstanceError: n: at most 1,000 tasks (this family's largest instance, \
see docs/architecture.md 'Generator sizes'), got 1,000,000
    """

    def decorate(generator: F) -> F:
        @functools.wraps(generator)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            hints = _hints(generator)
            for name, value in list(kwargs.items()):
                kwargs[name] = _checked_value(name, value, hints.get(name), ranges.get(name))
            return generator(*args, **kwargs)

        wrapper.ranges = dict(ranges)  # type: ignore[attr-defined]
        return typing.cast(F, wrapper)

    return decorate


def limits(generator: Callable[..., Any]) -> Mapping[str, Range]:
    """The ranges a generator family declared with `checked` (empty for an unchecked plugin's)."""
    return getattr(generator, "ranges", {})


@functools.cache
def _hints(generator: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(generator)
    except Exception:  # a plugin's annotation that does not resolve: no type check, the ranges still apply
        return {}


def _checked_value(name: str, value: Any, annotation: Any, allowed: Range | None) -> Any:
    """``value`` checked against ``annotation`` and ``allowed``; an integral float becomes the int asked for.

    Other values are passed on as given (an int stays an int where a float
    is taken), so that a seeded instance is the same as before the check.
    """
    from .params import check_value

    if name == "seed":
        return value  # checked by the caller (``--seed``, a study's seeds)
    converted = value
    if annotation is not None:
        try:
            converted = check_value(name, value, annotation)
        except OptionError as error:
            raise InvalidInstanceError(error.field, error.reason) from None
    if isinstance(value, float) and isinstance(converted, int) and not isinstance(converted, bool):
        value = converted
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > LARGEST_INTEGER:
        # no instance holds a number past 2^53 (`hpcsched.core.fields`): refuse it as the parameter, not the data
        raise InvalidInstanceError(name, f"magnitude must be at most 2^53 = {LARGEST_INTEGER}, got {_shown(value)}")
    if allowed is not None:
        allowed.check(name, value)
    return value
