"""Polynomial special cases of ``offload``.

- `no_offload_suffices`.  Theorem: if keeping every activation fits in M,
  then no offloading with every step back to back is optimal, with makespan
  Σ (f + b).  Proof: Σ (f + b) is a lower bound (one compute stream) and the
  schedule attains it.  Checked by simulating O = {} (no idle time arises
  when nothing waits for memory).
- `zero_transfer`.  Theorem: if every transfer takes zero time (infinite
  bandwidth and latency 0) and the instance is feasible, offloading every
  offloadable activation as early as possible attains Σ (f + b).  Proof: at
  the start of F_k every offloaded a_i, i <= k-2, has left at the end of
  F_{i+1} <= start F_k, so memory is the floor of F_k (<= M, see
  `model.memory_floors`); in the backward phase a_{k-1} comes back in zero
  time at the end of B_{k+1}, when memory is the floor of B_k minus δ_{k-1}
  and wb_k; no step waits.  Outside their class both return NOT_APPLICABLE.
"""

from __future__ import annotations

from ..core.result import Result, Status
from .model import Instance, check_feasible
from .simulate import bounded_simulations, makespan_of, simulate


@bounded_simulations
def no_offload_suffices(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Memory holds everything: no offload, makespan Σ(f+b), OPTIMAL.

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for its one simulation (past them, `TimeLimitReached`: no solution).
    seed
        Unused (deterministic).
    params
        None (no options).

    Returns
    -------
    Result
        OPTIMAL at Σ(f+b) when keeping every activation fits without idle time, else NOT_APPLICABLE.
    """
    check_feasible(instance)
    solution = simulate(instance, ())
    if solution is None or makespan_of(instance, solution) != instance.compute_time:
        return Result(status=Status.NOT_APPLICABLE, notes=("keeping every activation does not fit without idle time",))
    return Result(
        status=Status.OPTIMAL, objective=instance.compute_time, bound=instance.compute_time, solution=solution
    )


@bounded_simulations
def zero_transfer(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Zero transfer times: offload everything as soon as possible, makespan Σ(f+b), OPTIMAL.

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for its one simulation (past them, `TimeLimitReached`: no solution).
    seed
        Unused (deterministic).
    params
        None (no options).

    Returns
    -------
    Result
        OPTIMAL at Σ(f+b) when every transfer takes no time, else NOT_APPLICABLE.
    """
    check_feasible(instance)
    if instance.latency != 0 or instance.bandwidth_out is not None or instance.bandwidth_in is not None:
        return Result(status=Status.NOT_APPLICABLE, notes=("transfers take time (finite bandwidth or latency > 0)",))
    solution = simulate(instance, instance.offloadable)
    value = makespan_of(instance, solution)
    status = Status.OPTIMAL if value == instance.compute_time else Status.FEASIBLE
    return Result(status=status, objective=value, bound=instance.compute_time, solution=solution)
