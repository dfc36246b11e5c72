"""Exact methods against each other on random small chains: brute force == CP-SAT, dp >= both.

CP-SAT's proofs run under a deterministic limit (``max_deterministic_time``),
with one worker, so the verdict does not depend on the machine's load.
"""

from __future__ import annotations

from hypothesis import given, settings

import hpcsched
from hpcsched.checkpoint import Instance, bounds, evaluate, validate
from hpcsched.checkpoint.formulations import persistent_dp, phase_slots, shortest_sequence
from hpcsched.core.result import Status

from .checkpoint_strategies import small_chains

PROOF = {"deterministic_time": 60.0, "workers": 1}


@settings(max_examples=40)
@given(small_chains())
def test_brute_force_equals_cpsat_and_dp_is_never_better(instance):
    brute = hpcsched.solve(instance, "brute-force", time_limit=600)
    exact = hpcsched.solve(instance, "cpsat", time_limit=600, **PROOF)
    persistent = hpcsched.solve(instance, "dp", time_limit=600)
    assert brute.status is Status.OPTIMAL
    assert exact.status is Status.OPTIMAL, exact.notes
    assert exact.objective == brute.objective
    assert validate(instance, brute.solution) == [] and validate(instance, exact.solution) == []
    if persistent.status.has_solution:
        assert persistent.objective >= brute.objective
    assert bounds.best(instance) <= brute.objective


@settings(max_examples=60)
@given(small_chains(max_length=5))
def test_dp_sequence_is_valid_and_its_time(instance):
    plan = persistent_dp(instance)
    if plan.time is None:
        return
    solution = hpcsched.checkpoint.Solution(plan.sequence)
    assert validate(instance, solution) == []
    assert evaluate(instance, solution)["objective"] == plan.time
    best = shortest_sequence(instance)
    assert best is not None and best[0] <= plan.time


def unit(length, memory_without_x0):
    return Instance.create(
        [1] * length, [1] * (length + 1), [1] * (length + 1), [None] + [1] * length, memory_without_x0 + 1
    )


def test_persistent_optimum_exceeds_the_unrestricted_one_on_a_unit_chain():
    # L = 5, rotor's M = 4 (x_0 not counted): persistent 20, all sequences 17
    instance = unit(5, 4)
    assert persistent_dp(instance).time == 20
    assert shortest_sequence(instance)[0] == 17
    result = hpcsched.solve(instance, "cpsat", time_limit=600, **PROOF)
    assert result.status is Status.OPTIMAL and result.objective == 17
    dp = hpcsched.solve(instance, "dp", time_limit=60)
    assert dp.status is Status.FEASIBLE and "optimal among persistent sequences" in dp.notes


def test_length_bound_of_the_slot_model():
    assert phase_slots(4) == [20, 16, 9, 4, 1]
    assert sum(phase_slots(4)) + 5 == 55


def test_dp_says_when_it_rounds():
    instance = Instance.create([3, 1, 2], [2, 2, 2, 1], [7, 13, 5, 11], [None, 17, 9, 12], 10**6)
    result = hpcsched.solve(instance, "dp", time_limit=60, slots=20)
    assert result.status.has_solution
    assert any("rounded to whole slots" in note for note in result.notes)


def test_expired_time_limits_end_promptly():
    instance = unit(4, 4)
    for method in ("dp", "cpsat", "brute-force", "checkpoint-sequential", "greedy"):
        result = hpcsched.solve(instance, method, time_limit=1e-9)
        assert result.status in (Status.TIME_LIMIT_NO_SOLUTION, Status.FEASIBLE, Status.OPTIMAL), (method, result)


def test_infeasible_budget_between_the_proven_minimum_and_what_fits_is_proven_by_search():
    # a budget at the proven lower bound: every exact method agrees on feasibility
    instance = Instance.create([1, 1], [1, 1, 1], [1, 3, 1], [None, 5, 1], 10**6)
    low = hpcsched.checkpoint.memory_lower_bound(instance)
    tight = instance.with_memory(low)
    brute = hpcsched.solve(tight, "brute-force", time_limit=60)
    exact = hpcsched.solve(tight, "cpsat", time_limit=600, **PROOF)
    assert brute.status == exact.status
    assert brute.status in (Status.OPTIMAL, Status.INFEASIBLE)
