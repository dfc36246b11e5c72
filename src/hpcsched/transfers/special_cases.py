"""Polynomial special cases, each with its optimality argument.

``johnson``
    Theorem (Johnson 1954): Johnson's order, run earliest-start on link then
    device without memory, minimizes the makespan of F2||Cmax, and
    permutation schedules are dominant there. F2||Cmax is the relaxation of
    our problem without the memory constraint, so its optimum ``LB_johnson``
    is a lower bound. If that schedule also keeps the held memory ≤ M at every
    instant, it is feasible and meets the bound: OPTIMAL, certificate
    ``objective == LB_johnson``. Otherwise the method repairs it by running
    Johnson's order through the memory-aware simulator (transfers wait for
    memory) and returns FEASIBLE with the best lower bound (OPTIMAL only if
    the repaired makespan happens to meet that bound). So ``johnson`` is a
    heuristic outside its class but never claims what it cannot prove.

``sequential``
    If m_i + m_j > M for all i ≠ j, no two tasks ever hold memory together,
    so tasks run one after the other, each for at least c_i + p_i: the
    makespan is at least Σ (c_i + p_i), and running them back to back (any
    order) reaches it: OPTIMAL. Outside this class: NOT_APPLICABLE.
"""

from __future__ import annotations

from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution, makespan_of, require_fits
from .simulate import Simulator, flow_shop_starts, johnson_order


def _peak_memory(instance: Instance, transfer_start: list[int], compute_start: list[int]) -> int:
    """Largest held total of a schedule (releases before allocations at equal times)."""
    events = []
    for task, s, t in zip(instance.tasks, transfer_start, compute_start, strict=True):
        if t + task.compute > s:
            events.append((s, 1, task.memory))
            events.append((t + task.compute, 0, -task.memory))
    held = peak = 0
    for _, _, delta in sorted(events):
        held += delta
        peak = max(peak, held)
    return peak


def johnson(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Johnson's rule: OPTIMAL when its schedule fits memory, else repaired (FEASIBLE).

    Parameters
    ----------
    instance
        The instance.
    time_limit, seed, params
        Unused: one O(n log n) pass, no options.

    Returns
    -------
    Result
        OPTIMAL with bound LB_johnson when the schedule fits memory; otherwise
        the simulator's repair with `bounds.best` as bound.
    """
    require_fits(instance)
    order = johnson_order(instance)
    transfer_start, compute_start = flow_shop_starts(instance, order)
    lower = bounds.johnson_bound(instance)
    peak = _peak_memory(instance, transfer_start, compute_start)
    if peak <= instance.capacity:
        solution = Solution(tuple(transfer_start), tuple(compute_start))
        return Result(
            status=Status.OPTIMAL,
            objective=makespan_of(instance, solution),
            bound=lower,
            solution=solution,
            notes=(f"memory not binding (peak {peak} <= {instance.capacity}): optimum = LB_johnson = {lower}",),
        )
    repaired = Simulator(instance).schedule(order)
    assert repaired is not None  # a permutation order never deadlocks once every task fits
    objective = makespan_of(instance, repaired)
    bound = bounds.best(instance)
    status = Status.OPTIMAL if objective <= bound else Status.FEASIBLE
    return Result(
        status=status,
        objective=objective,
        bound=bound,
        solution=repaired,
        notes=(f"memory binding (Johnson peak {peak} > {instance.capacity}): repaired by the simulator",),
    )


def is_sequential(instance: Instance) -> bool:
    """True when no two tasks fit in memory together."""
    if instance.n < 2:
        return True
    smallest, second = sorted(instance.memory)[:2]
    return smallest + second > instance.capacity


def sequential(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """No two tasks fit together: back-to-back schedule, C = sum(c + p), OPTIMAL.

    Parameters
    ----------
    instance
        The instance.
    time_limit, seed, params
        Unused: one O(n) pass, no options.

    Returns
    -------
    Result
        OPTIMAL when no two tasks fit in memory together, NOT_APPLICABLE otherwise.
    """
    require_fits(instance)
    if not is_sequential(instance):
        return Result(
            status=Status.NOT_APPLICABLE, notes=("two tasks fit in memory together: not the sequential case",)
        )
    transfer_start: list[int] = []
    compute_start: list[int] = []
    clock = 0
    for task in instance.tasks:
        transfer_start.append(clock)
        compute_start.append(clock + task.transfer)
        clock += task.transfer + task.compute
    total = sum(t.transfer + t.compute for t in instance.tasks)
    return Result(
        status=Status.OPTIMAL,
        objective=clock,
        bound=total,
        solution=Solution(tuple(transfer_start), tuple(compute_start)),
        notes=("no two tasks fit together: C = sum(c + p)",),
    )
