"""The burstbuffer validator and bounds at thousands of applications (no wall clock).

The dynamic (shared-buffer) simulation behind `validate` and `evaluate` updated every application
at every event, O(K) per event and O(K^2) in all: 1,000 applications took 29 s to validate and
`hpcsched.solve` simulated twice (validate, then evaluate). It now costs O(log K) per event (heaps
of phase ends, a write clock shared by the throttled writers), computes the stretches where nobody
is throttled in one numpy pass (`model.nominal`), and `validate` and `evaluate` share one replay.
The lower bounds ran one single-application recurrence per application; they are one pass now.
Work is counted in Python lines (tests/workclock.py), the same on any machine.
"""

from __future__ import annotations

import functools
import importlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from workclock import count_lines

from hpcsched import solve
from hpcsched.burstbuffer import (
    Application,
    Instance,
    Platform,
    Solution,
    bounds,
    evaluate,
    generate_periodic,
    validate,
)
from hpcsched.burstbuffer.model import dynamic_events, nominal, static_events
from hpcsched.burstbuffer.model.dynamic_events import DynamicSimulation
from hpcsched.burstbuffer.model.fluid import simulate
from hpcsched.burstbuffer.model.trace import event_budget
from hpcsched.core.result import Status

# the module, not the function of the same name that hpcsched.burstbuffer.model exports
validate_module = importlib.import_module("hpcsched.burstbuffer.model.validate")


@functools.cache
def _periodic(count: int, objective: str = "sharing") -> Instance:
    return generate_periodic(seed=3, n=count, objective=objective)


def _bursts(instance: Instance) -> int:
    return sum(app.iterations for app in instance.applications)


@pytest.mark.parametrize("method", ["dynamic-reference", "equal-split"])
def test_solve_simulates_the_answer_once(monkeypatch, method):
    calls = []

    def counted(instance, solution, **options):
        calls.append(solution)
        return simulate(instance, solution, **options)

    monkeypatch.setattr(validate_module, "simulate", counted)
    result = solve(_periodic(6), method, time_limit=10)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert len(calls) == 1


def test_a_new_solution_object_is_simulated_again():
    instance = _periodic(6)
    first, second = Solution.dynamic(instance.platform.capacity), Solution.dynamic(0.0)
    assert evaluate(instance, first)["max_dilation"] < evaluate(instance, second)["max_dilation"]
    assert validate(instance, first) == [] and evaluate(instance, first)["size"] == instance.platform.capacity


@pytest.mark.parametrize("count", [200, 400])
def test_the_dynamic_validator_costs_lines_in_proportion_to_the_bursts(count):
    # the shared buffer at the platform's capacity (half the no-slowdown size): throttled periods and
    # free ones; the old simulator ran about 10 K lines per event (count = 200: 4 million lines)
    instance = _periodic(count)
    solution = Solution.dynamic(instance.platform.capacity)
    lines = count_lines(validate, instance, solution)
    assert lines <= 150 * _bursts(instance), lines


def test_the_event_engine_alone_costs_lines_independent_of_the_applications(monkeypatch):
    # without the numpy stretches every event is simulated one by one: O(log K) each
    monkeypatch.setattr(dynamic_events, "fast_forward", lambda sim: (0, 10**9))
    per_burst = []
    for count in (100, 400):
        instance = _periodic(count)
        solution = Solution.dynamic(instance.platform.capacity)
        run = functools.partial(DynamicSimulation(instance, solution, detail=False).run, event_budget(instance, None))
        per_burst.append(count_lines(run) / _bursts(instance))
    assert per_burst[1] <= 1.5 * per_burst[0], per_burst


@pytest.mark.parametrize("capacity", ["platform", "none", "no-slowdown"])
def test_the_numpy_stretches_agree_with_the_event_by_event_simulation(capacity):
    instance = _periodic(60)
    size = {"platform": instance.platform.capacity, "none": 0.0, "no-slowdown": bounds.dynamic_backlog(instance)[0]}
    solution = Solution.dynamic(size[capacity])
    budget = event_budget(instance, None)
    fast = DynamicSimulation(instance, solution, detail=False).run(budget)
    slow = DynamicSimulation(instance, solution, detail=True).run(budget)
    assert fast.completion == pytest.approx(slow.completion, rel=1e-12)
    assert fast.peak_occupancy == pytest.approx(slow.peak_occupancy, rel=1e-9)
    assert [v.rule for v in fast.violations] == [v.rule for v in slow.violations]


def test_a_stretch_stops_where_the_buffer_would_fill(monkeypatch):
    attempts = []
    original = nominal.fast_forward
    monkeypatch.setattr(dynamic_events, "fast_forward", lambda sim: attempts.append(1) or original(sim))
    instance = _periodic(60)
    trace = DynamicSimulation(instance, Solution.dynamic(instance.platform.capacity), detail=False).run(
        event_budget(instance, None)
    )
    assert len(attempts) >= 2  # it fills, the events go one by one, then a stretch again
    assert max(trace.completion) < float("inf") and not trace.violations


def test_the_lower_bounds_are_one_pass_over_the_applications():
    small, big = _periodic(50), _periodic(400)
    assert count_lines(bounds.best, big) <= 2 * 8 * count_lines(bounds.best, small)
    assert count_lines(bounds.dynamic_bound, big, 1e10) / big.num_applications <= 30


@st.composite
def static_cases(draw):
    count = draw(st.integers(1, 4))
    apps = tuple(
        Application(
            f"a{k}",
            draw(st.sampled_from([0.0, 1.5, 3.25])),
            draw(st.integers(1, 4)),
            draw(st.sampled_from([0.0, 2.0, 7.5])),
            draw(st.floats(1, 200)),
            draw(st.floats(1, 50)),
        )
        for k in range(count)
    )
    bandwidth, granule = draw(st.floats(1, 50)), draw(st.floats(1, 30))
    objective = draw(st.sampled_from(["sharing", "sizing-static"]))
    instance = Instance("r", Platform(bandwidth, draw(st.integers(0, 12)) * granule + 1e-9, granule), apps, objective)
    granules = draw(st.lists(st.integers(0, 4), min_size=count, max_size=count))
    drains = [draw(st.sampled_from([0.0, 0.5, 1.0])) * bandwidth / count for _ in apps]
    return instance, Solution.static(granules, drains)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(static_cases(), st.booleans())
def test_partitions_side_by_side_agree_with_one_by_one(case, lp):
    # the numpy lockstep (large instances) against the Python simulation of one partition at a time
    instance, solution = case
    if lp and instance.objective == "sizing-static":  # a drain schedule: breakpoints shared by all partitions
        result = solve(instance, "sizing-static-lp", time_limit=10)
        solution = result.solution if result.solution is not None else solution
    one_by_one = static_events.simulate_static(instance, solution, None)
    original = static_events.DETAIL_BURSTS
    static_events.DETAIL_BURSTS = 0
    try:
        side_by_side = static_events.simulate_static(instance, solution, None)
    finally:
        static_events.DETAIL_BURSTS = original
    assert side_by_side.completion == pytest.approx(one_by_one.completion, rel=1e-12)
    assert sorted(v.rule for v in side_by_side.violations) == sorted(v.rule for v in one_by_one.violations)
    assert side_by_side.times == pytest.approx(one_by_one.times, rel=1e-12)
    peak = max(one_by_one.peak_occupancy, 1.0)
    assert side_by_side.total == pytest.approx(one_by_one.total, rel=1e-9, abs=1e-9 * peak)


def test_the_total_occupancy_is_the_sum_of_the_partitions():
    owner = np.array([0, 1, 0, 1, 0, 2, 2])
    times = np.array([0.0, 0.0, 2.0, 1.0, 5.0, 0.0, 3.0])
    contents = np.array([0.0, 0.0, 4.0, 3.0, 1.0, 0.0, 6.0])
    union, total = static_events._total(times, contents, static_events._previous_rows(owner))
    expected = [
        sum(np.interp(t, times[owner == k], contents[owner == k], right=contents[owner == k][-1]) for k in range(3))
        for t in union
    ]
    assert union.tolist() == [0.0, 1.0, 2.0, 3.0, 5.0]
    assert total == pytest.approx(expected)


def test_the_static_validator_costs_lines_per_event_of_the_busiest_partition_not_per_application():
    instance = generate_periodic(seed=5, n=12_000)  # 48,000 bursts: side by side
    solved = solve(instance, "equal-split", time_limit=60).solution
    # a copy: the solve's own replay of `solved` is kept (validate would not simulate again)
    solution = Solution.static(list(solved.granules), list(solved.drain_rates))
    # ~20 lines per application side by side; one by one it was ~600 (7.2 M lines here)
    assert count_lines(validate, instance, solution) <= 40 * instance.num_applications
