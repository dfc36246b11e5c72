"""Exact methods agree with brute force; special cases, heuristics and bounds stay consistent."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from reference import SAFETY_LIMIT, proven, proven_optimum
from workclock import assert_stops_promptly, count_lines, solve_past_deadline

from hpcsched import solve
from hpcsched.core.registry import methods
from hpcsched.core.result import Status
from hpcsched.offload import bounds, generate_random, simulate, validate
from hpcsched.offload.heuristics import dp_offload_set

from .offload_helpers import PROOF_DETERMINISTIC_TIME, chains, deterministic_cpsat, rough_chains, small_instance

HEURISTICS = [m.name for m in methods("offload") if m.kind in ("heuristic", "baseline")]
assert "milp-fixed-order" in HEURISTICS


# The two agreement properties run on 12 and 7 chains by default (a chain costs 0.1-1 s: brute force,
# both exact methods and every heuristic, local-search and milp-fixed-order up to their 0.3 s); their
# `slow` twins draw 30 and 25 other chains (-m slow).


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains())
def test_exact_methods_agree_with_brute_force(instance):
    check_exact_methods_agree_with_brute_force(instance)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains())
def test_exact_methods_agree_with_brute_force_on_more_chains(instance):
    check_exact_methods_agree_with_brute_force(instance)


def check_exact_methods_agree_with_brute_force(instance):
    optimum = proven_optimum(instance, "brute-force")
    # The proof comes from the deterministic limit (one worker); the wall clock is only a safety net.
    plain = solve(instance, "cpsat-plain", time_limit=120, workers=1, deterministic_time=20)
    # cpsat's exact phases from its first greedy start: its heuristic phase (iterated local search,
    # ~1/3 of a run here) is the same search as local-search, checked below.
    warm = deterministic_cpsat(instance, heuristic_fraction=0.0)
    assert plain.status is Status.OPTIMAL and plain.objective == optimum
    assert warm.status is Status.OPTIMAL and warm.objective == optimum
    assert bounds.best(instance) <= optimum
    lp = bounds.lp_bound(instance)
    assert lp is not None and lp <= optimum
    for name in HEURISTICS:  # milp-fixed-order among them (its kind is heuristic)
        result = solve(instance, name, time_limit=0.3)
        assert result.status is not Status.ERROR, (name, result.notes)
        if result.status.has_solution:
            assert result.objective >= optimum, name
            assert result.bound is None or result.bound <= optimum, name


@settings(max_examples=7, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rough_chains())
def test_exact_methods_agree_with_brute_force_with_zero_durations(instance):
    check_zero_durations(instance)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rough_chains())
def test_exact_methods_agree_with_brute_force_with_zero_durations_on_more_chains(instance):
    check_zero_durations(instance)


def check_zero_durations(instance):
    # Steps of zero duration (real traces have them) are where the half-open sweep sees nothing:
    # the validator, the simulator, the LP and CP-SAT must still agree on one definition.
    brute = solve(instance, "brute-force", time_limit=SAFETY_LIMIT)  # INFEASIBLE only when proven
    if brute.status is Status.INFEASIBLE:
        for name in ["cpsat", "cpsat-plain", *HEURISTICS]:
            assert solve(instance, name, time_limit=0.3).status in (
                Status.INFEASIBLE,
                Status.NOT_APPLICABLE,
                Status.TIME_LIMIT_NO_SOLUTION,
            ), name
        return
    check_exact_methods_agree_with_brute_force(instance)


def test_fixed_order_milp_matches_cpsat_on_a_chain_where_order_is_free():
    # Homogeneous chain: all transfers are equal, so any order is as good as the fixed one.
    instance = small_instance([3] * 4, [5] * 4, [6] * 5, fraction=0.2, bandwidth=2.0)
    exact = proven(instance, "cpsat", deterministic_time=PROOF_DETERMINISTIC_TIME)
    milp = solve(instance, "milp-fixed-order", time_limit=SAFETY_LIMIT)  # equal objectives need its proof
    # the fixed order is free here, so the restricted optimum is the optimum; OPTIMAL only if it meets bounds.best
    assert milp.status in (Status.OPTIMAL, Status.FEASIBLE) and milp.objective == exact.objective


@settings(max_examples=10, deadline=None)
@given(chains(max_layers=4))
def test_special_cases_agree_with_exact_inside_their_class(instance):
    roomy = instance.with_memory(10**9)
    special = solve(roomy, "no-offload-suffices")
    assert special.status is Status.OPTIMAL
    assert special.objective == roomy.compute_time == proven_optimum(roomy, "brute-force")
    import dataclasses

    free = dataclasses.replace(instance, bandwidth_out=None, bandwidth_in=None, latency=0)
    zero = solve(free, "zero-transfer")
    assert zero.status is Status.OPTIMAL
    assert zero.objective == proven_optimum(free, "brute-force") == free.compute_time
    outside = solve(instance, "zero-transfer")
    assert outside.status is Status.NOT_APPLICABLE


def test_no_offload_suffices_outside_its_class():
    instance = small_instance([2, 2, 2], [3, 3, 3], [5, 5, 5, 5], fraction=0.0, bandwidth=1.0)
    assert solve(instance, "no-offload-suffices").status is Status.NOT_APPLICABLE
    assert solve(instance, "no-offload").status is Status.NOT_APPLICABLE


def test_infeasible_budget_gives_infeasible_from_every_method():
    instance = small_instance([2, 2, 2], [3, 3, 3], [5, 9, 5, 5], fraction=0.0).with_memory(10)
    for method in methods("offload"):
        result = solve(instance, method.name, time_limit=2)
        assert result.status is Status.INFEASIBLE, method.name
        assert "F1" in result.notes[0] or "F2" in result.notes[0] or "B" in result.notes[0]
    # By hand: F_1 holds a_0 + a_1 = 5 + 9 = 14 bytes > 13, the first step that cannot fit.
    result = solve(instance.with_memory(13), "cpsat")
    assert "step F1" in result.notes[0]


def test_time_limited_solve_is_feasible_not_optimal():
    instance = generate_random(seed=3, n=40, budget=0.5)
    result = solve(instance, "cpsat-plain", time_limit=0.5)
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION)


def test_scaled_cpsat_never_claims_optimal():
    instance = small_instance([30, 20, 40], [50, 60, 80], [10, 20, 30, 5], fraction=0.2, bandwidth=0.5)
    result = solve(instance, "cpsat-plain", time_limit=5, resolution=7)
    assert result.status is Status.FEASIBLE and result.bound is None


#: Deadline-clock readings before the deadline passes on the 300-layer chain below: about half of
#: what each method reads when its deadline never passes (offload-all 3, vdnn-conv 11, the greedy
#: ones 312, dp 19; local-search reads until its deadline), so that it passes in mid-run.
LARGE_CHAIN_READS = {
    "offload-all": 1,
    "vdnn-conv": 5,
    "greedy-size": 150,
    "greedy-hideability": 150,
    "dp": 9,
    "local-search": 50,
}


def test_heuristics_on_a_large_chain_stop_at_their_limit():
    # No wall clock (tests/workclock.py): the deadline passes in the middle of each run, after which
    # a method may only simulate its offload-all fallback, compute the bound it reports and have
    # its answer checked.
    instance = generate_random(seed=1, n=300, budget=0.4)
    fallback = count_lines(simulate, instance, instance.offloadable) + count_lines(bounds.best, instance)
    for name, reads in LARGE_CHAIN_READS.items():
        result, clock = solve_past_deadline(instance, name, reads=reads, problem="offload")
        assert result.status is Status.FEASIBLE, (name, result.notes)
        assert validate(instance, result.solution) == [], name
        assert_stops_promptly(instance, result, clock, plus=fallback)


def test_dp_sets_respect_the_memory_floors_they_check():
    instance = generate_random(seed=5, n=30, budget=0.4)
    chosen = dp_offload_set(instance, 512, 0.05)
    assert chosen is not None
    kept = 0
    s = instance.activation
    for i in range(instance.n_layers - 1):
        kept += 0 if i in chosen else s[i]
        k = i + 2
        assert kept + s[k - 1] + s[k] <= instance.memory


@settings(max_examples=40, deadline=None)
@given(chains(max_layers=6))
def test_transfer_and_lp_bounds_never_exceed_the_optimum(instance):
    check_bounds_never_exceed_the_optimum(instance)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(chains(max_layers=6))
def test_transfer_and_lp_bounds_never_exceed_the_optimum_on_more_chains(instance):
    check_bounds_never_exceed_the_optimum(instance)


def check_bounds_never_exceed_the_optimum(instance):
    exact = proven(instance, "cpsat-plain", workers=1, deterministic_time=20)
    assert bounds.transfer_bound(instance) <= exact.objective
    assert bounds.lp_bound(instance) <= exact.objective


def test_transfer_bound_by_hand():
    # L = 2, f = b = (1, 1), s = (4, 4, 4), M = 12, bandwidth 1 (tau = 4).
    # B_2 holds a_1, δ_1, a_2 (12 bytes): a_0 must be absent just before B_2 ends and come
    # back before B_1: time to end >= b_1 + 4 + b_2 = 6 after the forward phase (2): bound 8.
    # Optimum by hand: a_0's offload [0, 4) delays B_2 to 4, prefetch [5, 9), B_1 [9, 10): 10.
    from hpcsched.offload import Instance

    instance = Instance(
        name="hand",
        forward=(1, 1),
        backward=(1, 1),
        activation=(4, 4, 4),
        memory=12,
        bandwidth_out=1.0,
        bandwidth_in=1.0,
    )
    assert bounds.transfer_bound(instance) == 8
    assert bounds.transfer_bound_parts(instance) == (2.0, 6.0)
    assert proven_optimum(instance, "brute-force") == 10
    assert proven_optimum(instance, "cpsat", deterministic_time=PROOF_DETERMINISTIC_TIME) == 10


def test_asap_timing_is_not_optimal_for_a_fixed_set():
    # Counterexample found by search: the exact timing of O = {0, 1} (CP-SAT) beats the
    # as-early-as-possible simulator, so ASAP is a heuristic timing, not a special case.
    from hpcsched.offload import Instance, simulate
    from hpcsched.offload.formulations import exact_timing
    from hpcsched.offload.simulate import makespan_of

    instance = Instance(
        name="asap",
        forward=(1, 6, 1, 2),
        backward=(1, 5, 1, 5),
        activation=(8, 10, 12, 7, 12),
        memory=39,
        bandwidth_out=1.0,
        bandwidth_in=1.0,
        duplex="half",
    )
    timing = exact_timing(instance, {0, 1}, time_limit=SAFETY_LIMIT)
    exact = timing.schedule
    assert timing.proven
    assert makespan_of(instance, exact) < makespan_of(instance, simulate(instance, (0, 1)))


def test_a_bound_above_the_schedule_is_reported_not_hidden(monkeypatch):
    # A lower bound above a validated makespan can only be a bug in a bound: `cpsat` must pass it
    # on, so that the registry turns the result into ERROR, instead of lowering it to the makespan.
    instance = small_instance([3] * 4, [5] * 4, [6] * 5, fraction=0.2, bandwidth=2.0)
    honest = deterministic_cpsat(instance)
    assert honest.status is Status.OPTIMAL
    monkeypatch.setattr(bounds, "best", lambda _: honest.objective + 100)
    broken = deterministic_cpsat(instance)
    assert broken.status is Status.ERROR
