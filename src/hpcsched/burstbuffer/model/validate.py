"""`validate` and `evaluate`: allocation rules, then the event simulation of ``fluid.py``.

Both need the same simulation, and the registry calls `validate`, then
`evaluate`, on the same two objects: `replay` keeps the last simulation, keyed
by the identity of the instance and the solution (both immutable), so a
solved answer is simulated once.
"""

from __future__ import annotations

import itertools
import math
import numbers
import weakref
from typing import Any

from ...core.violation import Violation
from .data import TOLERANCE, Instance
from .fluid import simulate
from .solution import ALLOCATIONS, DRAIN_POLICIES, DrainSchedule, Solution
from .trace import Trace

#: The last (instance, solution) simulated by `replay`, as weak references, and its trace.
_LAST: tuple[weakref.ref[Instance], weakref.ref[Solution], Trace] | None = None


def replay(instance: Instance, solution: Solution) -> Trace:
    """The simulation of ``solution`` on ``instance``, reused when the same two objects come again.

    The trace is shared: callers read it and never change it.
    """
    global _LAST
    last = _LAST
    if last is not None and last[0]() is instance and last[1]() is solution:
        return last[2]
    trace = simulate(instance, solution)
    _LAST = (weakref.ref(instance), weakref.ref(solution), trace)
    return trace


def _is_real(value: Any) -> bool:
    """A finite real number (bools and NaN/inf are not: JSON ``true`` is no rate)."""
    if type(value) is float:  # the common case first: the ABC check costs a microsecond per value
        return math.isfinite(value)
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _is_count(value: Any) -> bool:
    """A whole number of granules: an integer type, not a float (1.5 granules do not exist)."""
    return type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, bool))


def _dynamic_values(solution: Solution) -> list[Violation]:
    found = []
    if not _is_real(solution.capacity) or solution.capacity < 0:  # type: ignore[operator]
        found.append(
            Violation("allocation", f"dynamic capacity must be a finite number >= 0, got {solution.capacity!r}")
        )
    if solution.drain_policy not in DRAIN_POLICIES:
        found.append(
            Violation(
                "allocation", f"drain_policy must be one of {', '.join(DRAIN_POLICIES)}, got {solution.drain_policy!r}"
            )
        )
    return found


def _schedule_values(schedule: DrainSchedule, count: int) -> list[Violation]:
    times = schedule.times
    if not isinstance(times, (tuple, list)) or len(times) < 2 or not all(_is_real(t) and t >= 0 for t in times):
        return [Violation("allocation", "drain_schedule.times must be at least 2 finite instants >= 0")]
    if any(b <= a for a, b in itertools.pairwise(times)):
        return [Violation("allocation", "drain_schedule.times must increase strictly")]
    if not isinstance(schedule.rates, (tuple, list)) or len(schedule.rates) != count:
        return [Violation("allocation", f"drain_schedule needs {count} rows")]
    found = []
    for k, row in enumerate(schedule.rates):
        if not isinstance(row, (tuple, list)) or len(row) != len(times) - 1:
            found.append(Violation("allocation", f"drain_schedule.rates[{k}] needs {len(times) - 1} rates"))
        elif not all(_is_real(x) and x >= 0 for x in row):
            found.append(Violation("allocation", f"drain_schedule.rates[{k}] must be finite numbers >= 0"))
    return found


def _static_values(solution: Solution, count: int) -> list[Violation]:
    granules, rates = solution.granules, solution.drain_rates
    if not isinstance(granules, (tuple, list)) or not isinstance(rates, (tuple, list)):
        return [Violation("allocation", "granules and drain_rates must be sequences")]
    if len(granules) != count or len(rates) != count:
        return [
            Violation(
                "allocation",
                f"static allocation needs {count} granule counts and drain rates, got {len(granules)} and {len(rates)}",
            )
        ]
    found = []
    for k, g in enumerate(granules):
        if not _is_count(g):
            found.append(Violation("allocation", f"granules[{k}] must be a whole number of granules, got {g!r}"))
        elif g < 0:
            found.append(Violation("allocation", f"granules[{k}] must be >= 0, got {g}"))
    for k, d in enumerate(rates):
        if not _is_real(d) or d < 0:
            found.append(Violation("allocation", f"drain_rates[{k}] must be a finite number >= 0, got {d!r}"))
    if solution.drain_schedule is not None:
        found.extend(_schedule_values(solution.drain_schedule, count))
    return found


def value_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """Rules on the values of the solution object (its shape, types, signs, lengths).

    `Solution.from_data` and the constructors check these already, but a
    Solution can be built directly (``Solution("static", granules=(1.5,),
    drain_rates=(-3.0,))``) and the validator must not trust its producer:
    a negative drain rate lets another application drain faster than the
    file system allows, and a NaN makes every comparison False.
    Any violation here has rule ``allocation`` and stops the validation.
    """
    if solution.allocation not in ALLOCATIONS:
        return [
            Violation("allocation", f"allocation must be one of {', '.join(ALLOCATIONS)}, got {solution.allocation!r}")
        ]
    if solution.allocation == "dynamic":
        return _dynamic_values(solution)
    return _static_values(solution, instance.num_applications)


def _kind_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """The allocation kind the objective asks for."""
    found = []
    if instance.objective == "sizing-dynamic" and solution.allocation != "dynamic":
        found.append(Violation("allocation", "objective 'sizing-dynamic' asks for a dynamic allocation"))
    if instance.objective == "sizing-static" and solution.allocation != "static":
        found.append(Violation("allocation", "objective 'sizing-static' asks for a static allocation"))
    return found


def _schedule_drain_violations(schedule: DrainSchedule, bandwidth: float) -> list[Violation]:
    """The first interval of a drain schedule that reserves more than B."""
    for j in range(len(schedule.times) - 1):
        total = math.fsum(row[j] for row in schedule.rates)
        if total > bandwidth * (1 + TOLERANCE):
            return [
                Violation(
                    "drain",
                    f"drain schedule reserves {total:.6g} > B on "
                    f"[{schedule.times[j]:.6g}, {schedule.times[j + 1]:.6g})",
                )
            ]
    return []


def _static_rules(instance: Instance, solution: Solution) -> list[Violation]:
    """Granules within N (sharing), reserved drain within B, constant rates under sharing."""
    platform, sharing = instance.platform, instance.objective == "sharing"
    found = []
    if sharing and solution.drain_schedule is not None:
        found.append(
            Violation("allocation", "sharing decisions are constant drain rates; drain_schedule is for sizing")
        )
    if sharing and sum(solution.granules) > platform.granules:
        found.append(
            Violation(
                "capacity", f"{sum(solution.granules)} granules allocated, the buffer has N = {platform.granules}"
            )
        )
    # fsum: exact sum, so the 1e-9 tolerance is the spec's and not summation noise on top
    reserved = math.fsum(solution.drain_rates)
    if reserved > platform.pfs_bandwidth * (1 + TOLERANCE):
        found.append(
            Violation("drain", f"reserved drain rates sum to {reserved:.6g} > B = {platform.pfs_bandwidth:.6g}")
        )
    if solution.drain_schedule is not None:
        found.extend(_schedule_drain_violations(solution.drain_schedule, platform.pfs_bandwidth))
    return found


def allocation_violations(instance: Instance, solution: Solution) -> list[Violation]:
    """Rules on the allocation itself (before simulating)."""
    found = value_violations(instance, solution)
    if found:
        return found
    found = _kind_violations(instance, solution)
    if solution.allocation == "static":
        return found + _static_rules(instance, solution)
    capacity = float(solution.capacity or 0.0)
    if instance.objective == "sharing" and capacity > instance.platform.capacity * (1 + TOLERANCE):
        found.append(
            Violation(
                "capacity", f"dynamic capacity {capacity:.6g} > platform capacity S = {instance.platform.capacity:.6g}"
            )
        )
    return found


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every broken rule of ``solution`` ([] means feasible).

    Allocation rules first (kind, granules <= N, reserved drain <= B), then
    the event-driven simulation, which checks occupancy <= capacity, total
    drain <= B and write rates <= r_k at every event, detects starvation and,
    for the sizing objectives, any slowdown (dilation > 1 + 1e-9).
    """
    found = allocation_violations(instance, solution)
    if any(v.rule == "allocation" for v in found):
        return found
    trace = replay(instance, solution)
    found.extend(trace.violations)
    if instance.objective != "sharing":
        for k, app in enumerate(instance.applications):
            dilation = trace.dilation(k)
            if math.isfinite(dilation) and dilation > 1 + TOLERANCE:
                found.append(
                    Violation(
                        "slowdown", f"{app.name} is slowed down (dilation {dilation:.9g}) but sizing asks for none"
                    )
                )
    return found


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Objective and KPIs.

    ``objective`` is the max dilation for ``sharing`` and the buffer size
    (bytes) for the sizing objectives. KPIs: ``max_dilation``,
    ``mean_dilation``, ``efficiency``, ``peak_occupancy`` (bytes), ``size``
    (bytes), and ``dilation[<name>]`` per application.
    """
    trace = replay(instance, solution)
    dilations = [trace.dilation(k) for k in range(instance.num_applications)]
    size = solution.size(instance)
    kpis: dict[str, float] = {
        "max_dilation": max(dilations),
        "mean_dilation": sum(dilations) / len(dilations),
        "efficiency": trace.efficiency(),
        "peak_occupancy": trace.peak_occupancy,
        "size": size,
    }
    for app, dilation in zip(instance.applications, dilations, strict=True):
        kpis[f"dilation[{app.name}]"] = dilation
    kpis["objective"] = kpis["max_dilation"] if instance.objective == "sharing" else size
    return kpis
