"""Heuristics return valid orders, never below the proven bound nor below the optimum."""

from __future__ import annotations

from hypothesis import given, settings

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import HEURISTIC_METHODS, generate_random_dag, lower_bound
from hpcsched.treemem.heuristics import dfs_order, forest_order, greedy_order
from hpcsched.treemem.simulate import Graph

from .treemem_strategies import dags, trees

SOLVE = dict(problem="treemem", time_limit=60)


@settings(max_examples=40, deadline=None)
@given(dags(max_n=8))
def test_heuristics_between_bound_and_optimum(instance):
    optimum = hpcsched.solve(instance, "dp", **SOLVE).objective
    assert lower_bound(instance) <= optimum
    for method in HEURISTIC_METHODS:
        result = hpcsched.solve(
            instance, method, **SOLVE, **({"max_iterations": 50} if method == "local-search" else {})
        )
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE), (method, result.notes)
        assert result.objective >= optimum
        assert result.bound <= optimum
        if result.status is Status.OPTIMAL:
            assert result.objective == optimum


@settings(max_examples=40, deadline=None)
@given(trees(max_n=12))
def test_forest_postorder_on_a_tree_is_the_best_postorder(instance):
    assert (
        hpcsched.solve(instance, "forest-postorder", **SOLVE).objective
        == hpcsched.solve(instance, "best-postorder", **SOLVE).objective
    )
    assert (
        hpcsched.solve(instance, "forest-postorder", traversal="liu", **SOLVE).objective
        == hpcsched.solve(instance, "liu-optimal", **SOLVE).objective
    )


def test_orders_are_topological_on_larger_dags():
    instance = generate_random_dag(seed=11, n=60, edge_probability=0.08)
    graph = Graph.of(instance)
    for order in (dfs_order(graph), greedy_order(graph), forest_order(graph), forest_order(graph, "liu")):
        position = {node: k for k, node in enumerate(order)}
        assert sorted(order) == list(range(graph.n))
        assert all(position[u] < position[v] for u, v in instance.edges)


def test_local_search_is_seeded_and_never_worse_than_its_start():
    instance = generate_random_dag(seed=4, n=30, edge_probability=0.1)
    first = hpcsched.solve(instance, "local-search", seed=3, max_iterations=300, **SOLVE)
    again = hpcsched.solve(instance, "local-search", seed=3, max_iterations=300, **SOLVE)
    assert first.solution == again.solution
    starts = min(
        hpcsched.solve(instance, m, **SOLVE).objective for m in ("greedy", "dfs-postorder", "forest-postorder")
    )
    assert first.objective <= starts
