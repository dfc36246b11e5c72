"""Exact methods against each other, brute force, theory and hand values."""

import math

import pytest
from hypothesis import given, settings
from reference import SAFETY_LIMIT, proven, proven_optimum

from hpcsched import solve
from hpcsched.core.result import Status
from hpcsched.coschedule import Instance, generate_uniform
from hpcsched.coschedule.bounds import solve_preemptive_lp
from hpcsched.coschedule.phases import order_phases
from hpcsched.coschedule.special_cases import pair_block

from .strategies import instances

REL = 1e-6


def close(a, b):
    return math.isclose(a, b, rel_tol=REL, abs_tol=1e-9)


def test_two_kernels_by_hand():
    instance = Instance.create([4, 6], [(0, 1, 0.5, 0.75)])
    # No method here takes a deterministic limit: the wall clock is only the safety stop (the proofs take
    # well under a second).
    for method in ("lp-preemptive", "milp", "brute-force", "cpsat", "milp-min-preemptions"):
        result = solve(instance, method, time_limit=SAFETY_LIMIT)
        assert result.status is Status.OPTIMAL, (method, result.notes)
        assert close(result.objective, 8.0), method


def test_incompatible_kernels_run_in_series():
    instance = Instance.create([3, 5, 2], [(0, 2, 0.4, 0.4)])  # co-running 0 and 2 is worse than serial
    for method in ("lp-preemptive", "milp", "brute-force", "cpsat"):
        result = solve(instance, method, time_limit=SAFETY_LIMIT)  # the optimum needs the proof
        assert close(result.objective, 10.0), method


@settings(max_examples=25, deadline=None)
@given(instances(max_n=5))
def test_lp_schedule_is_valid_and_reaches_lp_value(instance):
    result = solve(instance, "lp-preemptive")
    assert result.status is Status.OPTIMAL
    value = solve_preemptive_lp(instance, backend="pulp").value
    assert close(result.objective, value)  # both backends agree
    assert result.objective <= sum(instance.durations) * (1 + 1e-9)
    assert result.objective >= max(instance.durations) * (1 - 1e-9)


@settings(max_examples=15, deadline=None)
@given(instances(max_n=7, all_ones=True))
def test_all_rates_one_gives_mcnaughton_value(instance):
    expected = max(max(instance.durations), sum(instance.durations) / 2)
    lp = solve(instance, "lp-preemptive")
    mc = solve(instance, "mcnaughton")
    assert mc.status is Status.OPTIMAL and lp.status is Status.OPTIMAL
    assert close(lp.objective, expected) and close(mc.objective, expected)
    assert mc.kpis["preemptions"] <= 1


def test_mcnaughton_not_applicable_elsewhere():
    instance = Instance.create([3, 4], [(0, 1, 1.0, 0.9)])
    assert solve(instance, "mcnaughton").status is Status.NOT_APPLICABLE


# 6 examples (was 10): brute force solves an LP per order, ~0.5 s on 4 kernels; the 6 hold two 4-kernel and
# three 3-kernel instances with co-run pairs
@settings(max_examples=6, deadline=None)
@given(instances(max_n=4))
def test_nonpreemptive_exact_methods_agree_with_brute_force(instance):
    brute = proven(instance, "brute-force")
    milp = solve(instance, "milp", time_limit=600)  # a proof: safety stop only
    cpsat = solve(instance, "cpsat", time_limit=20)
    lp = solve(instance, "lp-preemptive")
    assert brute.status is Status.OPTIMAL and milp.status is Status.OPTIMAL
    assert close(milp.objective, brute.objective), (milp.objective, brute.objective)
    # CP-SAT is exact on its grid only: never below the optimum, and within the grid's rounding.
    assert cpsat.status is not Status.ERROR
    assert cpsat.objective >= brute.objective * (1 - REL)
    assert lp.objective <= brute.objective * (1 + REL)
    for result in (brute, milp, cpsat):
        assert result.kpis["preemptions"] == 0


@settings(max_examples=20, deadline=None)
@given(instances(max_n=6))
def test_lp_is_below_every_valid_schedule(instance):
    lp = proven_optimum(instance, "lp-preemptive")
    for method in ("fifo", "lpt", "spt", "greedy-partner", "matching-list", "matching-paired", "serial", "lp-merge"):
        result = solve(instance, method)
        # OPTIMAL only where the proven bound meets the schedule (the registry's upgrade).
        assert result.status is Status.FEASIBLE or result.objective <= result.bound * (1 + 1e-6), (method, result.notes)
        assert result.objective >= lp * (1 - REL), method


def test_caterpillar_support_gives_zero_preemptions():
    # A star of co-run phases around kernel 0 plus solo phases: a caterpillar.
    solo = {0: 1.0, 3: 2.0}
    pairs = {(0, 1): 1.0, (0, 2): 1.0, (2, 3): 1.0, (3, 4): 1.0}
    phases = order_phases(solo, pairs, 5)
    runs = {}
    for position, (kernels, _) in enumerate(phases):
        for k in kernels:
            runs.setdefault(k, []).append(position)
    for k, positions in runs.items():
        assert positions == list(range(positions[0], positions[0] + len(positions))), (k, phases)


# milp-min-preemptions proves each in 1-2 s: seed 1 in the slow suite
@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_non_caterpillar_needs_a_preemption_and_min_preemptions_never_worse(seed):
    instance = generate_uniform(seed=seed, n=4, density=1.0, r_min=0.6)
    lp = proven(instance, "lp-preemptive")
    best = solve(instance, "milp-min-preemptions", time_limit=600)  # a proof: safety stop only
    assert best.status is Status.OPTIMAL
    assert close(best.objective, lp.objective)
    assert best.kpis["preemptions"] <= lp.kpis["preemptions"]
    assert any("proven minimal" in note for note in best.notes)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_min_preemptions_proven_on_n5(seed):
    instance = generate_uniform(seed=seed, n=5, density=1.0, r_min=0.6)
    lp = proven(instance, "lp-preemptive")
    best = solve(instance, "milp-min-preemptions", time_limit=600)
    assert any("proven minimal" in note for note in best.notes)
    assert best.kpis["preemptions"] <= lp.kpis["preemptions"]


def paired_brute_force(instance):
    """Best paired schedule by enumerating every matching (independent of networkx)."""
    n = instance.n
    best = sum(instance.durations)

    def rec(left, value):
        nonlocal best
        if not left:
            best = min(best, value)
            return
        first, rest = left[0], left[1:]
        rec(rest, value + instance.durations[first])
        for other in rest:
            if instance.compatible(first, other):
                rec([k for k in rest if k != other], value + pair_block(instance, first, other))

    rec(list(range(n)), 0.0)
    return best


@settings(max_examples=25, deadline=None)
@given(instances(max_n=6))
def test_matching_is_optimal_over_paired_schedules(instance):
    result = solve(instance, "matching-paired")
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert close(result.objective, paired_brute_force(instance))


def test_time_limited_milp_is_not_claimed_optimal():
    instance = generate_uniform(seed=3, n=14, density=1.0, r_min=0.55)
    result = solve(instance, "milp", time_limit=1)
    assert result.status is Status.FEASIBLE
    assert result.bound is not None and result.bound <= result.objective


def test_cpsat_grid_result_is_not_optimal_without_proof():
    instance = generate_uniform(seed=1, n=4, density=1.0)
    result = solve(instance, "cpsat", time_limit=10, grid=50)
    lp = proven(instance, "lp-preemptive")
    if result.objective > lp.objective * (1 + 1e-9):
        assert result.status is Status.FEASIBLE
    assert any("grid" in note for note in result.notes)


@settings(max_examples=4, deadline=None)
@given(instances(min_n=3, max_n=4, density=1.0))
def test_min_preemptions_keeps_optimal_makespan(instance):
    lp = proven(instance, "lp-preemptive")
    best = solve(instance, "milp-min-preemptions", time_limit=600)  # a proof: safety stop only
    assert best.status is Status.OPTIMAL
    assert close(best.objective, lp.objective)
    assert best.kpis["preemptions"] <= lp.kpis["preemptions"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_brute_force_and_milp_agree_n5(seed):
    instance = generate_uniform(seed=seed, n=5, density=0.8, r_min=0.3)
    brute = proven(instance, "brute-force")
    milp = solve(instance, "milp", time_limit=600)
    assert brute.status is Status.OPTIMAL and milp.status is Status.OPTIMAL
    assert close(brute.objective, milp.objective)
