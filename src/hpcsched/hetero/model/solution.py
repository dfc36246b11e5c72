"""A hetero solution: type, machine within the type and start of every task."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...core.fields import (
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_str,
)
from ...taskgraph import Placement
from .data import TYPES, Instance


def _as_int(value: Any, field_name: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return require_int(value, field_name)


def _integral_start(start: float, field_name: str) -> int:
    # The engine computes starts in floats; with integer data they are integral, and anything else is refused
    # with the same message as a non-integer start in a file.
    return round(start) if float(start).is_integer() else _as_int(start, field_name)


@dataclass(frozen=True)
class Solution:
    """A schedule: type, machine (index within the type) and start of every task."""

    type: tuple[str, ...]
    machine: tuple[int, ...]
    start: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", tuple(self.type))
        object.__setattr__(self, "machine", tuple(_as_int(x, f"machine[{i}]") for i, x in enumerate(self.machine)))
        object.__setattr__(self, "start", tuple(_as_int(x, f"start[{i}]") for i, x in enumerate(self.start)))

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        data = require_dict(data, "solution")
        require_known_keys(data, ("type", "machine", "start"), "", "a hetero solution")
        n = instance.n
        types = require_list(require_key(data, "type", ""), "type", length=n)
        kinds = tuple(require_str(t, f"type[{i}]", choices=TYPES) for i, t in enumerate(types))
        machine = tuple(
            require_int(x, f"machine[{i}]", minimum=0)
            for i, x in enumerate(require_list(require_key(data, "machine", ""), "machine", length=n))
        )
        start = tuple(
            require_int(x, f"start[{i}]", minimum=0)
            for i, x in enumerate(require_list(require_key(data, "start", ""), "start", length=n))
        )
        return cls(kinds, machine, start)

    def to_data(self) -> dict[str, Any]:
        return {"type": list(self.type), "machine": list(self.machine), "start": list(self.start)}

    @classmethod
    def from_placements(cls, placements: Sequence[Placement]) -> Solution:
        """The solution of an engine schedule (classes ``"cpu"``/``"gpu"``)."""
        return cls(
            tuple(str(p.machine_class) for p in placements),
            tuple(int(p.machine) for p in placements),
            tuple(_integral_start(p.start, f"start[{j}]") for j, p in enumerate(placements)),
        )
