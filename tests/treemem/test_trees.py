"""Liu's optimal traversal equals the exact DP on trees; the best post-order never beats it; the harpoon."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import Instance, generate_harpoon, generate_random_dag, generate_random_tree
from hpcsched.treemem.simulate import Graph, peak
from hpcsched.treemem.special_cases import best_postorder_order, forest_parent, liu_optimal_order

from .treemem_strategies import trees

SOLVE = dict(problem="treemem", time_limit=60)


def run(instance, method, **options):
    return hpcsched.solve(instance, method, **SOLVE, **options)


@settings(max_examples=150, deadline=None)
@given(trees(max_n=14))
def test_liu_optimal_equals_dp(instance):
    liu, exact = run(instance, "liu-optimal"), run(instance, "dp")
    assert liu.status is Status.OPTIMAL and exact.status is Status.OPTIMAL
    assert liu.objective == exact.objective


@settings(max_examples=150, deadline=None)
@given(trees(max_n=30))
def test_best_postorder_never_below_liu_and_its_peak_is_right(instance):
    graph = Graph.of(instance)
    parent = forest_parent(graph)
    order, claimed = best_postorder_order(graph, parent)
    assert peak(graph, order) == claimed
    liu_order, liu_peak = liu_optimal_order(graph, parent)
    assert peak(graph, liu_order) == liu_peak <= claimed
    result = run(instance, "best-postorder")
    assert result.objective == claimed and result.bound <= liu_peak


def test_liu_equals_dp_on_generated_trees_with_bounded_fan_in():
    for seed in range(40):
        instance = generate_random_tree(seed=seed, n=16, max_children=2 + seed % 3)
        assert run(instance, "liu-optimal").objective == run(instance, "dp").objective, seed


@pytest.mark.parametrize("k", [2, 4, 10])
def test_harpoon_best_postorder_is_far_from_optimal(k):
    big = 100 * k
    instance = generate_harpoon(k=k, big=big, small=1)
    optimal = run(instance, "liu-optimal")
    postorder = run(instance, "best-postorder")
    assert optimal.objective == big + k  # all leaves first
    assert postorder.objective == (k - 1) * big // k + big + 1
    assert postorder.status is Status.FEASIBLE
    if k <= 4:
        assert run(instance, "dp").objective == optimal.objective


def test_forest_of_trees():
    # two in-trees; the roots are sinks whose outputs are freed at their end
    instance = Instance.create([1, 2, 0, 3, 0], [4, 5, 6, 1, 2], [(0, 2), (1, 2), (3, 4)])
    assert instance.is_in_forest and not instance.is_tree
    assert run(instance, "liu-optimal").objective == run(instance, "brute-force").objective


def test_tree_methods_refuse_dags():
    dag = generate_random_dag(seed=2, n=8, edge_probability=0.6)
    assert not dag.is_in_forest
    for method in ("liu-optimal", "best-postorder"):
        assert run(dag, method).status is Status.NOT_APPLICABLE


def test_liu_on_a_large_tree_is_consistent():
    instance = generate_random_tree(seed=7, n=20_000, max_children=4)
    result = run(instance, "liu-optimal")
    assert result.status is Status.OPTIMAL
    assert run(instance, "best-postorder").objective >= result.objective
