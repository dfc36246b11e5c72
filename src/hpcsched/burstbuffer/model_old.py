"""Data model of the burstbuffer problem: Instance, Solution, evaluate, validate.

Applications alternate compute phases and I/O bursts; bursts go through a
burst buffer (BB) that drains to the parallel file system (PFS) of bandwidth
B. The model is a fluid model in continuous time (seconds, bytes, floats).

Modelling choices (where the spec leaves room)
----------------------------------------------
* **One Instance, three problems.** ``data.objective`` says which problem the
  instance poses (default ``"sharing"``):

  - ``"sharing"``: fair sharing of the platform's buffer. The decision is a
    *static* allocation with constant reserved drain rates ``(g_k, d_k)``,
    ``sum g_k <= N = floor(S/G)``, ``sum d_k <= B``; objective = maximum
    dilation. A *dynamic* allocation of capacity ``<= S`` is accepted too,
    as the reference point of the spec (problem 3): it lies outside the
    static solution space, so it may beat the static optimum (methods that
    return one say so in their notes).
  - ``"sizing-dynamic"``: smallest shared buffer with no slowdown; the
    solution must be dynamic, every dilation must be 1 (relative tolerance
    1e-9) and the objective is the buffer size ``capacity`` (bytes).
  - ``"sizing-static"``: smallest partitioned buffer with no slowdown; the
    solution must be static (whole granules, a reserved drain rate or a
    piecewise-constant reserved drain schedule per application), every
    dilation must be 1 and the objective is ``sum g_k * G`` (bytes).

  For the sizing problems the platform capacity ``S`` is not a constraint (the
  question is which ``S`` is needed); the granule ``G`` still defines the
  static partitions.
* **Dilation** of application k = (completion - release) / nominal time, where
  completion is the instant its last burst has been *accepted* by the buffer
  (the application does not wait for the drain), and nominal time is
  ``n_k (w_k + v_k / r_k)``.
* **System efficiency** = sum_k nodes_k * (n_k w_k) / (C_k - release_k),
  divided by sum_k nodes_k: the node-weighted fraction of time spent computing
  (the SysEfficiency of the periodic-I/O papers of the same group).
* **Dynamic drain policy** (``"proportional"`` to backlog, ``"fifo"``, or
  ``"equal"`` share among non-empty buffers):
  the PFS is work-conserving (drains at B while the buffer holds data), and
  admission depends only on the total occupancy (throttled writers share the
  freed room in proportion to r_k), so completion times do not depend on the
  policy; the policy only decides whose data leaves first, i.e. the
  per-application occupancy (plotted, and checked to be non-negative).
* **Static drain**: application k's buffer drains at its reserved rate d_k(t)
  while non-empty; an empty buffer passes writes through up to d_k(t). A
  ``drain_schedule`` (times t_0 < ... < t_m and one rate per application and
  interval) overrides ``drain_rates`` on [t_0, t_m); it exists for the static
  sizing LP, whose drain varies over time, and is refused under ``sharing``
  (the spec's sharing decision is a constant ``(g_k, d_k)``).
* An application that can never finish (e.g. no buffer room left and a drain
  rate of 0) is a violation (``starvation``), not an infinite objective.

The validator is the event-driven simulator of `hpcsched.burstbuffer.fluid`,
written from the definition; it shares no code with the formulations and the
heuristics (which use the per-application recurrence of ``simulate.py``).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..core.errors import InvalidInstanceError
from ..core.fields import (
    int_list,
    number_list,
    require_dict,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)
from ..core.violation import Violation

OBJECTIVES = ("sharing", "sizing-dynamic", "sizing-static")
DRAIN_POLICIES = ("proportional", "fifo", "equal")
ALLOCATIONS = ("dynamic", "static")

# The keys of every record of the files: any other key is refused (a misspelt optional
# field, "objectve" or "node", would otherwise be ignored and its default used).
DATA_KEYS = ("platform", "applications", "objective")
PLATFORM_KEYS = ("pfs_bandwidth", "capacity", "granule")
APPLICATION_KEYS = ("name", "release", "iterations", "compute", "volume", "rate", "nodes")
SOLUTION_KEYS = {"dynamic": ("allocation", "capacity", "drain_policy"),
                 "static": ("allocation", "granules", "drain_rates", "drain_schedule")}
DRAIN_SCHEDULE_KEYS = ("times", "rates")

#: Relative tolerance of every check of the validator.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Platform:
    """PFS bandwidth B (bytes/s), buffer capacity S (bytes), granule G (bytes)."""

    pfs_bandwidth: float
    capacity: float
    granule: float

    @property
    def granules(self) -> int:
        """N = floor(S / G), the number of whole granules (tolerant to float noise)."""
        return int(math.floor(self.capacity / self.granule * (1 + 1e-12)))


@dataclass(frozen=True)
class Application:
    """A periodic application: ``iterations`` x (``compute`` s, then a burst of ``volume`` bytes)."""

    name: str
    release: float
    iterations: int
    compute: float
    volume: float
    rate: float
    nodes: int = 1

    @property
    def burst_time(self) -> float:
        """Nominal duration v/r of one burst."""
        return self.volume / self.rate

    @property
    def period(self) -> float:
        """Nominal iteration length T = w + v/r."""
        return self.compute + self.volume / self.rate

    @property
    def nominal_time(self) -> float:
        """Nominal execution time n (w + v/r)."""
        return self.iterations * self.period

    @property
    def io_rate(self) -> float:
        """Nominal (long-run) I/O rate v / T."""
        return self.volume / self.period


def _check_application(raw: Any, field: str) -> Application:
    raw = require_dict(raw, field)
    require_known_keys(raw, APPLICATION_KEYS, field, "an application")
    name = require_str(require_key(raw, "name", field), f"{field}.name")
    release = require_number(require_key(raw, "release", field), f"{field}.release", minimum=0)
    iterations = require_int(require_key(raw, "iterations", field), f"{field}.iterations", minimum=1)
    compute = require_number(require_key(raw, "compute", field), f"{field}.compute", minimum=0)
    volume = require_number(require_key(raw, "volume", field), f"{field}.volume", strictly_positive=True)
    rate = require_number(require_key(raw, "rate", field), f"{field}.rate", strictly_positive=True)
    nodes = require_int(raw.get("nodes", 1), f"{field}.nodes", minimum=1)
    return Application(name, release, iterations, compute, volume, rate, nodes)


#: Longest timeline, in shortest bursts, that doubles resolve to the validator's 1e-9 (see below).
TIME_RESOLUTION = 1e5


def _check_time_resolution(apps: tuple[Application, ...]) -> None:
    """Refuse a timeline too long for its shortest burst to be resolved in doubles.

    Every instant is a double: at time H one rounding costs H * 1.1e-16 s.
    A burst of b seconds at time H is then timed to H / b * 1.1e-16 of its
    length per operation; with H <= 1e5 b that stays near 1e-11, below the
    1e-9 tolerance of the validator even after many events. Beyond it a
    release of 2^52 s with a 1/3 s burst rounds the burst away and reports a
    dilation below 1.
    """
    shortest = min(range(len(apps)), key=lambda k: apps[k].burst_time)
    latest = max(range(len(apps)), key=lambda k: apps[k].release + apps[k].nominal_time)
    horizon = apps[latest].release + apps[latest].nominal_time
    burst = apps[shortest].burst_time
    if not math.isfinite(horizon) or horizon > TIME_RESOLUTION * burst:
        raise InvalidInstanceError(
            f"data.applications[{latest}].release",
            f"the timeline ends at {horizon:.6g} s, more than {TIME_RESOLUTION:g} times the shortest burst "
            f"({burst:.6g} s, application {shortest}): doubles cannot time it to the validator's 1e-9")


@dataclass(frozen=True)
class Instance:
    """A burst-buffer instance (see the module docstring for the three objectives)."""

    name: str
    platform: Platform
    applications: tuple[Application, ...]
    objective: str = "sharing"
    source: Mapping[str, Any] = field(default_factory=dict)
    time_unit: str | None = "s"

    def __post_init__(self) -> None:
        # Instances built in code go through the same checks as files.
        Instance.from_data(self.to_data(), name=self.name, time_unit=self.time_unit, source=dict(self.source))

    @property
    def num_applications(self) -> int:
        return len(self.applications)

    @property
    def io_load(self) -> float:
        """Long-run I/O load sum_k v_k/T_k divided by B."""
        return sum(app.io_rate for app in self.applications) / self.platform.pfs_bandwidth

    def with_objective(self, objective: str) -> "Instance":
        """The same data posing another problem (``sharing``/``sizing-dynamic``/``sizing-static``)."""
        return Instance(self.name, self.platform, self.applications, objective, self.source, self.time_unit)

    def with_capacity(self, capacity: float, granule: float | None = None) -> "Instance":
        """The same instance with another buffer capacity (and granule)."""
        platform = Platform(self.platform.pfs_bandwidth, capacity, granule or self.platform.granule)
        return Instance(self.name, platform, self.applications, self.objective, self.source, self.time_unit)

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None = "s", source: dict | None = None) -> "Instance":
        """Build and check an Instance from the ``data`` section of a file."""
        data = require_dict(data, "data")
        if time_unit not in (None, "s"):
            raise InvalidInstanceError("time_unit", f"burstbuffer times are in seconds ('s'), got {time_unit!r}")
        require_known_keys(data, DATA_KEYS, "data", "a burstbuffer instance")
        raw_platform = require_dict(require_key(data, "platform", "data"), "data.platform")
        require_known_keys(raw_platform, PLATFORM_KEYS, "data.platform", "the platform")
        bandwidth = require_number(
            require_key(raw_platform, "pfs_bandwidth", "data.platform"), "data.platform.pfs_bandwidth", strictly_positive=True
        )
        capacity = require_number(require_key(raw_platform, "capacity", "data.platform"), "data.platform.capacity", minimum=0)
        granule = require_number(
            require_key(raw_platform, "granule", "data.platform"), "data.platform.granule", strictly_positive=True
        )
        raw_apps = require_list(require_key(data, "applications", "data"), "data.applications", min_length=1)
        apps = tuple(_check_application(raw, f"data.applications[{k}]") for k, raw in enumerate(raw_apps))
        seen: dict[str, int] = {}
        for k, app in enumerate(apps):
            if app.name in seen:
                raise InvalidInstanceError(f"data.applications[{k}].name", f"duplicate name {app.name!r} (also [{seen[app.name]}])")
            seen[app.name] = k
        objective = require_str(data.get("objective", "sharing"), "data.objective", choices=OBJECTIVES)
        _check_time_resolution(apps)
        platform = Platform(bandwidth, capacity, granule)
        instance = object.__new__(cls)
        for key, value in (
            ("name", name),
            ("platform", platform),
            ("applications", apps),
            ("objective", objective),
            ("source", dict(source or {})),
            ("time_unit", "s" if time_unit is None else time_unit),
        ):
            object.__setattr__(instance, key, value)
        return instance

    def to_data(self) -> dict:
        """The ``data`` section of the instance file."""
        data: dict[str, Any] = {
            "platform": {
                "pfs_bandwidth": self.platform.pfs_bandwidth,
                "capacity": self.platform.capacity,
                "granule": self.platform.granule,
            },
            "applications": [
                {
                    "name": app.name,
                    "release": app.release,
                    "iterations": app.iterations,
                    "compute": app.compute,
                    "volume": app.volume,
                    "rate": app.rate,
                    "nodes": app.nodes,
                }
                for app in self.applications
            ],
        }
        if self.objective != "sharing":
            data["objective"] = self.objective
        return data


@dataclass(frozen=True)
class DrainSchedule:
    """Piecewise-constant reserved drain rates: ``rates[k][j]`` on ``[times[j], times[j+1])``."""

    times: tuple[float, ...]
    rates: tuple[tuple[float, ...], ...]

    def rate(self, app: int, t: float) -> float | None:
        """Rate of ``app`` at ``t``, or None outside ``[t_0, t_m)``."""
        import bisect

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
    def dynamic(cls, capacity: float, drain_policy: str = "proportional") -> "Solution":
        require_number(capacity, "capacity", minimum=0)
        require_str(drain_policy, "drain_policy", choices=DRAIN_POLICIES)
        return cls("dynamic", capacity=float(capacity), drain_policy=drain_policy)

    @classmethod
    def static(cls, granules, drain_rates, drain_schedule: DrainSchedule | None = None) -> "Solution":
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
    def from_data(cls, data: dict, *, instance: Instance) -> "Solution":
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
            raw = require_dict(data["drain_schedule"], "drain_schedule")
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
            schedule = DrainSchedule(times, table)
        return cls("static", granules=granules, drain_rates=rates, drain_schedule=schedule)

    def size(self, instance: Instance) -> float:
        """Buffer size the allocation uses: capacity (dynamic) or sum g_k * G (static)."""
        if self.allocation == "dynamic":
            return float(self.capacity)
        return sum(self.granules) * instance.platform.granule


def _is_real(value: Any) -> bool:
    """A finite real number (bools and NaN/inf are not: JSON ``true`` is no rate)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _is_count(value: Any) -> bool:
    """A whole number of granules: an integer type, not a float (1.5 granules do not exist)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _value_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """Rules on the values of the solution object (its shape, types, signs, lengths).

    `Solution.from_data` and the constructors check these already, but a
    Solution can be built directly (``Solution("static", granules=(1.5,),
    drain_rates=(-3.0,))``) and the validator must not trust its producer:
    a negative drain rate lets another application drain faster than the
    file system allows, and a NaN makes every comparison False.
    Any violation here has rule ``allocation`` and stops the validation.
    """
    found: list[Violation] = []
    if solution.allocation not in ALLOCATIONS:
        return [Violation("allocation", f"allocation must be one of {', '.join(ALLOCATIONS)}, got {solution.allocation!r}")]
    if solution.allocation == "dynamic":
        if not _is_real(solution.capacity) or solution.capacity < 0:
            found.append(Violation("allocation", f"dynamic capacity must be a finite number >= 0, got {solution.capacity!r}"))
        if solution.drain_policy not in DRAIN_POLICIES:
            found.append(Violation("allocation", f"drain_policy must be one of {', '.join(DRAIN_POLICIES)}, got {solution.drain_policy!r}"))
        return found
    count = instance.num_applications
    granules, rates = solution.granules, solution.drain_rates
    if not isinstance(granules, (tuple, list)) or not isinstance(rates, (tuple, list)):
        return [Violation("allocation", "granules and drain_rates must be sequences")]
    if len(granules) != count or len(rates) != count:
        return [Violation("allocation", f"static allocation needs {count} granule counts and drain rates, "
                                        f"got {len(granules)} and {len(rates)}")]
    for k, g in enumerate(granules):
        if not _is_count(g):
            found.append(Violation("allocation", f"granules[{k}] must be a whole number of granules, got {g!r}"))
        elif g < 0:
            found.append(Violation("allocation", f"granules[{k}] must be >= 0, got {g}"))
    for k, d in enumerate(rates):
        if not _is_real(d) or d < 0:
            found.append(Violation("allocation", f"drain_rates[{k}] must be a finite number >= 0, got {d!r}"))
    schedule = solution.drain_schedule
    if schedule is not None:
        times = schedule.times
        if not isinstance(times, (tuple, list)) or len(times) < 2 or not all(_is_real(t) and t >= 0 for t in times):
            found.append(Violation("allocation", "drain_schedule.times must be at least 2 finite instants >= 0"))
        elif any(b <= a for a, b in zip(times, times[1:])):
            found.append(Violation("allocation", "drain_schedule.times must increase strictly"))
        elif not isinstance(schedule.rates, (tuple, list)) or len(schedule.rates) != count:
            found.append(Violation("allocation", f"drain_schedule needs {count} rows"))
        else:
            for k, row in enumerate(schedule.rates):
                if not isinstance(row, (tuple, list)) or len(row) != len(times) - 1:
                    found.append(Violation("allocation", f"drain_schedule.rates[{k}] needs {len(times) - 1} rates"))
                elif not all(_is_real(x) and x >= 0 for x in row):
                    found.append(Violation("allocation", f"drain_schedule.rates[{k}] must be finite numbers >= 0"))
    return found


def _allocation_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """Rules on the allocation itself (before simulating)."""
    found: list[Violation] = _value_violations(instance, solution)
    if found:
        return found
    platform = instance.platform
    objective = instance.objective
    if objective == "sizing-dynamic" and solution.allocation != "dynamic":
        found.append(Violation("allocation", "objective 'sizing-dynamic' asks for a dynamic allocation"))
    if objective == "sizing-static" and solution.allocation != "static":
        found.append(Violation("allocation", "objective 'sizing-static' asks for a static allocation"))
    if solution.allocation == "static":
        count = instance.num_applications
        if len(solution.granules) != count or len(solution.drain_rates) != count:
            found.append(Violation("allocation", f"static allocation needs {count} granule counts and drain rates"))
            return found
        if objective == "sharing" and solution.drain_schedule is not None:
            found.append(Violation("allocation", "sharing decisions are constant drain rates; drain_schedule is for sizing"))
        if objective == "sharing" and sum(solution.granules) > platform.granules:
            found.append(
                Violation("capacity", f"{sum(solution.granules)} granules allocated, the buffer has N = {platform.granules}")
            )
        # fsum: exact sum, so the 1e-9 tolerance is the spec's and not summation noise on top
        reserved = math.fsum(solution.drain_rates)
        if reserved > platform.pfs_bandwidth * (1 + TOLERANCE):
            found.append(Violation("drain", f"reserved drain rates sum to {reserved:.6g} > B = {platform.pfs_bandwidth:.6g}"))
        schedule = solution.drain_schedule
        if schedule is not None:
            if len(schedule.rates) != count:
                found.append(Violation("allocation", f"drain_schedule needs {count} rows"))
                return found
            for j in range(len(schedule.times) - 1):
                total = math.fsum(row[j] for row in schedule.rates)
                if total > platform.pfs_bandwidth * (1 + TOLERANCE):
                    found.append(
                        Violation(
                            "drain",
                            f"drain schedule reserves {total:.6g} > B on [{schedule.times[j]:.6g}, {schedule.times[j + 1]:.6g})",
                        )
                    )
                    break
    else:
        if objective == "sharing" and solution.capacity > platform.capacity * (1 + TOLERANCE):
            found.append(Violation("capacity", f"dynamic capacity {solution.capacity:.6g} > platform capacity S = {platform.capacity:.6g}"))
    return found


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every broken rule of ``solution`` ([] means feasible).

    Allocation rules first (kind, granules <= N, reserved drain <= B), then
    the event-driven simulation, which checks occupancy <= capacity, total
    drain <= B and write rates <= r_k at every event, detects starvation and,
    for the sizing objectives, any slowdown (dilation > 1 + 1e-9).
    """
    from .fluid import simulate

    found = _allocation_violations(instance, solution)
    if any(v.rule == "allocation" for v in found):
        return found
    trace = simulate(instance, solution)
    found.extend(trace.violations)
    if instance.objective != "sharing":
        for k, app in enumerate(instance.applications):
            dilation = trace.dilation(k)
            if math.isfinite(dilation) and dilation > 1 + TOLERANCE:
                found.append(Violation("slowdown", f"{app.name} is slowed down (dilation {dilation:.9g}) but sizing asks for none"))
    return found


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Objective and KPIs.

    ``objective`` is the max dilation for ``sharing`` and the buffer size
    (bytes) for the sizing objectives. KPIs: ``max_dilation``,
    ``mean_dilation``, ``efficiency``, ``peak_occupancy`` (bytes), ``size``
    (bytes), and ``dilation[<name>]`` per application.
    """
    from .fluid import simulate

    trace = simulate(instance, solution)
    dilations = [trace.dilation(k) for k in range(instance.num_applications)]
    size = solution.size(instance)
    kpis: dict[str, float] = {
        "max_dilation": max(dilations),
        "mean_dilation": sum(dilations) / len(dilations),
        "efficiency": trace.efficiency(),
        "peak_occupancy": trace.peak_occupancy,
        "size": size,
    }
    for app, dilation in zip(instance.applications, dilations):
        kpis[f"dilation[{app.name}]"] = dilation
    kpis["objective"] = kpis["max_dilation"] if instance.objective == "sharing" else size
    return kpis


_NUMBER = {"type": "number", "minimum": 0}
DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "burstbuffer instance data",
    "type": "object",
    "additionalProperties": False,
    "required": ["platform", "applications"],
    "properties": {
        "objective": {"enum": list(OBJECTIVES), "default": "sharing"},
        "platform": {
            "type": "object",
            "additionalProperties": False,
            "required": ["pfs_bandwidth", "capacity", "granule"],
            "properties": {
                "pfs_bandwidth": {"type": "number", "exclusiveMinimum": 0, "description": "B, bytes/s"},
                "capacity": {**_NUMBER, "description": "S, bytes"},
                "granule": {"type": "number", "exclusiveMinimum": 0, "description": "G, bytes"},
            },
        },
        "applications": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "release", "iterations", "compute", "volume", "rate"],
                "properties": {
                    "name": {"type": "string"},
                    "release": {**_NUMBER, "description": "s"},
                    "iterations": {"type": "integer", "minimum": 1},
                    "compute": {**_NUMBER, "description": "s per iteration"},
                    "volume": {"type": "number", "exclusiveMinimum": 0, "description": "bytes per iteration"},
                    "rate": {"type": "number", "exclusiveMinimum": 0, "description": "bytes/s into the buffer"},
                    "nodes": {"type": "integer", "minimum": 1},
                },
            },
        },
    },
}
