"""``dp``: the POFO-style dynamic program over discretized memory (see the package docstring)."""

from __future__ import annotations

import numpy as np

from ...core.deadline import TimeLimitReached
from ...core.deadline import now as deadline_clock
from ...core.result import Result
from ..model import Instance, check_feasible
from ..simulate import bounded_simulations, simulate
from .sets import _deadline, _result, _value, hideability_priority, shortest_feasible_prefix


def dp_offload_set(instance: Instance, buckets: int, alpha: float) -> set[int] | None:
    """One POFO-style DP pass (see module docstring); None if no set satisfies the rounded floors."""
    n, s, M = instance.n_layers, instance.activation, instance.memory
    unit = max(1, -(-M // buckets))
    size_units = [-(-x // unit) for x in s]  # rounded up: conservative
    cap = M // unit
    offloadable = set(instance.offloadable)
    inf = float("inf")
    cost = np.full(cap + 1, inf)
    cost[0] = 0.0
    choices = []  # per item: boolean array "offloaded" per resulting state
    for i in range(n):
        keep = np.full(cap + 1, inf)
        w = size_units[i]
        if w <= cap:
            keep[w:] = cost[: cap + 1 - w]
        if i in offloadable:
            penalty = (
                max(0, instance.offload_time(i) - instance.forward[i])
                + max(0, instance.prefetch_time(i) - instance.backward[i])
                + alpha * (instance.offload_time(i) + instance.prefetch_time(i))
            )
            off = cost + penalty
            take_off = off < keep
            new = np.where(take_off, off, keep)
        else:
            take_off = np.zeros(cap + 1, dtype=bool)
            new = keep
        # Floors of F_{i+2} and B_{i+2} with the kept prefix a_0..a_i.
        k = i + 2
        if k <= n:
            forward_need = s[k - 1] + s[k] + instance.workspace_forward[k - 1]
            gradient_in = s[n] if k == n else s[k]
            backward_need = 2 * s[k - 1] + gradient_in + instance.workspace_backward[k - 1]
            room = (M - max(forward_need, backward_need)) // unit
            if room < 0:
                return None
            new[room + 1 :] = inf
        choices.append(take_off)
        cost = new
    if not np.isfinite(cost).any():
        return None
    state = int(np.argmin(cost))
    chosen = set()
    for i in range(n - 1, -1, -1):
        if choices[i][state]:
            chosen.add(i)
        else:
            state -= size_units[i]
    return chosen


@bounded_simulations
def dp(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """POFO-style DP over discretized memory (anytime: finer grids while time remains).

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds; a grid is started only while time remains (the first always is).
    seed
        Unused (deterministic).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE with the best simulated DP set, bound `bounds.best`.
    """
    check_feasible(instance)
    deadline = _deadline(time_limit, 5.0)
    best, best_value, tried = None, float("inf"), []
    for buckets in (64, 256, 1024, 4096):
        for alpha in (0.0, 0.05, 0.2, 1.0):
            if best is not None and deadline_clock() > deadline:
                break
            chosen = dp_offload_set(instance, buckets, alpha)
            if chosen is None:
                continue
            try:
                solution = simulate(instance, chosen)
                if solution is None:
                    _, solution = shortest_feasible_prefix(instance, chosen, hideability_priority(instance), deadline)
            except TimeLimitReached:  # the method's hard deadline, inside a simulation
                if best is None:
                    raise
                return _result(instance, best, (*_passes(tried), "stopped by the time limit"))
            tried.append(buckets)
            if _value(instance, solution) < best_value:
                best, best_value = solution, _value(instance, solution)
    if best is None:
        best = simulate(instance, instance.offloadable)
    return _result(instance, best, _passes(tried))


def _passes(tried: list[int]) -> tuple[str]:
    return (f"{len(tried)} DP passes, finest grid {max(tried, default=0)} buckets",)
