"""Lower bounds and the balls-into-bins predictions of the locality problem.

Objective 1 (makespan, local only), all bounds are integers because loads are:

* `trivial_bound` = ``max(ceil(sum p / m), max p)``.
* `hall_bound`: the best ``ceil(sum_{R_j in S} p_j / |S|)`` over all server
  subsets ``S``, computed as the smallest ``T`` for which a fractional flow
  network carries ``sum p`` (bisection, OR-Tools max-flow);
  `hall_bound_enumerated` checks every subset (tiny m, tests).
* `equal_duration_bound`: when durations are all ``p``, ``p`` times the unit
  optimum (the semi-matching), which is the optimum itself.

Objective 2 (non-local count under no idle): `communication_bound`,
``min(n, m) - nu`` with ``nu`` a maximum matching of local (server, task)
pairs, or the quota flow optimum for equal durations and ``remote_cost = 0``.

Predictions (for plots beside measurements, not proofs): `balls_into_bins_max_load`,
`power_of_choices_max_load`, `optimal_excess_prediction`.

Notes
-----
The proofs (the Hall bound as a min cut, why every server runs a task when
n > m under no idle, when the matching bound is the optimum) and the sources
of the predictions are in ``docs/locality.md``, section "Lower bounds".
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .flows import equal_duration, quota_flow_assignment, semi_matching_assignment
from .model import Instance


def trivial_bound(instance: Instance) -> int:
    """``max(ceil(sum p / m), max p)`` (objective 1)."""
    total = int(instance.durations.sum())
    return max(-(-total // instance.servers), int(instance.durations.max()))


def fractional_flow_value(instance: Instance, capacity: int) -> int:
    """Max-flow of source -(p_j)-> task -(inf)-> replica -(capacity)-> sink (OR-Tools)."""
    from ortools.graph.python import max_flow

    n, m = instance.num_tasks, instance.servers
    flow = max_flow.SimpleMaxFlow()
    source, sink = n + m, n + m + 1
    flow.add_arcs_with_capacity(
        np.full(n, source, dtype=np.int32), np.arange(n, dtype=np.int32), instance.durations.astype(np.int64)
    )
    entry_task = np.repeat(np.arange(n, dtype=np.int32), instance.replica_counts)
    big = int(instance.durations.sum())
    flow.add_arcs_with_capacity(
        entry_task, (instance.replica_servers + n).astype(np.int32), np.full(entry_task.size, big, dtype=np.int64)
    )
    flow.add_arcs_with_capacity(
        np.arange(n, n + m, dtype=np.int32), np.full(m, sink, dtype=np.int32), np.full(m, capacity, dtype=np.int64)
    )
    if flow.solve(source, sink) != flow.OPTIMAL:  # pragma: no cover
        raise RuntimeError("OR-Tools max-flow failed")
    return int(flow.optimal_flow())


def hall_bound(instance: Instance) -> int:
    """Best Hall-type bound over all server subsets (bisection on the fractional flow)."""
    total = int(instance.durations.sum())
    low = -(-total // instance.servers)
    # Upper end: all of a task's work on its first replica.
    first = instance.replica_servers[instance.replica_offsets[:-1]]
    high = int(np.bincount(first, weights=instance.durations, minlength=instance.servers).max())
    while low < high:
        middle = (low + high) // 2
        if fractional_flow_value(instance, middle) == total:
            high = middle
        else:
            low = middle + 1
    return low


def hall_bound_enumerated(instance: Instance, max_servers: int = 12) -> int:
    """The Hall bound by enumerating every server subset (tiny m only)."""
    m = instance.servers
    if m > max_servers:
        raise ValueError(f"enumeration over 2^{m} subsets refused (max_servers={max_servers})")
    replica_sets = [frozenset(instance.replicas(j).tolist()) for j in range(instance.num_tasks)]
    durations = instance.durations.tolist()
    best = 0
    for size in range(1, m + 1):
        for subset in itertools.combinations(range(m), size):
            inside = set(subset)
            work = sum(p for p, replicas in zip(durations, replica_sets, strict=True) if replicas <= inside)
            best = max(best, -(-work // size))
    return best


def equal_duration_bound(instance: Instance) -> int | None:
    """``p * OPT_unit`` when all durations are ``p`` (then it is the optimum), else None."""
    duration = equal_duration(instance)
    if duration is None:
        return None
    return duration * semi_matching_assignment(instance).target


def maximum_local_matching(instance: Instance) -> int:
    """Largest set of (server, task) local pairs with distinct servers and distinct tasks."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    n = instance.num_tasks
    matrix = csr_matrix(
        (
            np.ones(instance.replica_servers.size, dtype=np.int8),
            instance.replica_servers.astype(np.int32),
            instance.replica_offsets.astype(np.int64),
        ),
        shape=(n, instance.servers),
    )
    matched = maximum_bipartite_matching(matrix, perm_type="column")
    return int(np.count_nonzero(matched >= 0))


def communication_bound(instance: Instance) -> int:
    """Lower bound on the non-local count (objective 2), see the module docstring."""
    if instance.remote_cost == 0 and equal_duration(instance) is not None:
        return instance.num_tasks - quota_flow_assignment(instance).local
    return max(0, min(instance.num_tasks, instance.servers) - maximum_local_matching(instance))


def best(instance: Instance) -> float:
    """The best cheap proven lower bound for the instance's objective."""
    if instance.objective == "communication":
        return float(communication_bound(instance))
    exact = equal_duration_bound(instance) if instance.num_tasks <= 10_000_000 else None
    if exact is not None:
        return float(exact)
    bound = trivial_bound(instance)
    if instance.num_tasks * instance.servers <= 10**8:
        bound = max(bound, hall_bound(instance))
    return float(bound)


# ------------------------------------------------------------- predictions
def balls_into_bins_max_load(n: float, m: float) -> float:
    """Predicted largest bin when n balls fall uniformly into m bins (one choice)."""
    load = n / m
    if m < 3:
        return float(n)
    if load <= math.log(m):
        # Light load (Raab and Steger): ln m / ln(m ln m / n) order term.
        return max(load, math.log(m) / math.log(max(math.e, m * math.log(m) / n)))
    return load + math.sqrt(2.0 * load * math.log(m))


def power_of_choices_max_load(n: float, m: float, d: int) -> float:
    """Predicted largest bin of greedy d-choice (Azar, Broder, Karlin, Upfal; Berenbrink et al.)."""
    if d <= 1:
        return balls_into_bins_max_load(n, m)
    return n / m + math.log(max(math.log(m), 1.0)) / math.log(d)


def optimal_excess_prediction(n: float, m: float, r: int) -> float:
    """Predicted ``OPT - ceil(n/m)`` for unit tasks with r random replicas."""
    if r <= 1:
        return balls_into_bins_max_load(n, m) - math.ceil(n / m)
    return 0.0
