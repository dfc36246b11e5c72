"""`semi-matching` returns an optimal semi-matching (Harvey, Ladner, Lovasz, Tamir 2006), not only the makespan."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from reference import proven_optimum

import hpcsched
from hpcsched.core.result import Status
from hpcsched.locality import Instance, generate_uniform
from hpcsched.locality.flows import MIN_COST_BALANCING, optimal_semi_matching_assignment

# Loads [5, 3, 0] have the optimal maximum but not the optimal semi-matching [5, 2, 1].
REVIEW_EXAMPLE = Instance.create(3, [1] * 8, [[1, 2], [1], [1]] + [[0]] * 5)


def counts_of(instance, result):
    """Tasks per server."""
    return np.bincount(result.solution.server_of_task(instance.num_tasks), minlength=instance.servers)


def test_review_example_is_balanced_below_the_maximum():
    instance = REVIEW_EXAMPLE
    result = hpcsched.solve(instance, "semi-matching")
    assert result.status is Status.OPTIMAL and result.objective == 5
    assert sorted(counts_of(instance, result).tolist()) == [1, 2, 5]
    plan = hpcsched.solve(instance, "plan-then-execute")
    assert sorted(counts_of(instance, plan).tolist()) == [1, 2, 5]


@st.composite
def tiny_instances(draw):
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 8))
    # Few distinct replica sets, repeated: skewed demand is where balancing below the maximum matters.
    pool = draw(st.lists(st.sets(st.integers(0, m - 1), min_size=1, max_size=min(m, 3)), min_size=1, max_size=3))
    replicas = [sorted(pool[draw(st.integers(0, len(pool) - 1))]) for _ in range(n)]
    replicas.sort(key=lambda servers: -len(servers))  # flexible tasks first: the order that fooled the old method
    duration = draw(st.integers(1, 3))
    return Instance.create(m, [duration] * n, replicas)


def brute_force_optimum(instance):
    """(smallest sum of squared counts, smallest largest count) over every local assignment."""
    choices = [instance.replicas(j).tolist() for j in range(instance.num_tasks)]
    assignments = np.array(list(itertools.product(*choices)), dtype=np.int64)  # at most 3^8 rows
    counts = np.stack([(assignments == server).sum(axis=1) for server in range(instance.servers)], axis=1)
    return int((counts**2).sum(axis=1).min()), int(counts.max(axis=1).min())


@settings(max_examples=200, deadline=None)
@given(tiny_instances(), st.integers(0, 3))
@example(REVIEW_EXAMPLE, 0)
def test_semi_matching_minimizes_sum_of_squares_and_maximum_by_brute_force(instance, seed):
    best_squares, best_max = brute_force_optimum(instance)
    result = hpcsched.solve(instance, "semi-matching", seed=seed)
    counts = counts_of(instance, result)
    assert result.status is Status.OPTIMAL
    assert int((counts**2).sum()) == best_squares
    assert int(counts.max()) == best_max and result.objective == best_max * int(instance.durations[0])


def test_min_cost_flow_path_at_a_moderate_size_keeps_the_maximum():
    instance = generate_uniform(seed=3, n=2050, m=40, r=2)
    found = optimal_semi_matching_assignment(instance)
    counts = np.bincount(found.server_of_task, minlength=instance.servers)
    assert int(counts.max()) == found.target == proven_optimum(instance, "unit-flow")
    assert int(counts.max()) - int(counts.min()) <= 1 or found.balancing.startswith(MIN_COST_BALANCING)
    for j in range(instance.num_tasks):
        assert found.server_of_task[j] in instance.replicas(j)
