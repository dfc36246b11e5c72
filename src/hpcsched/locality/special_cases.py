"""Polynomial special cases: tasks of equal duration.

* `semi_matching` (objective 1): an optimal semi-matching, so the optimal
  makespan and every L_p norm of the loads minimal.
* `unit_flow` (objective 1): the optimal makespan from OR-Tools' generic
  max-flow, the cross-check at scale.
* `quota_flow` (objective 2, ``remote_cost = 0``): the fewest non-local tasks.

Each returns NOT_APPLICABLE outside its class. The algorithms are in
`hpcsched.locality.flows`.

Notes
-----
The theorems (flow integrality, Harvey, Ladner, Lovász and Tamir's optimal
semi-matching, the quota network for the no-idle rule) and how the
push-relabel search proves its ``T*`` are in ``docs/locality.md``, section
"Special cases".
"""

from __future__ import annotations

from ..core.result import Result, Status
from .flows import (
    MIN_COST_BALANCING,
    equal_duration,
    maxflow_version,
    min_cost_flow_version,
    optimal_semi_matching_assignment,
    quota_flow_assignment,
    unit_flow_assignment,
)
from .model import Instance, Solution


def _not_applicable(why: str) -> Result:
    return Result(status=Status.NOT_APPLICABLE, notes=(why,))


def _equal_duration_makespan(instance: Instance) -> tuple[int | None, Result | None]:
    """The common duration, or the NOT_APPLICABLE result of an objective-1 special case."""
    if instance.objective != "makespan":
        return None, _not_applicable("objective 1 (makespan) only; use quota-flow for objective 2")
    duration = equal_duration(instance)
    if duration is None:
        return None, _not_applicable("tasks have different durations (NP-hard case)")
    return duration, None


def semi_matching(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Optimal semi-matching for equal durations: optimal makespan, and every L_p norm of the loads minimal.

    Parameters
    ----------
    instance
        Objective 1 with equal durations (else NOT_APPLICABLE).
    time_limit
        Unused: the algorithm is polynomial and ends on its own.
    seed
        Seeds the random choices of the push-relabel rounds (any seed gives an optimum).
    params
        None (no options).

    Returns
    -------
    Result
        OPTIMAL, with bound = objective = duration x ``T*``.
    """
    duration, refused = _equal_duration_makespan(instance)
    if refused is not None:
        return refused
    assert duration is not None
    found = optimal_semi_matching_assignment(instance, seed=seed)
    value = float(duration * found.target)
    solver = min_cost_flow_version() if found.balancing.startswith(MIN_COST_BALANCING) else None
    return Result(
        status=Status.OPTIMAL,
        objective=value,
        bound=value,
        solution=Solution.from_assignment(found.server_of_task, instance.servers),
        notes=(f"max tasks per server {found.target} (proven by a Hall set or the n/m bound); {found.describe()}",),
        solver=solver,
    )


def unit_flow(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Optimal makespan for equal durations: OR-Tools C++ max-flow, smallest T by bisection.

    Parameters
    ----------
    instance
        Objective 1 with equal durations (else NOT_APPLICABLE).
    time_limit, seed
        Unused: the algorithm is polynomial and deterministic.
    params
        None (no options).

    Returns
    -------
    Result
        OPTIMAL, with bound = objective = duration x ``T*``.
    """
    duration, refused = _equal_duration_makespan(instance)
    if refused is not None:
        return refused
    assert duration is not None
    found = unit_flow_assignment(instance)
    value = float(duration * found.target)
    return Result(
        status=Status.OPTIMAL,
        objective=value,
        bound=value,
        solution=Solution.from_assignment(found.server_of_task, instance.servers),
        notes=(f"max tasks per server {found.target}; {found.solves} max-flow solves",),
        solver=maxflow_version(),
    )


def quota_flow(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Fewest non-local tasks for equal durations and remote_cost 0 (quota max-flow).

    Parameters
    ----------
    instance
        Objective 2 with equal durations and ``remote_cost = 0`` (else NOT_APPLICABLE).
    time_limit, seed
        Unused: one max-flow.
    params
        None (no options).

    Returns
    -------
    Result
        OPTIMAL, with bound = objective = n - (largest number of local tasks).
    """
    if instance.objective != "communication":
        return _not_applicable("objective 2 (communication) only")
    if equal_duration(instance) is None:
        return _not_applicable("tasks have different durations (NP-hard case)")
    if instance.remote_cost != 0:
        return _not_applicable("remote_cost > 0: remote tasks are longer and quotas no longer equal no-idle")
    found = quota_flow_assignment(instance)
    nonlocal_count = float(instance.num_tasks - found.local)
    return Result(
        status=Status.OPTIMAL,
        objective=nonlocal_count,
        bound=nonlocal_count,
        solution=Solution.from_assignment(found.server_of_task, instance.servers),
        notes=(f"{found.local} local tasks (max-flow)",),
        solver=maxflow_version(),
    )
