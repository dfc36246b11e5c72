"""cpsat and milp stop at their time limit (on the work clock, tests/workclock.py) with what they have."""

from __future__ import annotations

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.pipeline import generate_random, generate_uniform, generate_vshape

INSTANCES = {
    "uniform-makespan": lambda: generate_uniform(devices=4, n=8, memory_factor=1.3, delay=1),
    "vshape-makespan": lambda: generate_vshape(devices=2, n=4, memory_factor=1.5),
    "random-period": lambda: generate_random(
        seed=3, n=2, devices=3, max_duration=4, memory_factor=1.2, objective="period"
    ),
    "uniform-period": lambda: generate_uniform(devices=3, n=3, backward=3, memory_factor=1.0, objective="period"),
}
#: The time limit handed to the method: where the method reads the clock fewer than ``reads`` times the
#: deadline never passes and HiGHS or CP-SAT run on the wall clock for up to this long (at 1 s, 9 of those
#: 13 cases took 0.5-1.2 s, 9.5 s in all); every case that passes its deadline stops in the same phase at
#: 0.25 as at 1.0.
TIME_LIMIT = 0.25


@pytest.mark.parametrize("reads", [0, 5, 12, 16, 24, 100])
@pytest.mark.parametrize("warm", [None, 0.0])
@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_exact_methods_stop_at_the_deadline(method, name, warm, reads):
    """The deadline passes in every phase: warm start, bounds, model build, solve, the search over periods.

    (With ``warm_start_seconds=0`` only the baseline runs, so the later readings fall in the models.)
    """
    instance = INSTANCES[name]()
    result, clock = solve_past_deadline(
        instance, method, reads=reads, time_limit=TIME_LIMIT, stop_at_bound=False, warm_start_seconds=warm
    )
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION, Status.OPTIMAL), result
    if result.objective is not None and result.bound is not None:
        assert result.bound <= result.objective
    if result.status is Status.FEASIBLE:
        assert result.solution is not None
    if clock.expired:  # else the method finished before this many readings
        assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_the_warm_start_is_returned_when_the_limit_cuts_the_model(method):
    """Past the warm start (sequential at least), a limit that cuts the model returns its schedule FEASIBLE."""
    instance = INSTANCES["uniform-makespan"]()
    result, clock = solve_past_deadline(instance, method, reads=14, stop_at_bound=False, warm_start_seconds=0.0)
    assert result.status is Status.FEASIBLE, result
    assert "building" in result.notes[0] and "sequential's schedule is returned" in result.notes[0]
    assert result.bound <= result.objective
    assert_stops_promptly(instance, result, clock)
