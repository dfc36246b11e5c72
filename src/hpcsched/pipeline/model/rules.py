"""`evaluate` and `validate`, written from the definition (docs/pipeline.md) and nothing else.

Makespan schedules: every execution (micro-batch m, block b) runs on
``[start[m][b], start[m][b] + duration_b)``. Periodic schedules: the same
with ``+ k P`` for every integer k, checked on one period by reducing
times modulo P. The simulator (`hpcsched.pipeline.simulate`) is not used
here.
"""

from __future__ import annotations

import itertools

from ...core.errors import InfeasibleError
from ...core.memo import LastOf
from ...core.violation import Violation
from .instance import Instance
from .screen import Screen
from .solution import Solution

#: The last (instance, solution) screened and its arrays: the registry's validate and evaluate share them.
_last_screen: LastOf[Screen | None] = LastOf()


def _screen(instance: Instance, solution: Solution) -> Screen | None:
    """The arrays of a well-shaped ``solution`` (None: ill-shaped, or values beyond int64), computed once per pair."""
    return _last_screen.get(
        (instance, solution),
        lambda: None if _shape_violations(instance, solution) else Screen.of(instance, solution),
    )


def require_fits(instance: Instance) -> None:
    """Raise `InfeasibleError` naming the first block whose allocation alone exceeds its device's limit.

    Such an instance is legal data with no schedule (docs/pipeline.md): every
    method calls this first and answers INFEASIBLE.
    """
    for b, block in enumerate(instance.blocks):
        for device in block.devices:
            limit = instance.memory_limit[device]
            if limit is not None and block.memory > limit:
                raise InfeasibleError(
                    f"block {b} '{block.name}' allocates {block.memory} on device {device}, whose limit is {limit}"
                )


def memory_events(instance: Instance, solution: Solution, device: int) -> list[tuple[int, int]]:
    """``(time, delta)`` of every memory event on ``device``: allocations at starts, frees at ends."""
    events = []
    for row in solution.start:
        for b in instance.device_blocks(device):
            block = instance.blocks[b]
            if block.memory > 0:
                events.append((row[b], block.memory))
            elif block.memory < 0:
                events.append((row[b] + block.duration, block.memory))
    return events


def makespan_levels(instance: Instance, solution: Solution, device: int) -> list[tuple[int, int]]:
    """``(time, level from that time on)`` at every time the level of ``device`` may change.

    All events of an instant are applied together, i.e. the frees at t come
    before the allocations at t.
    """
    deltas: dict[int, int] = {}
    for time, delta in memory_events(instance, solution, device):
        deltas[time] = deltas.get(time, 0) + delta
    levels, level = [], 0
    for time in sorted(deltas):
        level += deltas[time]
        levels.append((time, level))
    return levels


def steady_state_levels(instance: Instance, solution: Solution, device: int) -> list[tuple[int, int]]:
    """``(phase, level from that phase on)`` of the steady state of a periodic schedule, phases in [0, P).

    The level at t is ``sum over events e of delta_e * floor((t - e) / P)``:
    an event at e counts once for every repetition ``e + kP <= t``, and the
    infinite count cancels because each micro-batch's deltas on a device sum
    to 0 (docs/pipeline.md, "The steady-state level"). With e = qP + rho
    (0 <= rho < P) and t in [0, P), floor((t - e)/P) = -q - [rho > t], so
    the level is ``-sum delta_e q_e - sum_{rho_e > t} delta_e``.
    """
    period = solution.period
    assert period is not None and period >= 1
    base = 0
    by_phase: dict[int, int] = {}
    for time, delta in memory_events(instance, solution, device):
        lap, phase = divmod(time, period)
        base -= delta * lap
        by_phase[phase] = by_phase.get(phase, 0) + delta
    # level at t = base - sum over phases > t; sweep the phases upward
    above = sum(by_phase.values())
    levels = [(0, base - (above - by_phase.get(0, 0)))] if 0 not in by_phase else []
    for phase in sorted(by_phase):
        above -= by_phase[phase]
        levels.append((phase, base - above))
    return levels


def device_peaks(instance: Instance, solution: Solution) -> list[int]:
    """Per device, the highest memory level of the schedule (steady state for a period)."""
    levels = steady_state_levels if solution.period is not None else makespan_levels
    return [max((level for _, level in levels(instance, solution, d)), default=0) for d in range(instance.devices)]


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """The objective and KPIs of a schedule.

    Makespan: ``objective`` = ``makespan`` = the last end; ``bubble`` = idle
    fraction of the devices before it, 1 - sum work / (D makespan).
    Period: ``objective`` = ``period`` = P; ``throughput`` = R / P micro-batches
    per time unit; ``bubble`` = 1 - R sum work / (D P); ``latency`` = the
    longest time from a micro-batch's first start to its last end. Both:
    ``peak_memory`` (the largest over devices) and ``peak_memory_<d>``.
    """
    work = sum(instance.work())
    screen = _screen(instance, solution)
    peaks = list(screen.peaks) if screen is not None else device_peaks(instance, solution)
    kpis: dict[str, float] = {"peak_memory": float(max(peaks))}
    kpis.update({f"peak_memory_{d}": float(peak) for d, peak in enumerate(peaks)})
    if solution.period is None:
        if screen is not None:
            makespan = int(screen.ends.max())
        else:
            makespan = max(
                s + block.duration for row in solution.start for s, block in zip(row, instance.blocks, strict=True)
            )
        return {
            "objective": float(makespan),
            "makespan": float(makespan),
            "bubble": 1 - instance.micro_batches * work / (instance.devices * makespan),
            **kpis,
        }
    period = solution.period
    if screen is not None:
        latency = int((screen.ends.max(axis=1) - screen.starts.min(axis=1)).max())
    else:
        ends = [[s + block.duration for s, block in zip(row, instance.blocks, strict=True)] for row in solution.start]
        latency = max(max(end) - min(row) for end, row in zip(ends, solution.start, strict=True))
    return {
        "objective": float(period),
        "period": float(period),
        "throughput": instance.micro_batches / period,
        "bubble": 1 - instance.micro_batches * work / (instance.devices * period),
        "latency": float(latency),
        **kpis,
    }


def _shape_violations(instance: Instance, solution: Solution) -> list[Violation]:
    if instance.is_period and solution.period is None:
        return [Violation("size", "a period instance needs a periodic solution (period and offset)")]
    if not instance.is_period and solution.period is not None:
        return [Violation("size", "a makespan instance needs start times, not a period")]
    if solution.period is not None and solution.period < 1:
        return [Violation("period", f"the period must be >= 1, got {solution.period}")]
    rows = solution.start
    if len(rows) != instance.micro_batches or any(len(row) != instance.n_blocks for row in rows):
        return [
            Violation(
                "size",
                f"expected {instance.micro_batches} micro-batches x {instance.n_blocks} blocks, got "
                f"{len(rows)} rows of lengths {sorted({len(row) for row in rows})}",
            )
        ]
    return []


def _precedence_violations(instance: Instance, solution: Solution) -> list[Violation]:
    found = []
    for m, row in enumerate(solution.start):
        for b, s in enumerate(row):
            if s < 0:
                found.append(Violation("negative-start", f"micro-batch {m} block '{instance.blocks[b].name}' at {s}"))
        for edge in instance.edges:
            ready = row[edge.source] + instance.blocks[edge.source].duration + edge.delay
            if row[edge.target] < ready:
                found.append(
                    Violation(
                        "precedence",
                        f"micro-batch {m}: '{instance.blocks[edge.target].name}' starts at {row[edge.target]}, before "
                        f"'{instance.blocks[edge.source].name}' ends (+ delay {edge.delay}) at {ready}",
                    )
                )
    return found


def _intervals(instance: Instance, solution: Solution, device: int) -> list[tuple[int, int, int, int]]:
    """``(start, end, micro-batch, block)`` of the executions on ``device`` (phases for a period)."""
    period = solution.period
    found = []
    for m, row in enumerate(solution.start):
        for b in instance.device_blocks(device):
            start = row[b] if period is None else row[b] % period
            found.append((start, start + instance.blocks[b].duration, m, b))
    return sorted(found)


def _overlap_violations(instance: Instance, solution: Solution) -> list[Violation]:
    found = []
    period = solution.period
    for device in range(instance.devices):
        runs = _intervals(instance, solution, device)
        pairs = list(itertools.pairwise(runs))
        if period is not None and runs:
            # wrap-around: the first execution of the next period against the last of this one
            first = runs[0]
            pairs.append((runs[-1], (first[0] + period, first[1] + period, first[2], first[3])))
        for (_, end, m, b), (start, _, n, c) in pairs:
            if start < end:
                where = "modulo the period " if period is not None else ""
                found.append(
                    Violation(
                        "overlap",
                        f"device {device}: micro-batch {n} '{instance.blocks[c].name}' starts {where}at {start} "
                        f"while micro-batch {m} '{instance.blocks[b].name}' runs until {end}",
                    )
                )
    return found


def _memory_violations(instance: Instance, solution: Solution) -> list[Violation]:
    found = []
    levels = steady_state_levels if solution.period is not None else makespan_levels
    what = "steady-state level from phase" if solution.period is not None else "level from time"
    for device, limit in enumerate(instance.memory_limit):
        if limit is None:
            continue
        for time, level in levels(instance, solution, device):
            if level > limit:
                found.append(
                    Violation(
                        "memory",
                        f"device {device}: {what} {time} on is {level}, the limit is {limit} (over by {level - limit})",
                    )
                )
                break
    return found


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible).

    Rules: ``size`` (the solution's shape and kind match the instance),
    ``negative-start``, ``precedence`` (every edge inside every micro-batch,
    with its delay), ``overlap`` (one execution at a time per device; for a
    period, modulo P), ``memory`` (the level of every device at every instant
    within its limit; for a period, the steady-state level).
    """
    shape = _shape_violations(instance, solution)
    if shape:
        return shape
    screen = _screen(instance, solution)
    if screen is not None and screen.clean():
        return []
    return (
        _precedence_violations(instance, solution)
        + _overlap_violations(instance, solution)
        + _memory_violations(instance, solution)
    )
