"""search-io (out-of-core, in-forests): exact against brute-force-io and milp-io, cut searches, time limit, auto."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from workclock import assert_stops_promptly, solve_past_deadline

import hpcsched
from hpcsched.core.errors import OptionError
from hpcsched.core.result import Status
from hpcsched.treemem import (
    OUT_OF_CORE_HEURISTICS,
    Instance,
    _choose,
    as_out_of_core,
    generate_random_tree,
    validate,
)
from hpcsched.treemem.formulations.search_io import SearchIoParams
from hpcsched.treemem.simulate import Graph
from hpcsched.treemem.special_cases import tree_optimum

from .treemem_strategies import io_dags, io_trees

SOLVE = dict(problem="treemem", time_limit=60)


@st.composite
def io_forests(draw, min_n: int = 2, max_n: int = 8) -> Instance:
    """Out-of-core in-forests (several roots) whose leaves need much exec memory, M in [max MemReq, P* − 1]."""
    n = draw(st.integers(min_n, max_n))
    parents = [draw(st.integers(-1, k - 1)) for k in range(n)]  # -1: a root
    leaves = set(range(n)) - set(parents)
    execs = [draw(st.integers(5, 20)) if i in leaves else draw(st.integers(0, 2)) for i in range(n)]
    outputs = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    forest = Instance.create(execs, outputs, [(k, p) for k, p in enumerate(parents) if p >= 0], name="io-forest")
    graph = Graph.of(forest)
    memreq = max(graph.memreq(i) for i in range(graph.n))
    in_core = tree_optimum(forest)
    assert in_core is not None
    return as_out_of_core(forest, memory=draw(st.integers(memreq, max(memreq, in_core - 1))))


def _checked(instance: Instance, result) -> None:
    """A solution the validator accepts, whose objective is the stated one, with bound <= objective."""
    assert result.status.has_solution, result.notes
    assert validate(instance, result.solution) == []
    assert result.bound is not None and result.bound <= result.objective


@settings(max_examples=60, deadline=None)
@given(st.one_of(io_trees(max_n=8), io_forests(max_n=8)))
def test_equals_brute_force_io_on_small_trees_and_forests(instance):
    reference = hpcsched.solve(instance, "brute-force-io", **SOLVE)
    assert reference.status is Status.OPTIMAL
    result = hpcsched.solve(instance, "search-io", **SOLVE)
    _checked(instance, result)
    assert result.status is Status.OPTIMAL and result.objective == reference.objective
    assert result.bound == reference.objective


@settings(max_examples=8, deadline=None)
@given(st.one_of(io_trees(min_n=9, max_n=12), io_forests(min_n=9, max_n=12)))
def test_equals_milp_io_on_9_to_12_node_trees(instance):
    reference = hpcsched.solve(instance, "milp-io", **SOLVE)
    assert reference.status is Status.OPTIMAL
    result = hpcsched.solve(instance, "search-io", **SOLVE)
    _checked(instance, result)
    assert result.status is Status.OPTIMAL and result.objective == reference.objective


@settings(max_examples=20, deadline=None)
@given(io_dags(min_n=4, max_n=6))
def test_refuses_dags_and_other_questions(dag):
    if dag.is_in_forest:
        return
    assert hpcsched.solve(dag, "search-io", **SOLVE).status is Status.NOT_APPLICABLE


def test_refuses_the_sequential_question():
    tree = generate_random_tree(seed=1, n=10)
    assert hpcsched.solve(tree, "search-io", **SOLVE).status is Status.NOT_APPLICABLE


@pytest.mark.parametrize("seed", range(6))
def test_never_worse_than_every_eviction_heuristic(seed):
    instance = as_out_of_core(generate_random_tree(seed=seed, n=120), fraction=0.4)
    result = hpcsched.solve(instance, "search-io", **SOLVE)
    _checked(instance, result)
    for method in OUT_OF_CORE_HEURISTICS:
        other = hpcsched.solve(instance, method, **SOLVE)
        assert result.objective <= other.objective, method


def test_a_cut_search_returns_feasible_with_a_valid_bound():
    # the search closes after 81 nodes; no time limit, so that OPTIMAL depends on the node cap alone
    instance = as_out_of_core(generate_random_tree(seed=1, n=200), fraction=0.5)
    closed = hpcsched.solve(instance, "search-io", problem="treemem", time_limit=math.inf, max_nodes=100_000)
    _checked(instance, closed)
    assert closed.status is Status.OPTIMAL
    cut = hpcsched.solve(instance, "search-io", max_nodes=2, **SOLVE)
    _checked(instance, cut)
    assert cut.status is Status.FEASIBLE and cut.bound <= closed.objective <= cut.objective
    assert "cut" in cut.notes[-1]


def test_the_node_cap_option_is_validated():
    assert SearchIoParams().max_nodes is None
    with pytest.raises(OptionError):
        SearchIoParams(max_nodes=0)


def test_the_time_limit_is_honoured_on_a_large_tree():
    # no wall clock (tests/workclock.py): the eviction rules end and the search starts ~283,000 lines into
    # the run, each node then runs Liu's algorithm once or twice (~50,000-120,000 lines); the deadline passes
    # after 700,000 lines, in the sixth node (unlimited, the search closes after 5,859 nodes, 29 s), and the
    # lines run after it are counted
    instance = as_out_of_core(generate_random_tree(seed=1, n=1000), fraction=0.3)
    result, clock = solve_past_deadline(
        instance, "search-io", problem="treemem", lines=700_000, max_nodes=10**7, budget=5_000_000
    )
    _checked(instance, result)
    assert result.status is Status.FEASIBLE and "search cut" in result.notes[-1], result.notes
    assert_stops_promptly(instance, result, clock)
    belady = hpcsched.solve(instance, "io-belady", **SOLVE)
    assert result.objective <= belady.objective


def test_auto_picks_milp_io_up_to_20_nodes_and_search_io_beyond():
    small = as_out_of_core(generate_random_tree(seed=2, n=20), fraction=0.5)
    large = as_out_of_core(generate_random_tree(seed=2, n=21), fraction=0.5)
    assert _choose(small) == "milp-io" and _choose(large) == "search-io"
    result = hpcsched.solve(large, "auto", **SOLVE)
    _checked(large, result)
    assert result.objective <= hpcsched.solve(large, "io-belady", **SOLVE).objective
