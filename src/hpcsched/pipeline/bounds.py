"""Lower bounds on the makespan and on the period, each proven in its docstring.

All are integers (the data are). ``work_d`` is the busy time of one
micro-batch on device d (`Instance.work`); ``head_b`` the earliest start of
block b in its micro-batch (longest path of durations and delays to it),
``tail_b`` the least time from the end of b to the end of its micro-batch
(longest path after it). N (makespan) or R (period) is
``instance.micro_batches``.
"""

from __future__ import annotations

import math

from .model import Instance


def heads(instance: Instance) -> list[int]:
    """Per block, its earliest start in a micro-batch run alone on unlimited devices (longest path to it)."""
    head = [0] * instance.n_blocks
    predecessors = instance.predecessors()
    for b in instance.topological_order():
        for u, delay in predecessors[b]:
            head[b] = max(head[b], head[u] + instance.blocks[u].duration + delay)
    return head


def tails(instance: Instance) -> list[int]:
    """Per block, the least time from its end to the end of its micro-batch (longest path after it)."""
    tail = [0] * instance.n_blocks
    successors = instance.successors()
    for b in reversed(instance.topological_order()):
        for c, delay in successors[b]:
            tail[b] = max(tail[b], delay + instance.blocks[c].duration + tail[c])
    return tail


def critical_path(instance: Instance) -> int:
    """Length of the longest path of one micro-batch: ``max_b head_b + duration_b + tail_b``.

    Proof: every micro-batch runs its blocks along every path of the edges,
    each block after its predecessor's end plus the delay, so every schedule
    lasts at least as long as the longest path. This bounds the makespan
    (C >= critical path). It does not bound the period (a micro-batch may take
    longer than the period).
    """
    head, tail = heads(instance), tails(instance)
    return max(h + block.duration + t for h, block, t in zip(head, instance.blocks, tail, strict=True))


def work_bound(instance: Instance) -> int:
    """``N max_d work_d`` (makespan) or ``R max_d work_d`` (period).

    Proof: device d runs each of its blocks of each micro-batch once, one at a
    time, so it is busy N work_d time units within [0, C]. For a period, the
    executions of one period are R work_d time units that may not overlap
    modulo P on a circle of length P, so P >= R work_d.
    """
    return instance.micro_batches * max(instance.work())


def device_bound(instance: Instance) -> int:
    """``max_d (min_{b on d} head_b + N work_d + min_{b on d} tail_b)`` (makespan only).

    Proof: the first job on d starts no earlier than the smallest head of d's
    blocks; from then on d runs N work_d time units one after another; the
    micro-batch of the job that ends last on d still needs at least the
    smallest tail of d's blocks after it.
    """
    head, tail = heads(instance), tails(instance)
    work = instance.work()
    best = 0
    for device in range(instance.devices):
        on = instance.device_blocks(device)
        if on:
            first = min(head[b] for b in on)
            last = min(tail[b] for b in on)
            best = max(best, first + instance.micro_batches * work[device] + last)
    return best


def minimum_area(instance: Instance, device: int) -> int:
    """The least memory-time area one micro-batch holds on ``device`` over all timings that respect its edges.

    The area is the integral of the micro-batch's own level on the device:
    ``sum_{delta_b < 0} |delta_b| (s_b + d_b) - sum_{delta_b > 0} delta_b s_b``.
    Minimising it over ``s_v >= s_u + d_u + delay`` (devices ignored) is a
    linear program on a network matrix (each row one +1 and one -1), whose
    optimum is an integer; we solve it with HiGHS and round it down by more
    than HiGHS's tolerance. The area is >= 0 because the level is (the instance
    rule "levels never negative"), so the LP is bounded.
    """
    on = [b for b in instance.device_blocks(device) if instance.blocks[b].memory]
    if not on:
        return 0
    import numpy as np
    from scipy.optimize import linprog

    blocks, n = instance.blocks, instance.n_blocks
    cost = np.zeros(n)
    constant = 0
    for b in on:
        delta = blocks[b].memory
        if delta < 0:
            cost[b] = -delta
            constant += -delta * blocks[b].duration
        else:
            cost[b] = -delta
    rows = np.zeros((len(instance.edges), n))
    rhs = np.zeros(len(instance.edges))
    for i, edge in enumerate(instance.edges):  # s_u - s_v <= -(d_u + delay)
        rows[i, edge.source] = 1
        rows[i, edge.target] = -1
        rhs[i] = -(blocks[edge.source].duration + edge.delay)
    if instance.edges:
        result = linprog(cost, A_ub=rows, b_ub=rhs, bounds=(0, None), method="highs")
    else:
        result = linprog(cost, bounds=(0, None), method="highs")
    if result.status != 0:
        return 0  # no proof: the weakest bound
    value = float(result.fun) + constant
    tolerance = 1e-6 + 1e-7 * abs(value)
    return max(0, math.ceil(value - tolerance))


def memory_bound(instance: Instance) -> int:
    """``max_d ceil(N area_d / M_d)`` over devices with a limit M_d > 0 (``area_d``: `minimum_area`).

    Proof (Little's law): the level of d at t is the sum over the micro-batches
    of each one's own level (levels add), so the integral of the level over
    [0, C] is the sum of the micro-batches' areas, each >= area_d; it is at
    most M_d C. Hence C >= N area_d / M_d. For a period, the integral of the
    steady-state level over one period is the sum of the R micro-batches'
    areas (each repetition's contribution is counted once per period), at most
    M_d P: P >= R area_d / M_d.
    """
    best = 0
    for device, limit in enumerate(instance.memory_limit):
        if limit:
            area = minimum_area(instance, device)
            best = max(best, -(-instance.micro_batches * area // limit))
    return best


def all_bounds(instance: Instance) -> dict[str, int]:
    """Every bound that holds for the instance's objective, by name (for tables)."""
    if instance.is_period:
        return {"work": work_bound(instance), "memory": memory_bound(instance)}
    return {
        "work": work_bound(instance),
        "critical-path": critical_path(instance),
        "device": device_bound(instance),
        "memory": memory_bound(instance),
    }


def best(instance: Instance) -> int:
    """The largest of the bounds (registered as the problem's ``lower_bound``)."""
    return max(all_bounds(instance).values())
