"""Solutions of the burstbuffer problem: a dynamic (shared) or a static (partitioned) allocation."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from ...core.errors import InvalidInstanceError
from ...core.fields import (
    int_list,
    number_list,
    require_dict,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)
from .data import Instance

DRAIN_POLICIES = ("proportional", "fifo", "equal")
ALLOCATIONS = ("dynamic", "static")
SOLUTION_KEYS = {
    "dynamic": ("allocation", "capacity", "drain_policy"),
    "static": ("allocation", "granules", "drain_rates", "drain_schedule"),
}
DRAIN_SCHEDULE_KEYS = ("times", "rates")


@dataclass(frozen=True)
class DrainSchedule:
    """Piecewise-constant reserved drain rates: ``rates[k][j]`` on ``[times[j], times[j+1])``."""

    times: tuple[float, ...]
    rates: tuple[tuple[float, ...], ...]

    def rate(self, app: int, t: float) -> float | None:
        """Rate of ``app`` at ``t``, or None outside ``[t_0, t_m)``."""
        if t < self.times[0] or t >= self.times[-1]:
            return None
        j = bisect.bisect_right(self.times, t) - 1
        return self.rates[app][j]


@dataclass(frozen=True)
class Solution:
    """An allocation: dynamic (shared capacity + drain policy) or static (granules + drain rates).

    Use `Solution.dynamic` / `Solution.static` to build one.
    """

    allocation: str
    capacity: float | None = None
    drain_policy: str = "proportional"
    granules: tuple[int, ...] = ()
    drain_rates: tuple[float, ...] = ()
    drain_schedule: DrainSchedule | None = None

    @classmethod
    def dynamic(cls, capacity: float, drain_policy: str = "proportional") -> Solution:
        require_number(capacity, "capacity", minimum=0)
        require_str(drain_policy, "drain_policy", choices=DRAIN_POLICIES)
        return cls("dynamic", capacity=float(capacity), drain_policy=drain_policy)

    @classmethod
    def static(cls, granules, drain_rates, drain_schedule: DrainSchedule | None = None) -> Solution:
        granules = int_list(list(granules), "granules", minimum=0)
        drain_rates = number_list(list(drain_rates), "drain_rates", minimum=0, length=len(granules))
        return cls("static", granules=granules, drain_rates=drain_rates, drain_schedule=drain_schedule)

    def to_data(self) -> dict:
        if self.allocation == "dynamic":
            return {"allocation": "dynamic", "capacity": self.capacity, "drain_policy": self.drain_policy}
        data: dict[str, Any] = {
            "allocation": "static",
            "granules": list(self.granules),
            "drain_rates": list(self.drain_rates),
        }
        if self.drain_schedule is not None:
            data["drain_schedule"] = {
                "times": list(self.drain_schedule.times),
                "rates": [list(row) for row in self.drain_schedule.rates],
            }
        return data

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        data = require_dict(data, "solution")
        kind = require_str(require_key(data, "allocation", ""), "allocation", choices=ALLOCATIONS)
        require_known_keys(data, SOLUTION_KEYS[kind], "", f"a {kind} allocation")
        if kind == "dynamic":
            capacity = require_number(require_key(data, "capacity", ""), "capacity", minimum=0)
            policy = require_str(data.get("drain_policy", "proportional"), "drain_policy", choices=DRAIN_POLICIES)
            return cls("dynamic", capacity=capacity, drain_policy=policy)
        count = instance.num_applications
        granules = int_list(require_key(data, "granules", ""), "granules", minimum=0, length=count)
        rates = number_list(require_key(data, "drain_rates", ""), "drain_rates", minimum=0, length=count)
        schedule = None
        if data.get("drain_schedule") is not None:
            schedule = _read_drain_schedule(data["drain_schedule"], count)
        return cls("static", granules=granules, drain_rates=rates, drain_schedule=schedule)

    def size(self, instance: Instance) -> float:
        """Buffer size the allocation uses: capacity (dynamic) or sum g_k * G (static)."""
        if self.allocation == "dynamic":
            return float(self.capacity or 0.0)
        return sum(self.granules) * instance.platform.granule


def _read_drain_schedule(raw: Any, count: int) -> DrainSchedule:
    """The ``drain_schedule`` of a static solution file, checked (strictly increasing times, one row per app)."""
    raw = require_dict(raw, "drain_schedule")
    require_known_keys(raw, DRAIN_SCHEDULE_KEYS, "drain_schedule", "a drain schedule")
    times = number_list(require_key(raw, "times", "drain_schedule"), "drain_schedule.times", minimum=0)
    if len(times) < 2:
        raise InvalidInstanceError("drain_schedule.times", "needs at least 2 instants")
    for j in range(1, len(times)):
        if times[j] <= times[j - 1]:
            raise InvalidInstanceError(f"drain_schedule.times[{j}]", "instants must increase strictly")
    rows = require_list(require_key(raw, "rates", "drain_schedule"), "drain_schedule.rates", length=count)
    table = tuple(
        number_list(row, f"drain_schedule.rates[{k}]", minimum=0, length=len(times) - 1) for k, row in enumerate(rows)
    )
    return DrainSchedule(times, table)
