"""Exact methods against each other and brute force; special cases on their class; heuristics above bounds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from reference import proven, proven_optimum

from hpcsched.core.registry import run_method
from hpcsched.core.result import Status
from hpcsched.hetero import BASELINE_METHODS, HEURISTIC_METHODS, INDEPENDENT_METHODS, bounds

from .hetero_strategies import small_instances

PROOF = {"deterministic_time": 20.0, "workers": 1, "stop_at_bound": False}


@settings(max_examples=60)
@given(small_instances(max_n=6))
def test_cpsat_matches_brute_force(instance):
    truth = proven(instance, "brute-force")
    result = run_method(instance, "cpsat", time_limit=600, **PROOF)
    assert result.status is Status.OPTIMAL, result.notes
    assert result.objective == truth.objective
    assert bounds.best(instance) <= truth.objective


@settings(max_examples=25)
@given(small_instances(max_n=4, max_time=5))
def test_milp_matches_brute_force(instance):
    truth = proven(instance, "brute-force")
    result = run_method(instance, "milp", time_limit=600, stop_at_bound=False)
    assert result.status is Status.OPTIMAL, result.notes
    assert result.objective == truth.objective


@settings(max_examples=60)
@given(small_instances(max_n=6))
def test_heuristics_are_valid_and_never_below_the_optimum_or_the_bound(instance):
    optimum = proven_optimum(instance, "brute-force")
    lower = bounds.best(instance)
    assert lower <= optimum
    for method in HEURISTIC_METHODS + BASELINE_METHODS + ("heft", "one-type"):
        result = run_method(instance, method, time_limit=60)
        assert result.status in (Status.FEASIBLE, Status.OPTIMAL, Status.NOT_APPLICABLE), (method, result.notes)
        if result.status.has_solution:
            assert result.objective >= optimum, method
        if result.status is Status.OPTIMAL:
            assert result.objective == optimum, method
    for rule in ("latest-end", "none"):
        result = run_method(instance, "heteroprio", time_limit=60, spoliation=rule)
        assert result.status is Status.FEASIBLE and result.objective >= optimum


@settings(max_examples=60)
@given(small_instances(max_n=7, edges=False, cpus=1, gpus=1))
def test_independent_dp_is_exact_on_one_cpu_and_one_gpu(instance):
    truth = proven(instance, "brute-force")
    result = run_method(instance, "independent-dp", time_limit=600)
    assert result.status is Status.OPTIMAL
    assert result.objective == truth.objective


@settings(max_examples=60)
@given(small_instances(max_n=6, edges=False, forbid=True))
def test_dualhp_is_a_2_approximation_and_clb2c_is_valid(instance):
    optimum = proven_optimum(instance, "brute-force")
    dual = run_method(instance, "dualhp", time_limit=60)
    assert dual.status is Status.FEASIBLE
    assert optimum <= dual.objective <= 2 * optimum
    for method in INDEPENDENT_METHODS:
        assert run_method(instance, method, time_limit=60).objective >= optimum


@settings(max_examples=40)
@given(small_instances(max_n=6, cpus=0), st.integers(1, 6))
def test_one_type_against_brute_force(instance, gpus):
    instance = instance.with_platform(0, gpus)
    truth = proven(instance, "brute-force")
    result = run_method(instance, "one-type", time_limit=60)
    assert result.status.has_solution
    assert result.objective >= truth.objective
    if gpus >= instance.n:
        assert result.status is Status.OPTIMAL and result.objective == truth.objective


def test_methods_for_independent_tasks_refuse_graphs():
    from hpcsched.hetero import Instance

    instance = Instance.create([1, 2], [1, 1], [(0, 1)], cpus=1, gpus=1)
    for method in ("dualhp", "clb2c", "independent-dp"):
        assert run_method(instance, method, time_limit=10).status is Status.NOT_APPLICABLE


def test_an_expired_time_limit_ends_promptly_without_raising():
    from hpcsched.hetero import generate_layered

    instance = generate_layered(seed=1, n=40)
    for method in ("cpsat", "milp", "brute-force", "heft", "heteroprio", "hlp-rounding", "minmin"):
        result = run_method(instance, method, time_limit=1e-9)
        assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE, Status.NOT_APPLICABLE), method
