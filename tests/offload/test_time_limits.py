"""Time limits cover model building, backends get only the time left, proofs use deterministic limits,
and a coarsened model's infeasibility is never the instance's (issue 20, items 3, 4 and 6)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import proven_optimum

import hpcsched.solvers.cpsat as cpsat_adapter
import hpcsched.solvers.milp as milp_adapter
from hpcsched import evaluate, solve
from hpcsched.core.deadline import Deadline, TimeLimitReached
from hpcsched.core.registry import methods
from hpcsched.core.result import Status
from hpcsched.offload import bounds, generate_random, simulate
from hpcsched.offload.bounds import instant as instant_module
from hpcsched.offload.formulations import build_cpsat, build_milp_fixed_order, offload_set_search
from hpcsched.offload.formulations import cpsat_model as cpsat_model_module
from hpcsched.offload.formulations import plain as cpsat_plain_module
from hpcsched.offload.formulations import portfolio as cpsat_module

from .offload_helpers import INSTANCES, small_instance

#: The modules that call the CP-SAT adapter (each imported ``solve_cpsat`` by name).
CPSAT_CALLERS = (instant_module, cpsat_module, cpsat_model_module, cpsat_plain_module)
EXPIRED = Deadline(at=0.0)  # long past on the monotonic clock
OFFLOAD_METHODS = [m.name for m in methods("offload")]
EXACT = [m.name for m in methods("offload") if m.kind in ("exact", "brute-force")] + ["milp-fixed-order"]


def medium_instance(n: int = 40, seed: int = 3):
    return generate_random(n=n, seed=seed, budget=0.5)


# ---------------------------------------------------------------- builders check the deadline
def test_builders_stop_at_an_expired_deadline():
    instance = medium_instance()
    horizon = int(evaluate(instance, simulate(instance, instance.offloadable))["objective"])
    with pytest.raises(TimeLimitReached, match="fixed-order MILP"):
        build_milp_fixed_order(instance, horizon=horizon, deadline=EXPIRED)
    with pytest.raises(TimeLimitReached, match="CP-SAT model"):
        build_cpsat(instance, horizon=horizon, deadline=EXPIRED)
    with pytest.raises(TimeLimitReached, match="LP relaxation"):
        bounds.lp_relaxation(instance, deadline=EXPIRED)
    with pytest.raises(TimeLimitReached, match="instant relaxation"):
        bounds.instant_relaxation(instance, upper=horizon, deadline=EXPIRED)


# ---------------------------------------------------------------- methods: prompt, honest, no raise
@pytest.mark.parametrize("method", OFFLOAD_METHODS)
def test_a_tiny_time_limit_gives_an_honest_answer(method):
    # 1e-9 s has passed before the first check: every phase that needs time is skipped or stopped.
    result = solve(medium_instance(), method, time_limit=1e-9)
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION, Status.NOT_APPLICABLE), result.notes
    if result.status is Status.FEASIBLE:
        assert result.objective is not None and (result.bound is None or result.bound <= result.objective)


def test_milp_fixed_order_does_not_build_past_its_limit():
    result = solve(medium_instance(), "milp-fixed-order", time_limit=1e-9)
    assert result.status is Status.FEASIBLE
    assert any("time limit reached while building the fixed-order MILP" in note for note in result.notes), result.notes


@pytest.fixture
def backend_limits(monkeypatch):
    """Every CP-SAT / PuLP solve's wall-clock limit, whichever module calls the adapter."""
    seen: list[float | None] = []
    real_cpsat, real_pulp = cpsat_adapter.solve_cpsat, milp_adapter.solve_pulp

    def spy_cpsat(model, **kwargs):
        seen.append(kwargs.get("time_limit"))
        return real_cpsat(model, **kwargs)

    def spy_pulp(problem, **kwargs):
        seen.append(kwargs.get("time_limit"))
        return real_pulp(problem, **kwargs)

    for module in (cpsat_adapter, *CPSAT_CALLERS):
        monkeypatch.setattr(module, "solve_cpsat", spy_cpsat)
    monkeypatch.setattr(milp_adapter, "solve_pulp", spy_pulp)
    return seen


@pytest.mark.parametrize(
    "method,options",
    [
        ("cpsat", {}),
        ("cpsat", {"use_lp": True, "branch_fraction": 0.0}),
        ("cpsat-plain", {}),
        ("milp-fixed-order", {}),
        ("lp-rounding", {}),
        ("brute-force", {}),
    ],
)
def test_backends_get_only_the_time_left(backend_limits, method, options):
    # Before the fix the LP relaxation got at least 1 s and the MILP at least 0.1 s whatever the limit.
    limit = 0.08
    solve(
        small_instance([2, 3, 1, 4], [3, 2, 4, 1], [4, 6, 3, 5, 2], fraction=0.3), method, time_limit=limit, **options
    )
    assert all(seconds is not None and seconds <= limit for seconds in backend_limits), backend_limits


# ---------------------------------------------------------------- LP status
def test_time_limited_lp_is_not_reported_optimal():
    import pulp

    from hpcsched.solvers.milp import solve_pulp

    lp = pulp.LpProblem("lp", pulp.LpMinimize)
    x = [pulp.LpVariable(f"x{i}", 0, 10) for i in range(400)]
    lp += pulp.lpSum((i % 7 + 1) * v for i, v in enumerate(x))
    for j in range(400):
        lp += pulp.lpSum((1 + (i * j) % 5) * x[i] for i in range(j, min(400, j + 6))) >= 1 + j % 3
    outcome = solve_pulp(lp, time_limit=0.0)
    assert outcome.status is not Status.OPTIMAL
    assert "Optimal" not in outcome.message  # PuLP's "Optimal / Solution Found" for a time limit


def test_lp_rounding_says_why_its_lp_gave_no_bound():
    result = solve(medium_instance(), "lp-rounding", time_limit=1e-9)
    assert result.status is Status.FEASIBLE
    note = " ".join(result.notes)
    assert "LP relaxation not solved" in note and "Optimal" not in note, result.notes


# ---------------------------------------------------------------- the offload-set search is deterministic
def test_search_branches_are_limited_in_deterministic_time_with_one_worker(monkeypatch):
    calls = []
    real = cpsat_adapter.solve_cpsat

    def spy(model, **kwargs):
        calls.append(kwargs)
        return real(model, **kwargs)

    for module in (cpsat_adapter, *CPSAT_CALLERS):
        monkeypatch.setattr(module, "solve_cpsat", spy)
    instance = small_instance([2, 3, 1, 4, 2], [3, 2, 4, 1, 3], [4, 6, 3, 5, 2, 4], fraction=0.2)
    upper = int(evaluate(instance, simulate(instance, instance.offloadable))["objective"])
    search = offload_set_search(instance, upper=upper, time_limit=600, node_limit=0.5, workers=2, cuts=True)
    assert search.proven and calls
    assert all(call.get("deterministic_time") is not None and call.get("workers") == 1 for call in calls), calls
    assert search.deterministic_time > 0


def test_brute_force_times_each_set_under_its_deterministic_limit_with_one_worker(monkeypatch):
    calls = []
    real = cpsat_adapter.solve_cpsat

    def spy(model, **kwargs):
        calls.append(kwargs)
        return real(model, **kwargs)

    monkeypatch.setattr(cpsat_model_module, "solve_cpsat", spy)
    instance = small_instance([2, 3, 1, 4], [3, 2, 4, 1], [4, 6, 3, 5, 2], fraction=0.3)
    result = solve(instance, "brute-force", time_limit=600, set_deterministic_time=3.5)
    assert result.status is Status.OPTIMAL and calls
    assert all(call["deterministic_time"] == 3.5 and call["workers"] == 1 for call in calls), calls
    assert "(limit 3.5 per set); 0 timed sets not proven" in result.notes[1], result.notes


def test_brute_force_is_not_optimal_when_a_set_hits_its_deterministic_limit(monkeypatch):
    # A set whose timing stops at its deterministic limit (stubbed: an incumbent, no proof) leaves the
    # enumeration FEASIBLE without a bound, whatever the wall clock had left.
    real = cpsat_adapter.solve_cpsat

    def stopped(model, **kwargs):
        outcome = real(model, **kwargs)
        status = Status.FEASIBLE if outcome.status is Status.OPTIMAL else outcome.status
        return dataclasses.replace(outcome, status=status)

    monkeypatch.setattr(cpsat_model_module, "solve_cpsat", stopped)
    instance = small_instance([2, 3, 1, 4], [3, 2, 4, 1], [4, 6, 3, 5, 2], fraction=0.3)
    result = solve(instance, "brute-force", time_limit=600)
    assert result.status is Status.FEASIBLE and result.bound is None
    assert "0 timed sets not proven" not in result.notes[1], result.notes


def test_cpsat_passes_its_deterministic_limit_to_its_cp_sat_solves(monkeypatch):
    calls = []
    real = cpsat_adapter.solve_cpsat

    def spy(model, **kwargs):
        calls.append(kwargs)
        return real(model, **kwargs)

    monkeypatch.setattr(cpsat_module, "solve_cpsat", spy)
    # The optimum (56, brute force) lies above `bounds.best` (53): no start meets the bound, the
    # full-resolution solve (no search, no LP here) must prove it.
    instance = small_instance([3] * 4, [5] * 4, [6] * 5, fraction=0.2)
    optimum = proven_optimum(instance, "brute-force")
    assert bounds.best(instance) < optimum
    result = solve(instance, "cpsat", time_limit=600, deterministic_time=7.5, branch_fraction=0.0, use_lp=False)
    assert result.status is Status.OPTIMAL and result.objective == optimum
    assert calls and all(call["deterministic_time"] == 7.5 for call in calls), calls
    assert any("full-resolution CP-SAT: OPTIMAL" in note for note in result.notes), result.notes


def test_the_same_search_proves_the_same_thing_twice():
    # Two branches at once, results taken in submission order: no dependence on which solve returns first.
    instance = generate_random(n=12, seed=5, budget=0.4)
    upper = int(evaluate(instance, simulate(instance, instance.offloadable))["objective"])
    runs = [
        offload_set_search(instance, upper=upper, time_limit=600, node_limit=0.2, workers=2, cuts=True)
        for _ in range(2)
    ]
    first, second = ((r.proven, r.bound, r.cap, r.nodes, r.pruned, r.open, r.deterministic_time) for r in runs)
    assert first == second


def test_a_search_stopped_by_the_wall_clock_claims_no_proof():
    instance = generate_random(n=30, seed=2, budget=0.4)
    upper = int(evaluate(instance, simulate(instance, instance.offloadable))["objective"])
    search = offload_set_search(instance, upper=upper, time_limit=0.0, node_limit=10.0, workers=2)
    assert not search.proven and search.open >= 1 and search.bound <= upper


# ---------------------------------------------------------------- coarsened models
def test_docs_example_at_resolution_1000_is_not_infeasible():
    # docs/offload.md: generate offload --family random --n 50 --seed 1 --param budget=0.5 (default method:
    # OPTIMAL 75,296); the coarsened model answered INFEASIBLE before.
    instance = generate_random(n=50, seed=1, budget=0.5)
    result = solve(instance, "cpsat-plain", time_limit=30, resolution=1000)
    assert result.status is not Status.INFEASIBLE, result.notes
    assert result.status is Status.FEASIBLE and result.bound is None


def test_an_infeasible_coarse_model_falls_back_to_a_schedule(monkeypatch):
    # Whatever makes the coarse model infeasible, its infeasibility is not the instance's.
    from hpcsched.solvers.outcome import Outcome

    monkeypatch.setattr(
        cpsat_plain_module,
        "solve_cpsat",
        lambda model, **kwargs: Outcome(Status.INFEASIBLE, None, None, 0.0, "stub", message="INFEASIBLE"),
    )
    instance = small_instance([2, 3, 1], [3, 2, 4], [4, 6, 3, 5], fraction=0.3)
    result = solve(instance, "cpsat-plain", time_limit=10, resolution=3)
    assert result.status is Status.FEASIBLE and any("says nothing about the instance" in n for n in result.notes)
    fixed = solve(instance, "cpsat-plain", time_limit=10, resolution=3, offloaded=[0])
    assert fixed.status is not Status.INFEASIBLE


@st.composite
def coarse_cases(draw):
    n = draw(st.integers(2, 6))
    forward = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    backward = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n))
    activation = draw(st.lists(st.integers(1, 12), min_size=n + 1, max_size=n + 1))
    instance = small_instance(
        forward,
        backward,
        activation,
        fraction=draw(st.sampled_from([0.0, 0.2, 0.5])),
        bandwidth=draw(st.sampled_from([0.25, 0.5, 1.0])),
        latency=draw(st.integers(0, 3)),
        duplex=draw(st.sampled_from(["full", "half"])),
    )
    return instance, draw(st.sampled_from([2, 7, 25, 1000]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(coarse_cases())
def test_no_coarsened_run_says_infeasible_when_the_instance_has_a_schedule(case):
    instance, resolution = case
    if simulate(instance, instance.offloadable) is None:
        return  # infeasible instance: nothing to compare
    result = solve(instance, "cpsat-plain", time_limit=10, resolution=resolution)
    assert result.status is not Status.INFEASIBLE, result.notes
    assert result.status is not Status.ERROR, result.notes


# ---------------------------------------------------------------- every exact method keeps its limit on a large chain
@pytest.mark.slow
@pytest.mark.parametrize("method", EXACT)
def test_exact_methods_keep_their_time_limit_on_resnet101(backend_limits, method):
    # No wall clock here: every backend solve is given at most the method's limit (what is left of it).
    from hpcsched.core.io import read_instance

    instance = read_instance(INSTANCES / "resnet101-pcie3-30.json")
    limit = 5.0
    result = solve(instance, method, time_limit=limit)
    assert result.status is not Status.ERROR, result.notes
    assert all(seconds is not None and seconds <= limit for seconds in backend_limits), backend_limits
