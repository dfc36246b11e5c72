"""Time limits found overrun by the 2026-12-04 sweep of every burstbuffer method at growing sizes.

``sizing-static-lp`` made its index lists (K x intervals pairs), their Pyomo Sets and its two
families of non-negative variables without looking at the deadline: on 1,024 periodic
applications that is 6.6 M variables per family (~20 s each), so a 3 s limit took 31 s (3.4 s
now); on 512, a 1 s limit took 6.2 s (1.3 s now). The index is now made per application, the Sets
are filled by a generator that checks the deadline, and each variable's lower bound comes from a
rule that checks it too.
"""

from __future__ import annotations

from timed import SLACK, timed_solve

import hpcsched
from hpcsched.burstbuffer.generate import generate_periodic
from hpcsched.core.result import Status


def test_sizing_static_lp_stops_building_at_the_limit():
    instance = generate_periodic(seed=0, n=512, objective="sizing-static")
    limit = 1.0  # past the indexing (~0.6 s), so the old code went on to make the variables
    result, elapsed = timed_solve(instance, "sizing-static-lp", problem="burstbuffer", time_limit=limit)
    assert elapsed < limit + SLACK, (elapsed, result.notes)
    assert result.status is Status.TIME_LIMIT_NO_SOLUTION, result.notes


def test_sizing_static_lp_small_instance_still_solves():
    # The bound rule replaces NonNegativeReals: the LP/MILP must still reach a validated optimum.
    instance = generate_periodic(seed=0, n=16, objective="sizing-static")
    result = hpcsched.solve(instance, "sizing-static-lp", problem="burstbuffer", time_limit=30)
    assert result.status is Status.OPTIMAL, result.notes
    assert hpcsched.burstbuffer.validate(instance, result.solution) == []
