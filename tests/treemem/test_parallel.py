"""The parallel question: validator rules, TOPC 2015 heuristics and bounds, CP-SAT against brute force."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.core.result import Status
from hpcsched.treemem import (
    PARALLEL_METHODS,
    Instance,
    Solution,
    as_parallel,
    evaluate,
    generate_parallel_tree,
    generate_random_dag,
    validate,
)
from hpcsched.treemem.bounds import parallel_lower_bound

SOLVE = dict(problem="treemem", time_limit=60)


def chain_and_leaf(memory=10, processors=2):
    # a (f=3) and b (f=4, n=1) feed c (n=2, f=0); times 2, 1, 1
    return Instance.create(
        [0, 1, 2],
        [3, 4, 0],
        [(0, 2), (1, 2)],
        times=[2, 1, 1],
        names=["a", "b", "c"],
        question="parallel",
        processors=processors,
        memory=memory,
    )


def rules(instance, start, processor):
    return sorted({v.rule for v in validate(instance, Solution(None, start, processor))})


def test_validator_rules_by_hand():
    instance = chain_and_leaf()
    good = ({"a": 0, "b": 0, "c": 2}, {"a": 0, "b": 1, "c": 0})
    assert rules(instance, *good) == []
    kpis = evaluate(instance, Solution(None, *good))
    # a (3) and b (1 + 4) run together: 8; c runs with a's and b's outputs: 3 + 4 + 2 = 9
    assert kpis["objective"] == 3 and kpis["peak_memory"] == 9
    assert rules(instance, {"a": 0, "b": 0, "c": 1}, {"a": 0, "b": 1, "c": 1}) == ["precedence"]
    assert rules(instance, {"a": 0, "b": 1, "c": 2}, {"a": 0, "b": 0, "c": 0}) == ["overlap"]
    assert rules(instance, good[0], {"a": 0, "b": 2, "c": 0}) == ["processor"]
    assert rules(chain_and_leaf(memory=8), *good) == ["memory"]
    assert rules(instance, {"a": 0, "b": 0}, good[1]) == ["missing"]
    assert rules(instance, {"a": -1, "b": 0, "c": 2}, good[1]) == ["negative-start"]
    assert [v.rule for v in validate(instance, Solution(("a", "b", "c")))] == ["kind"]


def test_frees_before_allocations_at_the_same_instant():
    # b starts when a ends: a's exec (5) is freed before b's (5) is allocated
    instance = Instance.create(
        [5, 5], [0, 0], [], times=[1, 1], names=["a", "b"], question="parallel", processors=1, memory=5
    )
    assert rules(instance, {"a": 0, "b": 1}, {"a": 0, "b": 0}) == []
    assert rules(as_parallel(instance, processors=2, memory=5), {"a": 0, "b": 0}, {"a": 0, "b": 1}) == ["memory"]


def brute_force_makespan(instance):
    """Least makespan over every start vector and processor assignment (tiny instances only)."""
    names = [v.name for v in instance.nodes]
    horizon = sum(v.time for v in instance.nodes)
    best = None
    for starts in itertools.product(*(range(horizon - v.time + 1) for v in instance.nodes)):
        makespan = max(s + v.time for s, v in zip(starts, instance.nodes, strict=True))
        if best is not None and makespan >= best:
            continue
        for procs in itertools.product(range(instance.processors), repeat=len(names)):
            if not validate(
                instance, Solution(None, dict(zip(names, starts, strict=True)), dict(zip(names, procs, strict=True)))
            ):
                best = makespan
                break
    return best


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(1, 2), st.sampled_from([1.0, 1.3, 2.0]))
def test_cpsat_parallel_equals_brute_force(seed, n, processors, factor):
    instance = generate_parallel_tree(seed=seed, n=n, processors=processors, memory_factor=factor, max_time=2)
    result = hpcsched.solve(instance, "cpsat-parallel", workers=1, **SOLVE)
    assert result.status is Status.OPTIMAL
    assert result.objective == brute_force_makespan(instance)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 25), st.sampled_from([1, 2, 4]), st.sampled_from([1.0, 1.5, 3.0]))
def test_heuristics_are_valid_and_never_below_the_bound(seed, n, processors, factor):
    instance = generate_parallel_tree(seed=seed, n=n, processors=processors, memory_factor=factor)
    bound = parallel_lower_bound(instance)
    for method in PARALLEL_METHODS:
        result = hpcsched.solve(instance, method, **SOLVE)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.NOT_APPLICABLE), (method, result.notes)
        if result.solution is not None:
            assert result.objective >= bound and result.bound == bound
    for method in ("par-inner-first-capped", "par-deepest-first-capped"):
        assert hpcsched.solve(instance, method, **SOLVE).status in (Status.OPTIMAL, Status.FEASIBLE)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 9))
def test_cpsat_parallel_never_worse_than_heuristics(seed, n):
    instance = generate_parallel_tree(seed=seed, n=n, processors=2, memory_factor=1.5)
    exact = hpcsched.solve(instance, "cpsat-parallel", workers=1, deterministic_time=20.0, **SOLVE)
    assert exact.status is Status.OPTIMAL
    for method in PARALLEL_METHODS:
        result = hpcsched.solve(instance, method, **SOLVE)
        if result.solution is not None:
            assert result.objective >= exact.objective


def test_memory_below_the_sequential_optimum_is_infeasible():
    instance = generate_parallel_tree(seed=3, n=10, processors=2, memory_factor=1.0)
    tight = as_parallel(instance, processors=2, memory=instance.memory - 1)
    for method in ("cpsat-parallel", "par-inner-first-capped", "par-subtrees"):
        result = hpcsched.solve(tight, method, **SOLVE)
        assert result.status is Status.INFEASIBLE and f"> M = {tight.memory}" in result.notes[0]


def test_questions_do_not_mix():
    parallel = generate_parallel_tree(seed=1, n=6)
    sequential = generate_random_dag(seed=1, n=6)
    for method in ("dp", "milp", "cpsat", "brute-force", "liu-optimal", "greedy", "local-search"):
        assert hpcsched.solve(parallel, method, **SOLVE).status is Status.NOT_APPLICABLE
    for method in ("cpsat-parallel", *PARALLEL_METHODS):
        assert hpcsched.solve(sequential, method, **SOLVE).status is Status.NOT_APPLICABLE


def test_subtrees_refuse_dags_and_list_schedules_accept_them():
    dag = as_parallel(generate_random_dag(seed=2, n=10, edge_probability=0.5), processors=2, memory=10_000)
    assert hpcsched.solve(dag, "par-subtrees", **SOLVE).status is Status.NOT_APPLICABLE
    result = hpcsched.solve(dag, "par-deepest-first-capped", **SOLVE)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)


def test_auto_picks_by_question():
    assert hpcsched.solve(generate_parallel_tree(seed=1, n=6), "auto", **SOLVE).notes[-1] == "auto ran cpsat-parallel"


def test_parallel_solution_file_round_trip():
    instance = chain_and_leaf()
    solution = Solution.from_data(
        {"start": {"a": 0, "b": 0, "c": 2}, "processor": {"a": 0, "b": 1, "c": 0}}, instance=instance
    )
    assert validate(instance, solution) == []
    assert Solution.from_data(solution.to_data(), instance=instance) == solution
    from hpcsched.core.errors import InvalidInstanceError

    with pytest.raises(InvalidInstanceError):
        Solution.from_data({"start": {"zz": 0}, "processor": {}}, instance=instance)
