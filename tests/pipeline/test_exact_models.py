"""cpsat and milp against brute force on small random instances of both objectives, and their edge cases.

CP-SAT runs with one worker under a deterministic limit (the same proof on a
loaded machine); the wall-clock limits are only a safety net, far above what
these instances need.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hpcsched import read_instance, solve
from hpcsched.core.result import Status
from hpcsched.pipeline import GENERATORS, Instance, bounds, evaluate, generate_random, generate_uniform

from .pipeline_strategies import block_graphs, instances

CPSAT = {"workers": 1, "deterministic_time": 60.0, "stop_at_bound": False}
MILP = {"stop_at_bound": False}
SAFETY_S = 600.0
TESSEL = Path(__file__).resolve().parents[2] / "instances" / "pipeline" / "tessel"


@st.composite
def family_instances(draw, objective: str = "makespan"):
    """A small instance of a generator family: random sizes, delays, and memory from tight to unlimited."""
    family = draw(st.sampled_from(sorted(GENERATORS)))
    devices = draw(st.integers(1, 1 if family in ("vshape", "interleaved") else 2))
    options = {"seed": draw(st.integers(0, 10**6)), "devices": devices, "objective": objective}
    options["n"] = draw(st.integers(1, 2 if objective == "period" or family in ("vshape", "interleaved") else 3))
    if family == "random":
        options.update(max_duration=3, max_memory=3, max_delay=draw(st.integers(0, 2)), split=draw(st.booleans()))
    else:
        options["delay"] = draw(st.integers(0, 2))
    memory = draw(st.sampled_from(["unlimited", 1.0, 1.0, 1.3, 2.0]))
    if memory == "unlimited":
        options["memory_limit"] = "unlimited"
    else:
        options["memory_factor"] = memory
    return GENERATORS[family](**options)


def _agree(instance: Instance) -> None:
    """cpsat == milp == brute force (status and objective); every bound <= the optimum."""
    expected = solve(instance, "brute-force", time_limit=SAFETY_S)
    assert expected.status in (Status.OPTIMAL, Status.INFEASIBLE), expected
    for method, options in (("cpsat", CPSAT), ("milp", MILP)):
        result = solve(instance, method, time_limit=SAFETY_S, **options)
        assert result.status is expected.status, (method, result, instance.to_data())
        if expected.status is Status.OPTIMAL:
            assert result.objective == expected.objective, (method, result.notes, instance.to_data())
            assert result.bound == result.objective
    if expected.status is Status.OPTIMAL:
        assert bounds.best(instance) <= expected.objective


def _small(instance: Instance) -> bool:
    jobs = instance.micro_batches * instance.n_blocks
    return jobs <= (6 if instance.is_period else 10)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(instance=(family_instances() | instances(max_jobs=10)).filter(_small))
def test_makespan_exact_methods_agree_with_brute_force(instance):
    _agree(instance)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(instance=(family_instances("period") | instances("period", max_jobs=5)).filter(_small))
def test_period_exact_methods_agree_with_brute_force(instance):
    _agree(instance)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(instance=block_graphs(max_blocks=4, max_devices=3, objective="period", max_micro=2).filter(_small))
def test_period_model_without_tight_offsets_agrees(instance):
    """The tight-offset rules only cut schedules that others dominate: the optimum is the same without them."""
    with_rules = solve(instance, "cpsat", time_limit=SAFETY_S, **CPSAT)
    without = solve(instance, "cpsat", time_limit=SAFETY_S, tight_offsets=False, **CPSAT)
    assert with_rules.status is without.status
    assert with_rules.objective == without.objective


def _overflowing_chain(objective: str) -> Instance:
    """Two allocations of 2 held together by a chain on a device limited to 3: no schedule fits."""
    blocks = [
        {"name": "a", "device": 0, "duration": 1, "memory": 2},
        {"name": "c", "device": 0, "duration": 1, "memory": 2},
        {"name": "d", "device": 0, "duration": 1, "memory": -2},
        {"name": "b", "device": 0, "duration": 1, "memory": -2},
    ]
    edges = [{"from": "a", "to": "c"}, {"from": "c", "to": "d"}, {"from": "d", "to": "b"}]
    data = {"devices": 1, "memory_limit": [3], "blocks": blocks, "edges": edges, "objective": objective}
    data["micro_batches" if objective == "makespan" else "period_micro_batches"] = 2
    return Instance.from_data(data, name="overflow")


@pytest.mark.parametrize("objective", ["makespan", "period"])
@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_no_schedule_fits_is_proven_infeasible(method, objective):
    """No heuristic finds a schedule, so the horizon is the one every feasible instance meets: INFEASIBLE."""
    result = solve(_overflowing_chain(objective), method, time_limit=SAFETY_S)
    assert result.status is Status.INFEASIBLE, result


@pytest.mark.parametrize("method", ["cpsat", "milp"])
@pytest.mark.parametrize(("name", "period"), [("vshape-d4-m4", 4), ("mshape-d4-m6", 6), ("xshape-d4-m4", 8)])
def test_tessel_repetends(method, name, period):
    """Tessel's placements (sharded blocks in mshape and xshape): the periods of its repetends are optimal."""
    instance = read_instance(TESSEL / f"{name}.json")
    options = CPSAT if method == "cpsat" else MILP
    result = solve(instance, method, time_limit=SAFETY_S, **options)
    assert result.status is Status.OPTIMAL and result.objective == period


def test_cpsat_is_the_default_method():
    instance = generate_uniform(devices=2, n=3, memory_limit=2)
    result = solve(instance, time_limit=SAFETY_S)
    assert result.method == "cpsat"
    assert result.status is Status.OPTIMAL and result.objective == 12


def test_an_undecided_period_is_never_claimed():
    """Steps cut by their deterministic limit prove nothing: FEASIBLE, bound = the first period left undecided."""
    instance = generate_random(seed=3, n=2, devices=2, max_duration=4, memory_factor=1.2, objective="period")
    exact = solve(instance, "cpsat", time_limit=SAFETY_S, **CPSAT)
    assert exact.status is Status.OPTIMAL
    lower = bounds.best(instance)
    assert exact.objective > lower  # periods below the optimum must be proven infeasible
    cut = solve(instance, "cpsat", time_limit=SAFETY_S, period_step_deterministic_time=1e-9, stop_at_bound=False)
    assert cut.status is Status.FEASIBLE
    assert cut.bound == lower
    assert cut.objective >= exact.objective


@pytest.mark.parametrize(("objective", "option"), [("makespan", "max_pairs"), ("period", "max_period_variables")])
def test_milp_refuses_models_above_its_size_limits(objective, option):
    instance = generate_uniform(devices=2, n=2, memory_limit=2, objective=objective)
    result = solve(instance, "milp", time_limit=SAFETY_S, **{option: 1})
    assert result.status is Status.NOT_APPLICABLE
    assert f"options.{option} = 1" in result.notes[0]


def test_a_hard_makespan_keeps_its_proofs_apart():
    """Tessel's mshape with 6 micro-batches under a small deterministic limit: FEASIBLE, bound <= objective.

    No heuristic warm start (its share of the safety limit is 5 s of local search, wall-clock bound) and a
    deterministic time of 0.1 (1.0 took 6 s): CP-SAT still ends FEASIBLE at 48 above its bound of 36.
    """
    instance = read_instance(TESSEL / "mshape-d4-m6-n6.json")
    result = solve(instance, "cpsat", time_limit=SAFETY_S, workers=1, deterministic_time=0.1, warm_start_seconds=0)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert result.bound <= result.objective
    assert evaluate(instance, result.solution)["objective"] == result.objective


def test_an_exact_integer_bound_is_kept_above_a_million():
    from hpcsched.pipeline.formulations.common import integer_bound

    assert integer_bound(1_902_715.0, 0) == 1_902_715  # CP-SAT's exact bound (was 1,902,714)
    assert integer_bound(1_902_714.999999, 0) == 1_902_715  # within the tolerance
    assert integer_bound(1_902_714.5, 0) == 1_902_715
    assert integer_bound(1_902_714.0, 0) == 1_902_714
    assert integer_bound(None, 7) == 7 and integer_bound(3.0, 7) == 7
