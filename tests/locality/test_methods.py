"""Exact methods agree with each other and with brute force; heuristics respect bounds.

Every method is called through `hpcsched.solve`, so each returned solution has
passed the independent validator (status ERROR otherwise).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import proven_optimum

import hpcsched
from hpcsched.core.registry import methods
from hpcsched.core.result import Status
from hpcsched.locality import bounds
from hpcsched.locality.generate import generate_uniform

from .helpers import networkx_unit_optimum, random_instance

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEURISTICS = [m.name for m in methods("locality") if m.kind in ("heuristic", "baseline")]


def solve(instance, name, **options):
    result = hpcsched.solve(instance, name, time_limit=20, **options)
    assert result.status is not Status.ERROR, (name, result.notes)
    return result


small = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 10**6),
        "n": st.integers(1, 7),
        "m": st.integers(1, 4),
        "r": st.integers(1, 3),
        "variable_r": st.booleans(),
    }
)


@SETTINGS
@given(small)
def test_unit_makespan_flow_equals_milp_cpsat_and_brute_force(params):
    params["r"] = min(params["r"], params["m"])
    instance = random_instance(unit=True, **params)
    expected = proven_optimum(instance, "brute-force")
    assert networkx_unit_optimum(instance) == expected
    for name in ("semi-matching", "unit-flow", "milp", "cpsat", "auto"):
        result = solve(instance, name)
        assert result.status is Status.OPTIMAL and result.objective == expected, name
    assert bounds.best(instance) == expected
    assert bounds.trivial_bound(instance) <= expected


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(20, 400), st.integers(2, 40), st.integers(1, 3))
def test_semi_matching_equals_generic_flow_on_larger_instances(seed, n, m, r):
    instance = random_instance(seed, n=n, m=m, r=min(r, m), unit=True, variable_r=seed % 2 == 0)
    fast, flow = solve(instance, "semi-matching"), solve(instance, "unit-flow")
    assert fast.objective == flow.objective and fast.status is flow.status is Status.OPTIMAL


@pytest.mark.parametrize("seed", range(3))
def test_semi_matching_equals_generic_flow_at_scale(seed):
    instance = generate_uniform(seed=seed, n=30_000, m=300, r=1 + seed)
    assert solve(instance, "semi-matching").objective == proven_optimum(instance, "unit-flow")


def test_with_one_replica_the_assignment_is_forced():
    for seed in range(5):
        instance = random_instance(seed, n=12, m=4, r=1, unit=seed % 2 == 0)
        forced = np.bincount(instance.replica_servers, weights=instance.durations, minlength=4).max()
        names = [
            "semi-matching",
            "unit-flow",
            "milp",
            "cpsat",
            "least-loaded",
            "lpt",
            "fewest-choices",
            "plan-then-execute",
            "random-local",
        ]
        for name in names:
            result = solve(instance, name)
            if result.status is Status.NOT_APPLICABLE:
                assert name in ("semi-matching", "unit-flow") and not instance.is_unit
                continue
            assert result.objective == forced, name
            assert np.array_equal(result.solution.server_of_task(12), instance.replica_servers), name


@SETTINGS
@given(small)
def test_heterogeneous_milp_cpsat_brute_force_agree(params):
    params["r"] = min(params["r"], params["m"])
    instance = random_instance(unit=False, **params)
    expected = proven_optimum(instance, "brute-force")
    for name in ("milp", "cpsat", "auto"):
        result = solve(instance, name)
        assert result.status is Status.OPTIMAL and result.objective == expected, name
    assert bounds.best(instance) <= expected
    assert bounds.hall_bound(instance) <= expected
    for name in ("semi-matching", "unit-flow", "quota-flow"):
        if not instance.is_unit and len(set(instance.durations.tolist())) > 1:
            assert solve(instance, name).status is Status.NOT_APPLICABLE
    for name in HEURISTICS:
        result = solve(instance, name)
        if result.status.has_solution:
            assert result.objective >= expected, name
            assert result.bound is None or result.bound <= expected


@settings(max_examples=20, deadline=None)
@given(small, st.booleans())
def test_communication_quota_flow_equals_milp_and_brute_force(params, unit):
    params["r"] = min(params["r"], params["m"])
    params["n"] = min(params["n"], 6)
    params["m"] = min(params["m"], 3)
    params["r"] = min(params["r"], params["m"])
    instance = random_instance(unit=unit, objective="communication", **params)
    expected = proven_optimum(instance, "brute-force")
    milp = solve(instance, "milp-communication")
    assert milp.status is Status.OPTIMAL and milp.objective == expected
    if unit:
        quota = solve(instance, "quota-flow")
        assert quota.status is Status.OPTIMAL and quota.objective == expected
    assert bounds.communication_bound(instance) <= expected
    for name in HEURISTICS:
        result = solve(instance, name)
        if result.status.has_solution:
            assert result.objective >= expected, name


@settings(max_examples=15, deadline=None)
@given(small, st.integers(1, 3))
def test_communication_with_remote_cost(params, cost):
    params["n"] = min(params["n"], 5)
    params["m"] = min(params["m"], 3)
    params["r"] = min(params["r"], params["m"])
    instance = random_instance(unit=params["seed"] % 2 == 0, objective="communication", remote_cost=cost, **params)
    expected = proven_optimum(instance, "brute-force")
    assert solve(instance, "milp-communication").objective == expected
    assert solve(instance, "quota-flow").status is Status.NOT_APPLICABLE
    for name in ("hadoop-greedy", "delay-scheduling", "plan-then-execute"):
        assert solve(instance, name).objective >= expected


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 9), st.integers(1, 6), st.integers(1, 3))
def test_hall_bound_equals_subset_enumeration(seed, n, m, r):
    instance = random_instance(seed, n=n, m=m, r=min(r, m), unit=False, variable_r=True)
    assert bounds.hall_bound(instance) == max(
        bounds.hall_bound_enumerated(instance), -(-int(instance.durations.sum()) // m)
    )


def test_communication_bound_is_exact_when_tasks_fit_one_per_server():
    for seed in range(10):
        instance = random_instance(seed, n=3, m=4, r=2, unit=False, objective="communication", remote_cost=1)
        assert bounds.communication_bound(instance) == proven_optimum(instance, "brute-force")


def test_heuristics_on_medium_instances_never_beat_the_optimum():
    instance = generate_uniform(seed=4, n=2000, m=40, r=3)
    optimum = proven_optimum(instance, "semi-matching")
    for name in ("least-loaded", "lpt", "fewest-choices", "plan-then-execute", "random-local"):
        result = solve(instance, name)
        assert optimum <= result.objective, name
    communication = generate_uniform(seed=4, n=2000, m=40, r=3, objective="communication")
    optimum = proven_optimum(communication, "quota-flow")
    for name in ("hadoop-greedy", "delay-scheduling", "plan-then-execute"):
        assert solve(communication, name).objective >= optimum, name


def test_delay_scheduling_reports_idle_time():
    import re

    instance = generate_uniform(seed=2, n=400, m=40, r=1, objective="communication", durations="lognormal")
    result = solve(instance, "delay-scheduling", delay=3)
    note = next(note for note in result.notes if "idle time" in note)
    idle = int(re.search(r"idle time (\d+)", note).group(1))
    # With one replica per task, servers run out of local work: they must have waited.
    assert idle > 0
    no_delay = solve(instance, "delay-scheduling", delay=0)
    assert "idle time 0 " in next(note for note in no_delay.notes if "idle time" in note)
    assert no_delay.objective == solve(instance, "hadoop-greedy").objective


def test_an_unfinished_cpsat_solve_is_feasible_not_optimal():
    # The instance of benchmarks/locality (seed 1, lognormal sigma 0.5, 20 tasks per server) that
    # CP-SAT could not prove in 60 s; a deterministic budget of 0.05 work units on one worker stops
    # it at the same point on any machine, and it must not claim optimality there.
    instance = generate_uniform(seed=1, n=3200, m=160, r=2, durations="lognormal", sigma=0.5)
    result = hpcsched.solve(instance, "cpsat", time_limit=60, deterministic_time=0.05, workers=1)
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.status is Status.FEASIBLE:
        assert result.bound is not None and result.bound < result.objective


def test_a_time_limited_milp_claims_optimality_only_with_a_proof():
    # The instance the MILP could not prove in 60 s: whatever 1 s gives on this machine, an
    # OPTIMAL must come with a bound that meets the objective, a FEASIBLE with one below it.
    instance = generate_uniform(seed=1, n=800, m=40, r=2, durations="lognormal", sigma=0.5)
    result = hpcsched.solve(instance, "milp", time_limit=1.0)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.status is Status.OPTIMAL:
        assert result.bound == result.objective
    elif result.status is Status.FEASIBLE and result.bound is not None:
        assert result.bound < result.objective


def test_brute_force_refuses_large_instances():
    instance = generate_uniform(seed=0, n=40, m=10, r=3)
    assert hpcsched.solve(instance, "brute-force").status is Status.NOT_APPLICABLE


@pytest.mark.parametrize("r", [1, 2, 3])
def test_semi_matching_with_a_movable_sample_stays_exact(r):
    from hpcsched.locality.flows import semi_matching_assignment

    for seed in range(3):
        instance = random_instance(seed, n=3000, m=60, r=r, unit=True, variable_r=seed == 2)
        found = semi_matching_assignment(instance, movable_fraction=0.125, seed=seed)
        assert found.target == proven_optimum(instance, "unit-flow")
        loads = np.bincount(found.server_of_task, minlength=60)
        assert loads.max() == found.target and loads.sum() == 3000
        local = (instance.replica_matrix() == found.server_of_task[:, None]).any(axis=1)
        assert local.all()
        if r == 1:
            assert found.stats.samples > 1  # the forced assignment needs the full (proving) search


@pytest.mark.parametrize("duration", [2, 5])
def test_equal_durations_scale_the_unit_optimum(duration):
    from hpcsched.locality import Instance

    for seed in range(4):
        unit = random_instance(seed, n=7, m=3, r=2, unit=True)
        scaled = Instance.create(3, np.full(7, duration), unit.replica_matrix())
        expected = proven_optimum(scaled, "brute-force")
        assert expected == duration * proven_optimum(unit, "brute-force")
        for name in ("semi-matching", "unit-flow", "cpsat"):
            assert solve(scaled, name).objective == expected, name
        communication = scaled.with_objective("communication")
        assert solve(communication, "quota-flow").objective == proven_optimum(communication, "brute-force")


def test_plan_then_execute_steals_only_local_work_under_objective_1():
    instance = generate_uniform(seed=5, n=300, m=12, r=2, durations="pareto")
    result = solve(instance, "plan-then-execute")
    assert result.kpis["nonlocal_tasks"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("r", [1, 2, 3])
def test_semi_matching_equals_generic_flow_at_one_million_tasks(r):
    instance = generate_uniform(seed=11, n=1_000_000, m=10_000, r=r)
    fast, flow = solve(instance, "semi-matching"), solve(instance, "unit-flow")
    assert fast.status is flow.status is Status.OPTIMAL and fast.objective == flow.objective
