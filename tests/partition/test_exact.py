"""Exact methods against each other and against exhaustive searches; infeasibility; time limits."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from reference import proven_or_infeasible

import hpcsched
from hpcsched.core.result import Status
from hpcsched.partition import BASELINE_METHODS, Instance, Solution, bounds, validate

from .partition_strategies import INSTALLED_HEURISTICS, small_instances

PROOF = {"deterministic_time": 20.0, "workers": 1, "stop_at_bound": False}


@settings(max_examples=50)
@given(small_instances(max_n=6))
def test_cpsat_matches_brute_force_static(instance):
    truth = proven_or_infeasible(instance, "brute-force")
    result = hpcsched.solve(instance, "cpsat", time_limit=600, **PROOF)
    assert result.status is truth.status, (result.notes, truth.notes)
    if truth.status is Status.OPTIMAL:
        assert result.objective == truth.objective
        assert bounds.best(instance) <= truth.objective


@settings(max_examples=20)
@given(small_instances(max_n=5, max_gpus=2, max_time=4))
def test_milp_matches_brute_force_static(instance):
    truth = proven_or_infeasible(instance, "brute-force")
    result = hpcsched.solve(instance, "milp", time_limit=600, stop_at_bound=False, workers=1)
    assert result.status is truth.status, (result.notes, truth.notes)
    if truth.status is Status.OPTIMAL:
        assert result.objective == truth.objective


def _exhaustive_dynamic(instance: Instance) -> float | None:
    """Best makespan over every assignment and every integer start in [0, Σp + Σc] (None: infeasible)."""
    horizon = sum(instance.times) + sum(e.delay for e in instance.edges)
    best = None
    for gpus in itertools.product(range(instance.gpus), repeat=instance.n):
        for starts in itertools.product(range(horizon + 1), repeat=instance.n):
            solution = Solution(gpus, starts)
            makespan = max(s + t for s, t in zip(starts, instance.times, strict=True))
            if (best is None or makespan < best) and not validate(instance, solution):
                best = makespan
    return best


@pytest.mark.slow
@settings(max_examples=25)
@given(small_instances(max_n=3, max_gpus=2, max_time=3, memory_model="dynamic", pins=False))
def test_cpsat_dynamic_matches_an_exhaustive_search_over_starts(instance):
    if sum(instance.times) + sum(e.delay for e in instance.edges) > 8:
        return
    truth = _exhaustive_dynamic(instance)
    result = hpcsched.solve(instance, "cpsat", time_limit=600, **PROOF)
    if truth is None:
        assert result.status is Status.INFEASIBLE, result.notes
    else:
        assert result.status is Status.OPTIMAL, result.notes
        assert result.objective == truth


@pytest.mark.slow
@settings(max_examples=25)
@given(small_instances(max_n=3, max_gpus=2, max_time=3, memory_model="dynamic", pins=False))
def test_brute_force_dynamic_matches_an_exhaustive_search_over_starts(instance):
    if sum(instance.times) + sum(e.delay for e in instance.edges) > 8:
        return
    truth = _exhaustive_dynamic(instance)
    result = hpcsched.solve(instance, "brute-force", time_limit=600)
    if truth is None:
        assert result.status is Status.INFEASIBLE, result.notes
    else:
        assert result.status is Status.OPTIMAL, result.notes
        assert result.objective == truth


DYNAMIC_EXACT = (
    ("brute-force", {}),
    ("milp", {"stop_at_bound": False, "workers": 1}),
    ("cpsat", PROOF),
)


@settings(max_examples=30, deadline=None)
@given(small_instances(max_n=6, max_gpus=3, memory_model="dynamic"))
def test_dynamic_brute_force_milp_and_cpsat_agree_and_heuristics_stay_above(instance):
    results = {method: hpcsched.solve(instance, method, time_limit=600, **options) for method, options in DYNAMIC_EXACT}
    truth = results["brute-force"]
    assert truth.status in (Status.OPTIMAL, Status.INFEASIBLE), truth.notes
    for method, result in results.items():
        assert result.status is truth.status, (method, result.notes, truth.notes)
        if truth.status is Status.OPTIMAL:
            assert result.objective == truth.objective, method
            assert not validate(instance, result.solution), method
    for method in INSTALLED_HEURISTICS + BASELINE_METHODS:
        result = hpcsched.solve(instance, method, time_limit=60)
        if result.solution is not None:
            assert not validate(instance, result.solution), method
            assert truth.status is Status.OPTIMAL and result.objective >= truth.objective, method


def test_dynamic_optimum_needs_idle_time():
    # GPU 1 runs a (time 4, output 5, no consumer) and v (time 1), which consumes u's output (5 bytes) from
    # GPU 0; M = 8, so a's output and the copy never coexist. a first: the copy may arrive only at 4, so u
    # (time 1) must wait until 3 and v runs [4, 5): makespan 5. v first: u [0, 1), v [1, 2), a [2, 6): 6.
    # Placing every node as early as possible (u at 0) with a first breaks memory, so a semi-active search
    # would answer 6.
    instance = Instance.create(
        [4, 1, 1], [(1, 2, 0)], gpus=2, memory=8, output=[5, 5, 0], pin=[1, 0, 1], memory_model="dynamic"
    )
    assert validate(instance, Solution((1, 0, 1), (0, 3, 4))) == []
    assert [v.rule for v in validate(instance, Solution((1, 0, 1), (0, 0, 4)))] == ["memory"]
    for method, options in DYNAMIC_EXACT:
        result = hpcsched.solve(instance, method, time_limit=120, **options)
        assert result.status is Status.OPTIMAL and result.objective == 5, (method, result.notes)


def test_dynamic_makespan_zero_holds_no_persistent_memory():
    # Σp = 0: everything at 0 on one GPU holds nothing (persistent memory lives on [0, makespan) = [0, 0)),
    # although 2 + 2 > M = 3; also with M = 0
    for memory in (3, 0):
        instance = Instance.create([0, 0], [], gpus=1, memory=memory, persistent=[2, 2], memory_model="dynamic")
        assert validate(instance, Solution((0, 0), (0, 0))) == []
        for method, options in DYNAMIC_EXACT:
            result = hpcsched.solve(instance, method, time_limit=120, **options)
            assert result.status is Status.OPTIMAL and result.objective == 0, (method, memory, result.notes)


def test_dynamic_memory_can_force_a_second_gpu_that_static_would_not():
    # Two independent heavy nodes: on one GPU the outputs (8 each) never coexist, so
    # dynamic memory 10 fits on one GPU back to back, while static needs 16.
    instance = Instance.create([3, 3], [], gpus=2, memory=10, output=[8, 8], memory_model="dynamic")
    assert hpcsched.solve(instance, "cpsat", time_limit=60, **PROOF).objective == 3
    static = Instance.create([3, 3], [], gpus=1, memory=10, output=[8, 8], memory_model="static")
    assert hpcsched.solve(static, "cpsat", time_limit=60, **PROOF).status is Status.INFEASIBLE
    dynamic_one = Instance.create([3, 3], [], gpus=1, memory=10, output=[8, 8], memory_model="dynamic")
    assert hpcsched.solve(dynamic_one, "cpsat", time_limit=60, **PROOF).objective == 6


@pytest.mark.parametrize("method", ["cpsat", "milp", "brute-force", "pardnn", "heft", "kl-partition", "round-robin"])
def test_k_too_small_is_infeasible_with_the_reason(method):
    instance = Instance.create([1, 1, 1], [], gpus=2, memory=10, persistent=[6, 6, 6])
    result = hpcsched.solve(instance, method, time_limit=60)
    assert result.status is Status.INFEASIBLE
    assert "K is too small" in result.notes[0] and "3 GPUs" in result.notes[0]


def test_group_pinned_to_two_gpus_is_infeasible():
    instance = Instance.create([1, 1], [], gpus=2, memory=10, group=["g", "g"], pin=[0, 1])
    result = hpcsched.solve(instance, "cpsat", time_limit=60)
    assert result.status is Status.INFEASIBLE and "pinned to GPUs [0, 1]" in result.notes[0]


@pytest.mark.parametrize(
    "method", ["cpsat", "milp", "pardnn", "heft", "etf", "kl-partition", "cpsat-lns", "round-robin"]
)
def test_an_expired_time_limit_returns_promptly_without_raising(method):
    instance = Instance.create([2] * 8, [(i, i + 1, 1) for i in range(7)], gpus=2, memory=100, persistent=[5] * 8)
    result = hpcsched.solve(instance, method, time_limit=1e-9)
    assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE, Status.OPTIMAL), result.notes
