"""The definition of kind ``chain-offload``: the chain plus a host level over one link.

This module is the *definition* (validator and evaluation) of the two-level
problem; it shares no code with the formulations or heuristics.

Operations
----------
Compute operations ``F i``, ``Fall i``, ``B i`` as in kind ``chain`` (one
serial compute stream); link operations

* ``Off i``   (0 <= i <= L): reads x_i on the GPU, writes a host copy of x_i;
  duration ``max(1, ceil(x_i / bandwidth_out) + latency)``;
* ``Pre i``   (0 <= i <= L): reads the host copy of x_i, creates a GPU copy of x_i;
  duration ``max(1, ceil(x_i / bandwidth_in) + latency)``;
* ``Offall i`` / ``Preall i`` (1 <= i <= L): the same for xbar_i (xbar_i bytes).

Offloads use the "out" channel, prefetches the "in" channel; ``duplex``
"half" makes them one channel. A link operation overlaps compute.

How time works (the schedule is explicit)
-----------------------------------------
The solution lists every operation with an integer start time ``start[k]``
(``Solution.start``); the list is ordered by start time (ties: the listed
order decides "before"). Rules the validator checks:

1. ``start`` is non-decreasing along the list; compute operations do not
   overlap (each starts at or after the end of the previous compute
   operation); link operations on one channel do not overlap.
2. ``B L .. B 0`` run once each, in that order.
3. Copies. A GPU *copy* of x_i is created by ``F i-1`` or ``Pre i`` (x_0: one
   copy at time 0); a copy of xbar_i by ``Fall i-1`` or ``Preall i``. The
   copy exists from the *start* of its creator; it is *ready* at the creator's
   end. A host copy exists from the end of the ``Off``/``Offall`` that wrote it;
   ``Pre i`` (``Preall i``) needs an ``Off i`` (``Offall i``) that ended at or
   before its start.
4. Reads. Explicit reads of xbar_i: ``B i-1`` and ``Offall i``; each reads the
   latest copy of xbar_i created before it in the list. A read of x_i
   (``F i``, ``Fall i``, ``B i``, ``Off i``) is served by an xbar_i copy
   created before it in the list when the read runs inside that copy's span,
   from the copy's ready time to the end of its last explicit read (the
   chain's least-fixpoint rule, in time); otherwise by the latest copy of
   x_i created before it. The serving copy must exist and
   be ready when the reader starts.
5. Liveness. A copy is held on the GPU from its creator's start to the end
   of its last reader (at least to the creator's end): so x_i is held from
   the start of ``Off`` to its end (and longer if a compute operation reads
   that copy later), and again from the start of ``Pre``. Two copies of one
   value never overlap in time ("producing a held value is an error").
   delta_i is held from the start of ``B i`` to the end of ``B i-1``; delta_0
   to the makespan.
6. Memory: at every instant, the bytes of the held copies and deltas plus
   the transient of the running compute operation are <= M (half-open
   intervals ``[start, end)``; releases before allocations at equal times).
7. Objective: the makespan, the latest end of any operation.

Every operation lasts >= 1 time unit (``fw, bw >= 1`` for this kind, and a
transfer lasts at least 1), so every operation occupies an instant and a
sequence without link operations run back to back has the chain's memory
profile and its total time as makespan (a test checks this against the
chain's validator). ``start`` may be omitted for such a sequence: compute
operations then run back to back from 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ...core.violation import Violation
from .data import COMPUTE_OPERATIONS, Instance
from .solution import Solution
from .timed_rules import LINK, analyse, default_start, duration


def memory_over_time(instance: Instance, solution: Solution) -> list[tuple[int, int]]:
    """Step function ``[(time, bytes held from that time on), ...]`` (rule 6's left-hand side)."""
    return _memory_over_time(analyse(instance, solution)[1])


def _memory_over_time(intervals: Sequence[tuple[int, int, int, str]]) -> list[tuple[int, int]]:
    """`memory_over_time` from the held intervals of `analyse`."""
    events: dict[int, int] = defaultdict(int)
    for a, b, size, _ in intervals:
        if b > a and size:
            events[a] += size
            events[b] -= size
    profile, held = [], 0
    for time in sorted(events):
        held += events[time]  # releases and allocations at one time are summed: releases first
        profile.append((time, held))
    return profile


def evaluate_two_levels(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (objective) and KPIs: recomputation time, transfers, peak memory."""
    problems, intervals, makespan = analyse(instance, solution)
    if problems and problems[0].rule in ("stage", "start"):
        nan = float("nan")
        return {
            "objective": nan,
            "makespan": nan,
            "recomputation_time": nan,
            "idle_time": nan,
            "peak_memory": nan,
            "peak_memory_fraction": nan,
            "transfers": nan,
            "offloaded_bytes": nan,
            "operations": float(len(solution.sequence)),
        }
    compute = [(name, stage) for name, stage in solution.sequence if name in COMPUTE_OPERATIONS]
    busy = sum(duration(instance, name, stage) for name, stage in compute)
    peak = max((held for _, held in _memory_over_time(intervals)), default=0)
    offloaded = sum(
        instance.x[stage] if name == "Off" else instance.xbar[stage]
        for name, stage in solution.sequence
        if name in ("Off", "Offall")
    )
    return {
        "objective": float(makespan),
        "makespan": float(makespan),
        "recomputation_time": float(busy - instance.compute_time),
        "idle_time": float(makespan - busy),
        "peak_memory": float(peak),
        "peak_memory_fraction": peak / instance.memory if instance.memory else float("inf"),
        "transfers": float(sum(1 for name, _ in solution.sequence if name in LINK)),
        "offloaded_bytes": float(offloaded),
        "operations": float(len(solution.sequence)),
    }


def validate_two_levels(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the two-level definition (module docstring) that ``solution`` breaks ([] = valid)."""
    problems, intervals, _ = analyse(instance, solution)
    if problems and problems[0].rule in ("stage", "start"):
        return problems
    for time, held in _memory_over_time(intervals):
        if held > instance.memory:
            problems.append(
                Violation(
                    "memory",
                    f"from time {time}, {held} bytes are held; budget is "
                    f"{instance.memory} (over by {held - instance.memory})",
                )
            )
    return problems


__all__ = [
    "default_start",
    "duration",
    "evaluate_two_levels",
    "memory_over_time",
    "validate_two_levels",
]
