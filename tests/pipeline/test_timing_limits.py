"""The semi-active timing stops at the time limit (work clock, tests/workclock.py).

At 10^5 micro-batches one timing pass takes about a second; a deadline that
passes inside it must end the method within a few thousand jobs, not after
the whole pass. 3,000 micro-batches on 4 devices (24,000 jobs): the timing
pass is about two thirds of the method's Python lines, so the deadline
passes inside it at the ``lines`` points below.
"""

from __future__ import annotations

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.pipeline import generate_uniform, validate

LONG = generate_uniform(n=3_000, devices=4)


@pytest.mark.parametrize("method", ["1f1b", "gpipe", "interleaved-1f1b", "uniform-1f1b", "local-search"])
@pytest.mark.parametrize("lines", [350_000, 550_000])
def test_a_deadline_inside_the_timing_pass_stops_it(method, lines):
    result, clock = solve_past_deadline(LONG, method, problem="pipeline", lines=lines)
    assert clock.expired
    assert result.status in (Status.OPTIMAL, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert validate(LONG, result.solution) == []
    assert_stops_promptly(LONG, result, clock)
