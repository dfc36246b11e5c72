"""Exact hetero methods answer with their incumbent when the deadline cuts HLP or the model build.

On a 2,000-task layered graph (about 190,000 edges) the HLP linear program (`bounds.hlp_solution`) is
built in Python and solved by HiGHS in a few seconds. ``hlp-rounding`` solved it with no time limit (and
a second time for its bound), ``cpsat`` and ``milp`` solved it twice more for their incumbent and
`bounds.best`, and a deadline that cut the model build gave TIME_LIMIT_NO_SOLUTION although HEFT and
HeteroPrio had a schedule. The LP now gets the time left, the row building checks the deadline,
`bounds.best` drops HLP when it is cut, and a cut model build returns the list-scheduling incumbent.

No wall clock (tests/workclock.py): on a 500-task graph (~14,000 edges) HEFT and HeteroPrio read the
deadline clock in its first 8 readings, then HLP's row building 14 times (for hlp-rounding's
incumbent), 14 again (for `bounds.best`), then the model build about once per task. The deadline passes
inside each of these phases; before HEFT ends there is no schedule (TIME_LIMIT_NO_SOLUTION is right
there). ``milp`` gets a ``max_variables`` that lets it build its time-indexed model (by default it
refuses this size before any work).
"""

from __future__ import annotations

import functools

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.hetero import Instance, generate_layered

#: Readings before the deadline passes: in hlp-rounding's HLP build, in `bounds.best`'s, in the model build.
READS = {"cpsat": (12, 30, 200), "milp": (12, 30, 40)}
OPTIONS = {"cpsat": {}, "milp": {"max_variables": 10**8}}


@functools.cache
def _layered(n: int) -> Instance:
    return generate_layered(seed=0, n=n)


@pytest.mark.parametrize(("method", "reads"), [(method, reads) for method, values in READS.items() for reads in values])
def test_exact_methods_return_the_incumbent_at_the_limit(method, reads):
    instance = _layered(500)
    result, clock = solve_past_deadline(instance, method, reads=reads, problem="hetero", **OPTIONS[method])
    assert result.status is Status.FEASIBLE, result.notes
    assert result.bound is not None and result.bound <= result.objective
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize(("rows_allowed", "presolved"), [(10**9, True), (10, False)])
def test_hlp_skips_highs_presolve_above_the_row_limit_under_a_deadline(monkeypatch, rows_allowed, presolved):
    # HiGHS's presolve does not read its time limit (9.5 s of 3 s on 1.1 M rows): above
    # PRESOLVE_MAX_ROWS the LP is given to the simplex without it; without a deadline, HiGHS's defaults.
    from hpcsched.core.deadline import Deadline
    from hpcsched.hetero import bounds

    given = []
    original = bounds.linprog

    def spy(*args, **kwargs):
        given.append(kwargs.get("options"))
        return original(*args, **kwargs)

    monkeypatch.setattr(bounds, "linprog", spy)
    monkeypatch.setattr(bounds, "PRESOLVE_MAX_ROWS", rows_allowed)
    instance = _layered(60)
    limited, _ = bounds.hlp_solution(instance, Deadline.after(600.0))
    free, _ = bounds.hlp_solution(instance)
    assert given[0]["presolve"] is presolved and given[1] == {}
    assert limited == pytest.approx(free)
