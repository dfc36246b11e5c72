"""A schedule: the transfer and compute start of every task."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from ...core.fields import int_list, require_dict, require_int, require_key, require_known_keys
from .data import Instance


def _as_int(value: Any, field: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return require_int(value, field)


@dataclass(frozen=True)
class Solution:
    """A schedule: transfer and compute start of every task (task order of the instance).

    Attributes
    ----------
    transfer_start
        s_i, start of the copy of task i on the link.
    compute_start
        t_i, start of the computation of task i on the device.
    """

    transfer_start: tuple[int, ...]
    compute_start: tuple[int, ...]

    def __post_init__(self) -> None:
        # Integral floats (a MILP's values) and numpy integers become ints; 1.5 is an error, never truncated.
        for field_name in ("transfer_start", "compute_start"):
            values = getattr(self, field_name)
            if type(values) is tuple and all(type(x) is int for x in values):
                continue  # already plain ints (the simulator's): the ABC checks below cost 1 us each
            checked = tuple(_as_int(x, f"{field_name}[{i}]") for i, x in enumerate(values))
            object.__setattr__(self, field_name, checked)

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        """The solution described by the ``solution`` section of a file."""
        data = require_dict(data, "solution")
        require_known_keys(data, ("transfer_start", "compute_start"), "", "a transfers solution")
        keys = ("transfer_start", "compute_start")
        return cls(*(int_list(require_key(data, k, ""), k, minimum=0, length=instance.n) for k in keys))

    def to_data(self) -> dict[str, Any]:
        return {"transfer_start": list(self.transfer_start), "compute_start": list(self.compute_start)}
