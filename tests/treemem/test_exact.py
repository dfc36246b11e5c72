"""Exact methods agree with brute force and with each other; time limits return promptly."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import generate_random_dag, generate_random_tree

from .treemem_strategies import dags, trees

SOLVE = dict(problem="treemem", time_limit=60)


def optimum(instance, method, **options):
    result = hpcsched.solve(instance, method, **SOLVE, **options)
    assert result.status is Status.OPTIMAL, (method, result.notes)
    assert result.bound == result.objective
    return result.objective


@settings(max_examples=60, deadline=None)
@given(dags(max_n=7))
def test_dp_equals_brute_force_on_dags(instance):
    assert optimum(instance, "dp") == optimum(instance, "brute-force")


@settings(max_examples=40, deadline=None)
@given(trees(max_n=8))
def test_dp_equals_brute_force_on_trees(instance):
    assert optimum(instance, "dp") == optimum(instance, "brute-force")


@settings(max_examples=12, deadline=None)
@given(dags(max_n=6))
def test_milp_and_cpsat_equal_dp(instance):
    best = optimum(instance, "dp")
    assert optimum(instance, "milp") == best
    assert optimum(instance, "cpsat", workers=1) == best


def test_dp_exact_on_a_wider_dag_against_cpsat():
    instance = generate_random_dag(seed=3, n=14, edge_probability=0.2)
    assert optimum(instance, "dp") == optimum(instance, "cpsat", workers=1, deterministic_time=60.0)


def test_dp_state_cap_returns_incumbent_with_a_valid_bound():
    instance = generate_random_dag(seed=5, n=18, edge_probability=0.1)
    capped = hpcsched.solve(instance, "dp", max_states=5, **SOLVE)
    exact = optimum(instance, "dp")
    assert capped.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert capped.bound <= exact <= capped.objective


@pytest.mark.parametrize("method", ["dp", "milp", "cpsat", "brute-force", "local-search", "greedy", "liu-optimal"])
def test_tiny_time_limit_returns_promptly_without_raising(method):
    instance = generate_random_tree(seed=1, n=8)
    result = hpcsched.solve(instance, method, problem="treemem", time_limit=1e-9)
    assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE, Status.OPTIMAL)
    assert result.status is not Status.ERROR


def test_brute_force_refuses_large_instances():
    result = hpcsched.solve(generate_random_tree(seed=1, n=9), "brute-force", **SOLVE)
    assert result.status is Status.NOT_APPLICABLE


def test_options_are_checked():
    from hpcsched.core.errors import OptionError

    with pytest.raises(OptionError, match="options.max_states"):
        hpcsched.solve(generate_random_tree(seed=1, n=5), "dp", max_states=0, **SOLVE)
    with pytest.raises(OptionError, match="options.traversal"):
        hpcsched.solve(generate_random_tree(seed=1, n=5), "forest-postorder", traversal="bfs", **SOLVE)
