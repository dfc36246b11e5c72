"""Out-of-core lower bound (``treemem.io_bounds``): never above the exact optimum, often equal, > 0 where I/O is needed."""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.deadline import Deadline
from hpcsched.core.io.instances import read_instance
from hpcsched.core.result import Status
from hpcsched.treemem import (
    OUT_OF_CORE_HEURISTICS,
    Instance,
    as_out_of_core,
    bounds,
    evaluate,
    generate_assembly,
    validate,
)
from hpcsched.treemem.heuristics.out_of_core import solution_of
from hpcsched.treemem.io_bounds import io_bound, peak_evicting, round_up_to_subset_sum
from hpcsched.treemem.simulate import Graph, gaps
from hpcsched.treemem.special_cases import forest_parent, tree_optimum

from .treemem_strategies import io_dags, io_trees

SOLVE = dict(problem="treemem", time_limit=60)
INSTANCES = Path(__file__).resolve().parents[2] / "instances" / "treemem"


@st.composite
def io_forests(draw, max_n: int = 8) -> Instance:
    """Out-of-core in-forests (several roots) whose leaves need much exec memory, M between max MemReq and P* − 1."""
    n = draw(st.integers(2, max_n))
    parents = [draw(st.integers(-1, k - 1)) for k in range(n)]  # -1: a root
    leaves = set(range(n)) - set(parents)
    execs = [draw(st.integers(5, 20)) if i in leaves else draw(st.integers(0, 2)) for i in range(n)]
    outputs = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    edges = [(k, p) for k, p in enumerate(parents) if p >= 0]
    forest = Instance.create(execs, outputs, edges, name="hypothesis-io-forest")
    graph = Graph.of(forest)
    memreq = max(graph.memreq(i) for i in range(graph.n))
    in_core = tree_optimum(forest)
    assert in_core is not None
    return as_out_of_core(forest, memory=draw(st.integers(memreq, max(memreq, in_core - 1))))


def brute_force_optimum(instance: Instance) -> float:
    result = hpcsched.solve(instance, "brute-force-io", **SOLVE)
    assert result.status is Status.OPTIMAL
    return result.objective


@settings(max_examples=60, deadline=None)
@given(st.one_of(io_trees(max_n=8), io_forests(max_n=8)), st.integers(1, 4))
def test_the_bound_never_exceeds_brute_force_and_the_closed_search_meets_it(instance, max_nodes):
    optimum = brute_force_optimum(instance)
    capped = io_bound(instance, max_nodes=max_nodes)
    assert capped is not None and capped.bound <= optimum
    assert not capped.optimal or capped.bound == optimum
    # the single-step argument: never below Liu's in-core optimum minus M
    assert capped.bound >= tree_optimum(instance) - (instance.memory or 0)
    closed = io_bound(instance, max_nodes=10**6)
    assert closed is not None and closed.optimal and closed.bound == optimum
    graph = Graph.of(instance)
    chosen = [g for g in gaps(graph, closed.order) if g.node in closed.evicted]
    solution = solution_of(instance, closed.order, chosen)
    assert validate(instance, solution) == [] and evaluate(instance, solution)["objective"] == optimum
    assert bounds.best(instance) <= optimum


@settings(max_examples=15, deadline=None)
@given(io_trees(min_n=9, max_n=12))
def test_the_bound_never_exceeds_milp_io_on_larger_trees(instance):
    milp = hpcsched.solve(instance, "milp-io", **SOLVE)
    assert milp.status is Status.OPTIMAL
    found = io_bound(instance, max_nodes=10**6)
    assert found is not None and found.optimal and found.bound == milp.objective
    for method in OUT_OF_CORE_HEURISTICS:
        result = hpcsched.solve(instance, method, **SOLVE)
        assert result.bound is not None and result.bound <= milp.objective <= result.objective, method


@settings(max_examples=40, deadline=None)
@given(io_trees(max_n=8), st.data())
def test_peak_evicting_is_the_validated_peak_of_its_order_with_those_gaps(instance, data):
    # the reduction: Liu's order on the modified sizes, with the chosen outputs evicted for their whole
    # gap, is a solution the independent validator accepts at M = the reported peak, and not at M - 1
    graph = Graph.of(instance)
    parent = forest_parent(graph)
    assert parent is not None
    evictable = [i for i in range(graph.n) if parent[i] >= 0 and graph.output[i] > 0]
    evicted = frozenset(data.draw(st.sets(st.sampled_from(evictable))) if evictable else ())
    order, value = peak_evicting(graph, parent, evicted)
    chosen = [g for g in gaps(graph, order) if g.node in evicted]
    solution = solution_of(instance, order, chosen)
    assert validate(as_out_of_core(instance, memory=value), solution) == []
    assert any(v.rule == "memory" for v in validate(as_out_of_core(instance, memory=value - 1), solution))


@settings(max_examples=100, deadline=None)
@given(st.integers(-3, 40), st.lists(st.integers(1, 12), max_size=6))
def test_subset_sum_rounding_against_enumeration(target, sizes):
    sums = {sum(c) for k in range(len(sizes) + 1) for c in itertools.combinations(sizes, k)}
    above = [s for s in sums if s >= target]
    expected = 0 if target <= 0 else (min(above) if above else None)
    assert round_up_to_subset_sum(target, sizes) == expected


def three_leaves(memory: int) -> Instance:
    """Three leaves (exec 10, output 5) under a root: the third leaf's step holds 10 + 15 whatever the order."""
    return Instance.create(
        [10, 10, 10, 0], [5, 5, 5, 0], [(0, 3), (1, 3), (2, 3)], question="out-of-core", memory=memory
    )


def test_positive_by_hand_and_rounded_to_a_subset_sum():
    # M = 15: P* − M = 10, two outputs of 5 (by hand, as in test_out_of_core); M = 24: P* − M = 1, but
    # the least output is 5, so at least 5 bytes are written
    assert io_bound(three_leaves(15), max_nodes=1).bound == 10
    assert io_bound(three_leaves(24), max_nodes=1).bound == 5
    assert bounds.best(three_leaves(24)) == 5.0 and bounds.best(three_leaves(25)) == 0.0


def test_the_assembly_tree_bound_proves_the_heuristic_value_above_liu_minus_m():
    # solved.json: io-belady writes 64 bytes, milp-io proved 64 by hand (74.5 s); P* − M is 270 − 238 = 32
    instance = read_instance(INSTANCES / "assembly-8x8-nested-dissection-a0-s0-io-M238.json")
    assert tree_optimum(instance) - instance.memory == 32
    assert bounds.best(instance) == 64.0
    result = hpcsched.solve(instance, "io-belady", **SOLVE)
    assert (result.status, result.objective, result.bound) == (Status.OPTIMAL, 64.0, 64.0)


def test_no_bound_on_dags_and_on_infeasible_memory():
    dag = Instance.create(
        [5, 5, 0, 0], [4, 4, 1, 1], [(0, 2), (1, 2), (0, 3), (1, 3)], question="out-of-core", memory=11
    )
    assert not dag.is_in_forest
    assert io_bound(dag) is None and bounds.best(dag) == 0.0
    assert io_bound(three_leaves(14)) is None  # a leaf alone needs 15


@settings(max_examples=20, deadline=None)
@given(io_dags(max_n=6))
def test_bounds_best_on_dags_stays_below_brute_force(instance):
    assert bounds.best(instance) <= brute_force_optimum(instance)


def test_an_expired_deadline_gives_no_bound_or_a_valid_one():
    instance = read_instance(INSTANCES / "random-tree-n200-s3-io-M482.json")
    assert io_bound(instance, deadline=Deadline.after(0.0)) is None
    result = hpcsched.solve(instance, "io-best-fit", problem="treemem", time_limit=1e-9)
    if result.objective is not None and result.bound is not None:
        assert result.bound <= result.objective


def test_a_closed_search_carries_a_solution_the_validator_accepts_at_the_bound():
    # 12x12 nested-dissection assembly tree at 0.8 of its in-core optimum: the search closes at a value
    # below every eviction rule's, so its solution is checked by the independent validator and evaluate
    instance = as_out_of_core(generate_assembly(shape=(12, 12)), fraction=0.8)
    found = io_bound(instance)
    assert found is not None and found.optimal
    graph = Graph.of(instance)
    solution = solution_of(instance, found.order, [g for g in gaps(graph, found.order) if g.node in found.evicted])
    assert validate(instance, solution) == []
    assert evaluate(instance, solution)["objective"] == found.bound > tree_optimum(instance) - instance.memory
    rules = [hpcsched.solve(instance, method, **SOLVE) for method in OUT_OF_CORE_HEURISTICS]
    assert all(found.bound <= result.objective for result in rules)
