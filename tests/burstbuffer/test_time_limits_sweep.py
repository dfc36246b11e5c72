"""``sizing-static-lp`` stops building its model at the deadline (no wall clock: tests/workclock.py).

``sizing-static-lp`` made its index lists (K x intervals pairs), their Pyomo Sets and its two
families of non-negative variables without looking at the deadline: on 1,024 periodic
applications that is 6.6 M variables per family (~20 s each), so a 3 s limit took 31 s. The
index is now made per application, the Sets are filled by a generator that checks the deadline,
and each variable's lower bound comes from a rule that checks it too.

On 128 applications the method reads the deadline clock a few times while it makes the index
lists and its Sets, then in the variables' and rows' rules; the deadline passes in each phase
(after a number of clock readings, or after a number of Python lines: the old code read the clock
before its index and next in the row rules, ~11 M lines later, so only a deadline that passes
between readings catches it), and after it the method only raises (no answer to check).
"""

from __future__ import annotations

import pyomo.environ  # noqa: F401  (imported once here: its import is not the method's work after a deadline)
import pytest
from workclock import assert_stops_promptly, solve_past_deadline

import hpcsched
from hpcsched.burstbuffer.generate import generate_periodic
from hpcsched.core.result import Status


@pytest.mark.parametrize(
    "passes", [{"reads": 0}, {"reads": 3}, {"reads": 8}, {"reads": 20}, {"lines": 1_000_000}, {"lines": 4_000_000}]
)
def test_sizing_static_lp_stops_building_at_the_limit(passes):
    instance = generate_periodic(seed=0, n=128, objective="sizing-static")
    result, clock = solve_past_deadline(instance, "sizing-static-lp", problem="burstbuffer", **passes)
    assert result.status is Status.TIME_LIMIT_NO_SOLUTION, result.notes
    assert_stops_promptly(instance, result, clock)


def test_sizing_static_lp_small_instance_still_solves():
    # The bound rule replaces NonNegativeReals: the LP/MILP must still reach a validated optimum.
    instance = generate_periodic(seed=0, n=16, objective="sizing-static")
    result = hpcsched.solve(instance, "sizing-static-lp", problem="burstbuffer", time_limit=30)
    assert result.status is Status.OPTIMAL, result.notes
    assert hpcsched.burstbuffer.validate(instance, result.solution) == []
