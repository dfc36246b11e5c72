"""Brute force, CP-SAT and MILP agree on the optimum of random small instances."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from reference import proven, proven_optimum

from hpcsched import evaluate, solve, validate
from hpcsched.core.result import Status
from hpcsched.transfers import Instance, Simulator, Solution, generate_uniform

from .transfers_strategies import small_instances

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(small_instances(max_n=5))
def test_three_exact_methods_agree(instance):
    brute = proven(instance, "brute-force")
    for method in ("cpsat", "milp"):
        result = solve(instance, method, time_limit=3600)
        assert result.status is Status.OPTIMAL, (method, result.notes)
        assert result.objective == brute.objective, (method, instance.to_data())


@settings(max_examples=10, deadline=None)
@given(small_instances(min_n=2, max_n=4))
def test_plain_variants_agree(instance):
    """Without bounds, hint and symmetry breaking (the benchmark's 'plain'), and on CBC."""
    optimum = proven_optimum(instance, "brute-force")
    plain = solve(
        instance, "cpsat", lower_bound=False, conflicts=False, warm_start=False, symmetry=False, time_limit=3600
    )
    assert plain.status is Status.OPTIMAL and plain.objective == optimum
    cbc = solve(instance, "milp", backend="cbc", lower_bound=False, conflicts=False, symmetry=False, time_limit=3600)
    assert cbc.status is Status.OPTIMAL and cbc.objective == optimum


def test_non_permutation_optimum():
    """An instance whose optimum computes in another order than it transfers.

    Found by a random search (positive durations, n = 5). Every permutation
    schedule (σ = π, all 120 orders enumerated here) has makespan >= 32, while
    brute force over order pairs, CP-SAT and the MILP find 31; the witness
    schedule below (checked by the validator) transfers task 2 before task 1
    but computes it after.
    """
    instance = Instance.create([9, 1, 2, 1, 7], [4, 7, 7, 8, 3], [6, 6, 2, 7, 1], 9)
    witness = Solution((17, 9, 1, 0, 10), (27, 10, 17, 1, 24))
    assert validate(instance, witness) == [] and evaluate(instance, witness)["objective"] == 31
    simulator = Simulator(instance)
    assert min(simulator.makespan(order) for order in itertools.permutations(range(5))) == 32
    for method in ("brute-force", "cpsat", "milp"):
        assert proven_optimum(instance, method, time_limit=3600) == 31, method
    assert solve(instance, "ils", max_iterations=2000).objective == 32


def test_identical_tasks_symmetry_breaking_keeps_the_optimum():
    instance = Instance.create([3, 3, 3, 1, 2], [2, 2, 2, 4, 1], [4, 4, 4, 3, 5], 9)
    optimum = proven_optimum(instance, "brute-force")
    for method in ("cpsat", "milp"):
        with_symmetry = solve(instance, method, symmetry=True, time_limit=3600)
        without = solve(instance, method, symmetry=False, time_limit=3600)
        assert with_symmetry.objective == without.objective == optimum


def test_time_limited_solve_is_feasible_not_optimal():
    instance = generate_uniform(seed=3, n=60, memory_factor=1.5)
    for method, limit in (("cpsat", 0.5), ("milp", 1.0)):
        result = solve(instance, method, time_limit=limit)
        assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), method
        assert result.bound is not None and (result.objective is None or result.bound < result.objective)


def test_brute_force_outside_its_size():
    instance = generate_uniform(seed=0, n=7)
    assert solve(instance, "brute-force").status is Status.NOT_APPLICABLE


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(small_instances(min_n=6, max_n=6, max_time=6))
def test_exact_methods_agree_at_six_tasks(instance):
    brute = proven(instance, "brute-force")
    cpsat = solve(instance, "cpsat", time_limit=3600)
    milp = solve(instance, "milp", time_limit=3600)
    assert brute.objective == cpsat.objective == milp.objective


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances(min_n=3, max_n=5))
def test_cpsat_probe_and_lower_bound_workers_agree_with_brute_force(instance):
    """The probe at C <= bound (without warm start, so it runs) and CP-SAT on lower-bounding subsolvers."""
    optimum = proven_optimum(instance, "brute-force", stop_at_bound=False)
    probed = solve(instance, "cpsat", warm_start=False, probe_seconds=5, time_limit=3600)
    assert probed.status is Status.OPTIMAL, probed.notes
    assert probed.objective == optimum
    workers = solve(
        instance,
        "cpsat",
        warm_start=False,
        time_limit=3600,
        parameters={"subsolvers": ["max_lp", "objective_lb_search"]},
    )
    assert workers.status is Status.OPTIMAL and workers.objective == optimum


def test_cpsat_probe_that_is_infeasible_raises_the_bound():
    # Any two tasks fit in M = 20, never all three; bounds.best = 9 (Johnson) but the optimum
    # (brute force) is 11, so the probe at C <= 9 must be refuted and the probe's note says so.
    instance = Instance.create([2, 5, 1], [3, 1, 4], [8, 8, 7], 20)
    assert proven_optimum(instance, "brute-force", stop_at_bound=False) == 11
    result = solve(instance, "cpsat", warm_start=False, probe_seconds=5, time_limit=3600)
    assert result.status is Status.OPTIMAL and result.objective == 11
    assert any("infeasible, so C >= 10" in note for note in result.notes), result.notes
