"""Timing a fixed sequence of slabs exactly, and turning slabs into segments.

A *slab sequence* is a list of kernel sets (who runs in each consecutive
slab). Given the sets, the best timing is an LP: slab lengths l_k >= 0,
minimize Σ l_k subject to, for each kernel i,
Σ_{k: i in set_k} l_k * speed_i(set_k) = p_i (speed 1 alone, r_{i|j} with
j). A slab whose set is not allowed (three kernels, or an incompatible
pair) is fixed to length 0. The LP is solved by HiGHS (scipy's ``linprog``)
with the rows scaled by 1/p_i and feasibility tolerances of 1e-10, so that
the progress of every kernel is within the validator's tolerance.

Every exact formulation decodes its solution through this LP (the solver's
own 1e-6 MIP tolerances would otherwise leak into the schedule), and the
brute force enumerates slab sequences and solves this LP for each.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from ..model import Instance, Segment, Solution

LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10, "presolve": True}


def slab_speed(instance: Instance, kernel: int, kernels: Sequence[int]) -> float | None:
    """Speed of ``kernel`` in a slab running ``kernels`` (None if not allowed)."""
    if len(kernels) == 1:
        return 1.0
    if len(kernels) != 2:
        return None
    partner = kernels[0] if kernels[1] == kernel else kernels[1]
    return instance.rate(kernel, partner)


def time_slab_sequence(instance: Instance, sets: Sequence[Sequence[int]]) -> list[float] | None:
    """Optimal slab lengths for the sequence ``sets``, or None if none exists."""
    rows, cols, values = [], [], []
    upper = []
    for column, kernels in enumerate(sets):
        allowed = 1 <= len(kernels) <= 2 and (len(kernels) == 1 or instance.compatible(kernels[0], kernels[1]))
        upper.append(None if allowed else 0.0)
        if not allowed:
            continue
        for kernel in kernels:
            rows.append(kernel)
            cols.append(column)
            values.append(slab_speed(instance, kernel, kernels) / instance.kernels[kernel].duration)
    if not sets:
        return None
    matrix = coo_matrix((values, (rows, cols)), shape=(instance.n, len(sets))).tocsr()
    result = linprog(
        np.ones(len(sets)),
        A_eq=matrix,
        b_eq=np.ones(instance.n),
        bounds=[(0.0, u) for u in upper],
        method="highs",
        options=LP_OPTIONS,
    )
    if result.status != 0:
        return None
    return [max(0.0, float(v)) for v in result.x]


def solution_from_slabs(sets: Sequence[Sequence[int]], lengths: Sequence[float]) -> Solution:
    """Segments of a slab sequence; a kernel in consecutive slabs gets one segment."""
    open_runs: dict[int, float] = {}
    segments: list[Segment] = []
    time = 0.0
    for kernels, length in zip(sets, lengths):
        if length <= 0:
            continue
        end = time + length
        for kernel in list(open_runs):
            if kernel not in kernels:
                segments.append(Segment(kernel, open_runs.pop(kernel), time))
        for kernel in kernels:
            open_runs.setdefault(kernel, time)
        time = end
    for kernel, start in open_runs.items():
        segments.append(Segment(kernel, start, time))
    return Solution(tuple(sorted(segments, key=lambda s: (s.start, s.kernel))))


def slabs_of_intervals(starts: Sequence[float], ends: Sequence[float], *, snap: float = 0.0) -> list[tuple[int, ...]]:
    """The slab sequence (running sets) of one interval per kernel.

    Event times closer than ``snap`` are treated as equal (solver round-off);
    at equal times ends come before starts, so touching kernels do not overlap.
    """
    events = []
    for kernel, (start, end) in enumerate(zip(starts, ends)):
        events.append((start, 1, kernel))
        events.append((end, 0, kernel))
    events.sort()
    # Snap near-equal times so that the order "end before start" applies to them.
    snapped, last = [], None
    for time, kind, kernel in events:
        if last is not None and time - last <= snap:
            time = last
        snapped.append((time, kind, kernel))
        last = time
    snapped.sort()
    sets, active = [], []
    for position, (time, kind, kernel) in enumerate(snapped):
        if kind == 1:
            active.append(kernel)
        else:
            active.remove(kernel)
        if active and position + 1 < len(snapped):
            sets.append(tuple(sorted(active)))
    return sets
