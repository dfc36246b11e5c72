"""Time limits found overrun by the 2026-12-04 sweep of every hetero method at growing sizes.

On a 2,000-task layered graph (about 190,000 edges) the HLP linear program (`bounds.hlp_solution`) is
built in Python and solved by HiGHS in a few seconds. ``hlp-rounding`` solved it with no time limit (and
a second time for its bound), and ``cpsat`` and ``milp`` solved it twice more for their incumbent and
`bounds.best`: at a 0.5 s limit cpsat and milp returned after 2.5 s (TIME_LIMIT_NO_SOLUTION). The LP now gets the time left, the row
building checks the deadline, `bounds.best` drops HLP when it is cut, and a cut model build returns the
list-scheduling incumbent FEASIBLE.
"""

from __future__ import annotations

import functools

import pytest
from timed import timed_solve

from hpcsched.core.result import Status
from hpcsched.hetero import Instance, generate_layered

LIMIT = 0.5
# after the fix the methods return within about 0.7 s of the limit unloaded, but 2.0 s was exceeded once in a
# loaded -n 2 suite run; the old code is still caught by its status (TIME_LIMIT_NO_SOLUTION after 2.5 s)
HETERO_SLACK = 3.0


@functools.cache
def _layered(n: int) -> Instance:
    return generate_layered(seed=0, n=n)


@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_exact_methods_return_the_incumbent_at_the_limit(method):
    result, elapsed = timed_solve(_layered(2000), method, problem="hetero", time_limit=LIMIT)
    assert elapsed < LIMIT + HETERO_SLACK, (elapsed, result.notes)
    # milp refuses the horizon-sized time-indexed model (max_variables) once it has the incumbent
    assert result.status in (Status.FEASIBLE, Status.NOT_APPLICABLE), result.notes
    if result.status is Status.FEASIBLE:
        assert result.bound is not None and result.bound <= result.objective
