"""A pipeline solution: start times of every block of every micro-batch (and the period, for a repeated pattern)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...core.errors import InvalidSolutionError
from ...core.fields import require_dict, require_int, require_key, require_list

if TYPE_CHECKING:
    from .instance import Instance


def _as_int(value: Any, field: str) -> int:
    if type(value) is int:  # the common case, without the abstract-class check (a bool's type is bool)
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return require_int(value, field)


def _as_row(row: Any, m: int) -> tuple[int, ...]:
    # a tuple of plain ints is kept as it is: one C-level pass over its types instead of a call per entry
    if type(row) is tuple and set(map(type, row)) <= {int}:
        return row
    return tuple(_as_int(x, f"start[{m}][{b}]") for b, x in enumerate(row))


@dataclass(frozen=True)
class Solution:
    """A schedule.

    Attributes
    ----------
    start
        ``start[m][b]``: the start of block b of micro-batch m. For the period
        objective these are the offsets of the R micro-batches of one period:
        block b of micro-batch ``m + k R`` starts at ``start[m][b] + k period``
        for every integer k.
    period
        P (objective ``period``); None for a makespan schedule.
    """

    start: tuple[tuple[int, ...], ...]
    period: int | None = None

    def __post_init__(self) -> None:
        # Integral floats (a MILP's values) and numpy integers become ints; 1.5 is an error.
        rows = tuple(_as_row(row, m) for m, row in enumerate(self.start))
        object.__setattr__(self, "start", rows)
        if self.period is not None:
            object.__setattr__(self, "period", _as_int(self.period, "period"))

    @classmethod
    def makespan(cls, start: Any) -> Solution:
        """A makespan schedule from ``start[m][b]``."""
        return cls(tuple(tuple(row) for row in start))

    @classmethod
    def periodic(cls, period: int, offset: Any) -> Solution:
        """A periodic schedule from the period and ``offset[r][b]``."""
        return cls(tuple(tuple(row) for row in offset), period)

    @property
    def offset(self) -> tuple[tuple[int, ...], ...]:
        """The offsets of a periodic schedule (the same numbers as `start`)."""
        return self.start

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        """The solution described by the ``solution`` section of a file."""
        data = require_dict(data, "solution")
        if instance.is_period:
            unknown = sorted(set(data) - {"period", "offset"})
            if unknown:
                raise InvalidSolutionError(unknown[0], "is not a field of a periodic pipeline solution")
            period = require_int(require_key(data, "period", ""), "period", minimum=1)
            rows = _rows(require_key(data, "offset", ""), "offset", instance)
            return cls(rows, period)
        unknown = sorted(set(data) - {"start"})
        if unknown:
            raise InvalidSolutionError(unknown[0], "is not a field of a makespan pipeline solution")
        return cls(_rows(require_key(data, "start", ""), "start", instance))

    def to_data(self) -> dict[str, Any]:
        """The ``solution`` section of a solution file."""
        rows = [list(row) for row in self.start]
        if self.period is None:
            return {"start": rows}
        return {"period": self.period, "offset": rows}


def _rows(raw: Any, field: str, instance: Instance) -> tuple[tuple[int, ...], ...]:
    rows = require_list(raw, field, length=instance.micro_batches)
    return tuple(
        tuple(
            require_int(x, f"{field}[{m}][{b}]", minimum=0)
            for b, x in enumerate(require_list(row, f"{field}[{m}]", length=instance.n_blocks))
        )
        for m, row in enumerate(rows)
    )
