"""The validator (every rule of the definition) and the objective with its KPIs.

Both are written twice over the same definition: in plain Python (exact on
any integers, the reference) and, from `NUMPY_TASKS` tasks on, with numpy
arrays of int64 when every number they form fits (start times within
2^53 of 0, total memory below 2^62): 100,000 tasks take about 0.05 s
instead of about 0.8 s. A rule the arrays find broken is reported by the
Python code, so the messages are the same either way.
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from ...core.fields import LARGEST_INTEGER
from ...core.violation import Violation
from .data import Instance
from .solution import Solution

#: Tasks from which the checks run on numpy arrays (below, the Python loops are as fast).
NUMPY_TASKS = 2_000

#: Largest total memory the arrays sum (int64 holds 2^63 - 1; the levels add and subtract it).
_MEMORY_ROOM = 2**62


class _Columns(NamedTuple):
    """The schedule and the tasks' data as int64 arrays (task order)."""

    start: np.ndarray  # s_i
    compute_start: np.ndarray  # t_i
    transfer: np.ndarray  # c_i
    compute: np.ndarray  # p_i
    memory: np.ndarray  # m_i


def _columns(instance: Instance, solution: Solution) -> _Columns | None:
    """The arrays, or None when the instance is small or a number could leave int64 exactly."""
    n = instance.n
    if n < NUMPY_TASKS or len(solution.transfer_start) != n or len(solution.compute_start) != n:
        return None
    starts = (solution.transfer_start, solution.compute_start)
    if any(max(values) > LARGEST_INTEGER or min(values) < -LARGEST_INTEGER for values in starts):
        return None
    if sum(instance.memory) > _MEMORY_ROOM:
        return None
    data = (*starts, instance.transfer, instance.compute, instance.memory)
    return _Columns(*(np.array(values, dtype=np.int64) for values in data))


def _memory_levels(instance: Instance, solution: Solution) -> list[tuple[int, int]]:
    """``(time, held bytes from that time on)`` at every time the level changes.

    All events at one instant are applied together, which is the definition's
    "a release at x happens before an allocation at x": a task released at x
    and one allocated at x are never counted together.
    """
    deltas: dict[int, int] = {}
    for task, start, compute_start in zip(instance.tasks, solution.transfer_start, solution.compute_start, strict=True):
        end = compute_start + task.compute
        if end <= start:  # empty holding interval: holds nothing
            continue
        deltas[start] = deltas.get(start, 0) + task.memory
        deltas[end] = deltas.get(end, 0) - task.memory
    levels, held = [], 0
    for time in sorted(deltas):
        held += deltas[time]
        levels.append((time, held))
    return levels


def _memory_levels_of(columns: _Columns) -> tuple[np.ndarray, np.ndarray]:
    """`_memory_levels` on the arrays: the instants and the held bytes from each on."""
    end = columns.compute_start + columns.compute
    held = end > columns.start  # empty holding intervals hold nothing
    times = np.concatenate([columns.start[held], end[held]])
    deltas = np.concatenate([columns.memory[held], -columns.memory[held]])
    order = np.argsort(times, kind="stable")
    times, deltas = times[order], deltas[order]
    if not len(times):  # nothing held at all (every task of zero length, or computed before its transfer)
        return times, deltas
    last = np.flatnonzero(np.append(times[1:] != times[:-1], True))  # every event at an instant applied together
    return times[last], np.cumsum(deltas)[last]


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (the objective) and KPIs of a schedule.

    KPIs: ``makespan``; ``peak_memory`` (bytes) and ``peak_memory_fraction``
    (of M); ``link_busy`` = Σc, ``link_idle`` = makespan − Σc; ``device_busy``
    = Σp, ``device_idle`` = makespan − Σp (idle time of the device before the
    last completion, the quantity the orders try to shrink); ``total_wait``
    = Σ (t_i − s_i − c_i), the time data sits on the device before use;
    ``memory_utilisation`` = ∫held / (M · makespan).
    """
    makespan = makespan_of(instance, solution)
    columns = _columns(instance, solution)
    if columns is None:
        levels = _memory_levels(instance, solution)
        instants, held = [time for time, _ in levels], [level for _, level in levels]
    else:
        times, amounts = _memory_levels_of(columns)
        instants, held = times.tolist(), amounts.tolist()
    peak = max(held, default=0)
    area = sum(map(operator.mul, held[:-1], map(operator.sub, instants[1:], instants[:-1])))  # exact integers
    link_busy, device_busy = sum(instance.transfer), sum(instance.compute)
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "peak_memory": float(peak),
        "peak_memory_fraction": peak / instance.capacity,
        "link_busy": float(link_busy),
        "link_idle": float(makespan - link_busy),
        "device_busy": float(device_busy),
        "device_idle": float(makespan - device_busy),
        "total_wait": float(sum(solution.compute_start) - sum(solution.transfer_start) - link_busy),
        "memory_utilisation": area / (instance.capacity * makespan) if makespan > 0 else 0.0,
    }


def _overlaps(intervals: list[tuple[int, int, int]], machine: str) -> list[Violation]:
    """Violations for pairs of non-empty ``(start, end, task)`` intervals that intersect."""
    found = []
    latest: tuple[int, int] | None = None  # (end, task) of the non-empty interval ending last so far
    for start, end, task in sorted(intervals):
        if end <= start:
            continue
        if latest is not None and start < latest[0]:
            found.append(
                Violation(
                    f"{machine}-overlap",
                    f"task {task} occupies the {machine} on [{start}, {end}) while task {latest[1]} "
                    f"holds it until {latest[0]}",
                )
            )
        if latest is None or end > latest[0]:
            latest = (end, task)
    return found


def _overlap_free(start: np.ndarray, length: np.ndarray) -> bool:
    """No two non-empty intervals ``[start, start + length)`` intersect (`_overlaps` finds none)."""
    busy = length > 0
    start, end = start[busy], start[busy] + length[busy]
    order = np.lexsort((end, start))
    start, end = start[order], end[order]
    return bool(np.all(start[1:] >= np.maximum.accumulate(end)[:-1]))


def _machine_violations(instance: Instance, solution: Solution, columns: _Columns | None) -> list[Violation]:
    """The ``link-overlap`` and ``device-overlap`` rules (the arrays first, when there are arrays)."""
    violations = []
    machines = (
        ("link", solution.transfer_start, instance.transfer, columns and (columns.start, columns.transfer)),
        ("device", solution.compute_start, instance.compute, columns and (columns.compute_start, columns.compute)),
    )
    for machine, starts, lengths, arrays in machines:
        if arrays and _overlap_free(*arrays):
            continue
        violations += _overlaps([(x, x + lengths[i], i) for i, x in enumerate(starts)], machine)
    return violations


def _flagged(columns: _Columns | None, n: int) -> tuple[list[int], list[int]]:
    """Tasks that may break the sign and the precedence rules: all of them, or those the arrays flag."""
    if columns is None:
        return list(range(n)), list(range(n))
    s, t, c = columns.start, columns.compute_start, columns.transfer
    return np.flatnonzero((s < 0) | (t < 0)).tolist(), np.flatnonzero(t < s + c).tolist()


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible).

    Rules: ``size`` (one start per task), ``negative-start``, ``link-overlap``
    and ``device-overlap`` (one operation at a time on each machine),
    ``precedence`` (t_i ≥ s_i + c_i), ``memory`` (held bytes ≤ M at every
    instant, releases before allocations at equal times).
    """
    n = instance.n
    if len(solution.transfer_start) != n or len(solution.compute_start) != n:
        return [
            Violation(
                "size",
                f"expected {n} transfer and compute starts, got {len(solution.transfer_start)} and "
                f"{len(solution.compute_start)}",
            )
        ]
    columns = _columns(instance, solution)
    negative, early = _flagged(columns, n)
    s, t, tasks = solution.transfer_start, solution.compute_start, instance.tasks
    violations = [
        Violation("negative-start", f"task {i} starts before time 0 (s={s[i]}, t={t[i]})")
        for i in negative
        if s[i] < 0 or t[i] < 0
    ]
    violations += _machine_violations(instance, solution, columns)
    violations += [
        Violation(
            "precedence",
            f"task {i} '{tasks[i].name}' computes at {t[i]} before its transfer ends at {s[i] + tasks[i].transfer}",
        )
        for i in early
        if t[i] < s[i] + tasks[i].transfer
    ]
    if columns is None:
        levels = _memory_levels(instance, solution)
    else:
        times, held = _memory_levels_of(columns)
        over = held > instance.capacity
        levels = list(zip(times[over].tolist(), held[over].tolist(), strict=True))
    violations += [
        Violation(
            "memory",
            f"{held} bytes held from time {time} on, capacity is {instance.capacity} "
            f"(over by {held - instance.capacity})",
        )
        for time, held in levels
        if held > instance.capacity
    ]
    return violations


def makespan_of(instance: Instance, solution: Solution) -> int:
    """The integer makespan, `evaluate`'s objective (without its other KPIs: methods call this often)."""
    ends = map(int.__add__, solution.compute_start, instance.compute)
    return max(max(ends), max(map(int.__add__, solution.transfer_start, instance.transfer)))
