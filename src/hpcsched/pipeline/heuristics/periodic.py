"""Repetends for the period objective: modulo list scheduling, P raised until the steady state fits in memory.

For a period P, jobs (r, b) of the R micro-batches of the pattern are placed
one at a time, always the ready one (its predecessors placed) of least
priority key, at the earliest offset >= its predecessors' ends (plus
delays) whose interval is free modulo P on each of its devices (iterative
modulo scheduling, Rau, MICRO 1994). With the key "micro-batch, then
topological position" and stage chains this is the steady state of 1F1B:
each device alternates the forwards and backwards of successive
micro-batches, Tessel's vshape repetend among them. P starts at the work
bound R max_d work_d and grows by max(1, P // 64) until the schedule exists
and its steady-state level fits every limit; at P = R T1 (the sequential
repetend, T1 the span of one micro-batch in the frees-first order) the
sequential schedule is returned when the modulo one still does not fit.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable

from ...core.deadline import Deadline
from ...core.result import Result
from ..model import Instance, Solution
from ..simulate import makespan_of, orders_fit, orders_from_sequence, semi_active, single_micro_batch_order
from ..special_cases import steady_fits
from .common import finished, not_applicable

Key = Callable[[int, int], Hashable]


def _free(busy: list[tuple[int, int]], phase: int, length: int, period: int) -> bool:
    """True when [phase, phase + length) modulo ``period`` meets none of the ``busy`` (non-wrapping) intervals."""
    pieces = [(phase, min(phase + length, period))]
    if phase + length > period:
        pieces.append((0, phase + length - period))
    return all(end <= a or b <= start for start, end in pieces for a, b in busy)


def _occupy(busy: list[tuple[int, int]], phase: int, length: int, period: int) -> None:
    busy.append((phase, min(phase + length, period)))
    if phase + length > period:
        busy.append((0, phase + length - period))


def modulo_offsets(instance: Instance, period: int, key: Key, deadline: Deadline) -> list[list[int]] | None:
    """Offsets of the modulo list schedule of period ``period`` (module docstring), or None when a job finds no slot."""
    blocks, predecessors, successors = instance.blocks, instance.predecessors(), instance.successors()
    if any(block.duration > period for block in blocks):
        return None
    rows = instance.micro_batches
    offset = [[0] * len(blocks) for _ in range(rows)]
    missing = [[len(predecessors[b]) for b in range(len(blocks))] for _ in range(rows)]
    busy: list[list[tuple[int, int]]] = [[] for _ in range(instance.devices)]
    heap = [(key(r, b), r, b) for r in range(rows) for b in range(len(blocks)) if not predecessors[b]]
    heapq.heapify(heap)
    placed = 0
    while heap:
        _, r, b = heapq.heappop(heap)
        placed += 1
        if placed % 256 == 0:
            deadline.check("placing a repetend")
        ready = max((offset[r][u] + blocks[u].duration + delay for u, delay in predecessors[b]), default=0)
        on = blocks[b].devices
        candidates = {ready} | {ready + (end - ready) % period for d in on for _, end in busy[d]}
        start = next(
            (t for t in sorted(candidates) if all(_free(busy[d], t % period, blocks[b].duration, period) for d in on)),
            None,
        )
        if start is None:
            return None
        offset[r][b] = start
        for d in on:
            _occupy(busy[d], start % period, blocks[b].duration, period)
        for c, _ in successors[b]:
            missing[r][c] -= 1
            if missing[r][c] == 0:
                heapq.heappush(heap, (key(r, c), r, c))
    return offset


def topological_key(instance: Instance) -> Key:
    """Micro-batch first, then the block's position in the topological order (the 1F1B repetend)."""
    position = {b: i for i, b in enumerate(instance.topological_order())}
    return lambda r, b: (r, position[b])


def repetend(instance: Instance, key: Key, deadline: Deadline, what: str) -> Result:
    """The least P (scanned upward, module docstring) whose modulo schedule fits; NOT_APPLICABLE if none."""
    alone = _sequential(instance)
    if alone is None:
        return not_applicable(f"{what}: one micro-batch in the frees-first order does not fit in memory")
    rows = instance.micro_batches
    top = rows * makespan_of(instance, [alone])
    period = max(rows * max(instance.work()), max(block.duration for block in instance.blocks))
    tried = 0
    while period < top:
        deadline.check(f"searching the period of {what}")
        tried += 1
        offsets = modulo_offsets(instance, period, key, deadline)
        if offsets is not None:
            solution = Solution.periodic(period, offsets)
            if steady_fits(instance, solution):
                return finished(instance, solution, (f"modulo schedule, {tried} periods tried",))
        period += max(1, period // 64)
    span = top // rows
    sequential = [[s + r * span for s in alone] for r in range(rows)]
    note = f"no modulo schedule fits below the sequential period {top} ({tried} periods tried): sequential repetend"
    return finished(instance, Solution.periodic(top, sequential), (note,))


def _sequential(instance: Instance) -> list[int] | None:
    """Starts of one micro-batch alone in the frees-first order, or None when it does not fit."""
    from dataclasses import replace

    one = replace(instance, objective="makespan", micro_batches=1)
    orders = orders_from_sequence(one, ((0, b) for b in single_micro_batch_order(one)))
    if not orders_fit(one, orders):
        return None
    start = semi_active(one, orders)
    assert start is not None
    return start[0]
