"""The list schedules stop at the time limit (work clock, tests/workclock.py).

At 10^5 nodes one list schedule takes seconds, and HEFT, METIS and
round-robin used to read the deadline only before it: at a 1 s limit they
answered after 3.3-3.5 s. On a 3,000-node training graph the list schedule
is the method's Python lines from about 0.35 M to 1.5 M, so the deadline
passes inside it at the ``lines`` points below; after it, at most
`simulate.CHECK_EVERY` placements (~50,000 lines) run before the method stops.
"""

from __future__ import annotations

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.partition import generate_training, validate

from .partition_strategies import INSTALLED_HEURISTICS

LONG = generate_training(seed=0, nodes=3_000)


METHODS = ["heft", "round-robin"] + (["metis"] if "metis" in INSTALLED_HEURISTICS else [])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("lines", [700_000, 1_100_000])
def test_a_deadline_inside_the_list_schedule_stops_it(method, lines):
    result, clock = solve_past_deadline(LONG, method, problem="partition", lines=lines)
    assert clock.expired
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert validate(LONG, result.solution) == []
    assert_stops_promptly(LONG, result, clock)
