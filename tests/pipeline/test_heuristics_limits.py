"""The heuristics stop at their time limit (work clock, tests/workclock.py): no wall clock involved."""

from __future__ import annotations

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.pipeline import generate_random, generate_zero_bubble, validate

METHODS = ("gpipe", "1f1b", "zb-h1", "zb-h2", "greedy-backward-first", "greedy", "local-search")
#: 8 devices, 100 micro-batches, split backward: 2,400 jobs; unlimited memory, and a tight limit.
LARGE = {
    "unlimited": generate_zero_bubble(devices=8, n=100),
    "tight": generate_zero_bubble(devices=8, n=100, memory_factor=2),
}


def _stops(instance, method, **when):
    result, clock = solve_past_deadline(instance, method, problem="pipeline", **when)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert validate(instance, result.solution) == []
    if not clock.expired:  # finished before the deadline passed (the fast constructions at the later points)
        assert result.solution is not None
        return
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("memory", sorted(LARGE))
@pytest.mark.parametrize("when", [{"reads": 0}, {"reads": 2}, {"lines": 20_000}, {"lines": 150_000}], ids=str)
def test_heuristics_stop_at_the_limit(method, memory, when):
    if memory == "tight" and method == "gpipe":
        pytest.skip("GPipe does not fit the tight limit (NOT_APPLICABLE before any long work)")
    _stops(LARGE[memory], method, **when)


@pytest.mark.parametrize("method", ["1f1b", "greedy-critical-path", "zb-h2"])
@pytest.mark.parametrize("when", [{"reads": 0}, {"reads": 3}, {"lines": 30_000}], ids=str)
def test_repetends_stop_at_the_limit(method, when):
    instance = generate_random(seed=2, devices=6, stages=6, n=8, split=True, memory_factor=1.2, objective="period")
    _stops(instance, method, **when)
