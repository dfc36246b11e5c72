"""Orders in, schedules out: the semi-active timing of per-device orders, shared by the heuristics.

A *job* is ``(m, b)``: block b of micro-batch m. *Orders* give, per device,
the jobs it runs in sequence; a job of a block that spans several devices is
in the order of each of them. By the memory-order lemma (docs/pipeline.md)
the orders alone decide whether a schedule fits in memory (`order_peaks`),
and their semi-active timing (every job as early as its dependencies and its
devices' previous jobs allow, `semi_active`) is the shortest schedule that
follows them. `timing` does both.

The validator in `hpcsched.pipeline.model` does not use this module.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from ..core.deadline import Deadline
from .model import Instance, Solution

Job = tuple[int, int]

#: Jobs `semi_active` times between two readings of its deadline.
CHECK_EVERY = 1 << 12
Orders = Sequence[Sequence[Job]]


def orders_from_sequence(instance: Instance, sequence: Iterable[Job]) -> tuple[tuple[Job, ...], ...]:
    """Per-device orders of a global sequence of jobs (each job appended to each of its devices)."""
    orders: list[list[Job]] = [[] for _ in range(instance.devices)]
    for m, b in sequence:
        for device in instance.blocks[b].devices:
            orders[device].append((m, b))
    return tuple(tuple(order) for order in orders)


def check_orders(instance: Instance, orders: Orders) -> None:
    """Raise ValueError unless every job of every micro-batch is in the order of each of its devices, once."""
    if len(orders) != instance.devices:
        raise ValueError(f"expected {instance.devices} device orders, got {len(orders)}")
    for device, order in enumerate(orders):
        expected = {(m, b) for m in range(instance.micro_batches) for b in instance.device_blocks(device)}
        if len(order) != len(expected) or set(order) != expected:
            raise ValueError(f"the order of device {device} does not hold each of its {len(expected)} jobs once")


def order_peaks(instance: Instance, orders: Orders) -> list[int]:
    """Per device, the peak memory level of any schedule that follows its order.

    The level before a job is the sum of the deltas of the jobs before it; the
    peak is the largest ``level before j + max(delta_j, 0)`` (memory-order lemma).
    """
    memory = [block.memory for block in instance.blocks]
    peaks = []
    for order in orders:
        level = peak = 0
        for _, b in order:
            level += memory[b]
            # the level never exceeds the peak so far, so only an allocation can raise it
            if level > peak:
                peak = level
        peaks.append(peak)
    return peaks


def orders_fit(instance: Instance, orders: Orders) -> bool:
    """True when every device's order stays within its memory limit."""
    peaks = order_peaks(instance, orders)
    return all(limit is None or peak <= limit for peak, limit in zip(peaks, instance.memory_limit, strict=True))


def semi_active(instance: Instance, orders: Orders, deadline: Deadline | None = None) -> list[list[int]] | None:
    """``start[m][b]`` of the semi-active schedule of ``orders``, or None when they contradict the edges (a cycle).

    Each job starts at the latest of the ends (plus delay) of its
    predecessors in its micro-batch and the ends of the jobs before it on its
    devices: a longest-path computation in topological order (Kahn), O(N (B + E)).
    Memory is not looked at (`order_peaks`). Jobs are numbered ``m B + b`` in
    flat lists (at 10^5 micro-batches, tuples as keys cost most of the pass).
    ``deadline``, when given, is checked every `CHECK_EVERY` jobs.
    """
    n, width = instance.micro_batches, len(instance.blocks)
    duration = [block.duration for block in instance.blocks]
    successors = instance.successors()
    indegree = [0] * width
    for edge in instance.edges:
        indegree[edge.target] += 1
    pending = indegree * n
    next_on: list[tuple[int, ...]] = [()] * (n * width)
    for order in orders:
        flat = [m * width + b for m, b in order]
        for job, after in itertools.pairwise(flat):
            next_on[job] += (after,)
            pending[after] += 1
    start = [0] * (n * width)
    ready = [j for j in range(n * width) if pending[j] == 0]
    done = 0
    while ready:
        j = ready.pop()
        done += 1
        if deadline is not None and not done % CHECK_EVERY:
            deadline.check("timing the orders")
        b = j % width
        end = start[j] + duration[b]
        first = j - b
        for c, delay in successors[b]:
            k, time = first + c, end + delay
            if time > start[k]:
                start[k] = time
            pending[k] -= 1
            if pending[k] == 0:
                ready.append(k)
        for k in next_on[j]:
            if end > start[k]:
                start[k] = end
            pending[k] -= 1
            if pending[k] == 0:
                ready.append(k)
    if done != n * width:
        return None
    return [start[m * width : (m + 1) * width] for m in range(n)]


def timing(instance: Instance, orders: Orders) -> Solution | None:
    """The semi-active `Solution` of per-device ``orders``; None when they break memory or contradict the edges.

    For a makespan instance the orders hold every job ``(m, b)``, m < N. For a
    period instance this times the R micro-batches of ``orders`` as one
    makespan schedule; `periodic_from_makespan` turns it into a period.
    """
    check_orders(instance, orders)
    if not orders_fit(instance, orders):
        return None
    start = semi_active(instance, orders)
    if start is None:
        return None
    return Solution.makespan(start)


def sequence_timing(instance: Instance, sequence: Iterable[Job]) -> Solution | None:
    """`timing` of the per-device orders of a global job sequence."""
    return timing(instance, orders_from_sequence(instance, sequence))


def orders_of(instance: Instance, solution: Solution) -> tuple[tuple[Job, ...], ...]:
    """Per-device orders of a makespan schedule (by start, then micro-batch and block)."""
    jobs = sorted(
        ((s, m, b) for m, row in enumerate(solution.start) for b, s in enumerate(row)),
    )
    return orders_from_sequence(instance, ((m, b) for _, m, b in jobs))


def makespan_of(instance: Instance, start: Sequence[Sequence[int]]) -> int:
    """The last end of ``start[m][b]``."""
    return max(s + block.duration for row in start for s, block in zip(row, instance.blocks, strict=True))


def single_micro_batch_order(instance: Instance) -> tuple[int, ...]:
    """A topological order of one micro-batch's blocks that frees early and allocates late.

    Among the ready blocks it runs the one with the smallest memory delta
    (frees first, then neutral blocks, then allocations), ties by index. It is
    the order `sequential` runs each micro-batch in; it is not guaranteed to
    minimise the peak (that is NP-hard in general), only cheap and safe for
    chains.
    """
    import heapq

    blocks = instance.blocks
    indegree = [0] * len(blocks)
    for edge in instance.edges:
        indegree[edge.target] += 1
    successors = instance.successors()
    ready = [(blocks[b].memory, b) for b in range(len(blocks)) if indegree[b] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, b = heapq.heappop(ready)
        order.append(b)
        for c, _ in successors[b]:
            indegree[c] -= 1
            if indegree[c] == 0:
                heapq.heappush(ready, (blocks[c].memory, c))
    return tuple(order)


def sequential_sequence(instance: Instance, order: Sequence[int] | None = None) -> list[Job]:
    """Micro-batch after micro-batch, each in ``order`` (default `single_micro_batch_order`)."""
    order = single_micro_batch_order(instance) if order is None else order
    return [(m, b) for m in range(instance.micro_batches) for b in order]


def periodic_from_makespan(instance: Instance, solution: Solution, period: int) -> Solution:
    """The periodic solution that repeats a makespan schedule of the R micro-batches every ``period``.

    Valid (no overlap modulo P, and the steady state never holds two copies at
    once) whenever ``period`` >= the schedule's makespan minus its first start;
    a smaller period must be checked with `validate`.
    """
    first = min(min(row) for row in solution.start)
    return Solution.periodic(period, [[s - first for s in row] for row in solution.start])
