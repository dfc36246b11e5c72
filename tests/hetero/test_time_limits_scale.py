"""hetero's exact models honour their time limit at 10^5 tasks (no wall clock).

Both start from a warm start (the best of HEFT with insertion, HeteroPrio and HLP rounding). It
gave each heuristic the whole time the method had when it began, so the three could take three
times the limit before the model was even built (10^5 tasks: cpsat 17 s, milp 16 s at 5 s); and
milp refused a model over ``max_variables`` only after them. Now each heuristic gets what the
method's deadline leaves, and milp first refuses a model that is too large at the least horizon any
schedule has (its longest task on its faster type), before any warm start.
"""

from __future__ import annotations

import math

import pytest
from workclock import count_lines, deadline_after

from hpcsched import solve
from hpcsched.core import deadline as deadline_module
from hpcsched.core.result import Status
from hpcsched.hetero import generate_layered
from hpcsched.hetero.formulations import common


def test_milp_refuses_a_model_too_large_at_any_horizon_before_the_warm_start():
    instance = generate_layered(seed=1, n=2000, layers=60)
    results = []
    lines = count_lines(lambda: results.append(solve(instance, "milp", time_limit=60)))
    (result,) = results
    # the size is O(n) (~36 lines per task here); the warm start first took ~2,700 per task
    assert lines < 100 * instance.n, lines
    assert result.status is Status.NOT_APPLICABLE
    assert "at least" in result.notes[0]


@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_the_warm_start_runs_under_the_method_deadline(monkeypatch, method):
    """Each heuristic of the warm start spends all the time it is given (a clock advanced by it):
    together they spend no more than the method's limit, and the method answers with what they found."""
    instance = generate_layered(seed=2, n=40, layers=5)
    now = [0.0]
    monkeypatch.setattr(deadline_module, "clock", lambda: now[0])
    given: list[float] = []

    def spending(heuristic):
        def run(instance, /, *, time_limit, seed, params):
            given.append(time_limit)
            result = heuristic(instance, time_limit=math.inf, seed=seed, params=params)
            now[0] += time_limit
            return result

        return run

    for name in ("heft_insertion", "heteroprio", "hlp_rounding"):
        monkeypatch.setattr(common, name, spending(getattr(common, name)))
    options = {"max_variables": 10**6} if method == "milp" else {}
    result = solve(instance, method, time_limit=2.0, stop_at_bound=False, **options)
    assert now[0] <= 2.0, f"the warm start was given {given} s of a 2 s limit"
    assert result.status is Status.FEASIBLE, result.notes


@pytest.mark.parametrize(
    "method",
    [
        "heft",
        "heft-insertion",
        "all-cpu",
        "all-gpu",
        "heteroprio",
        "heteroprio-nospol",
        "clb2c",
    ],
)
def test_the_list_schedules_read_the_deadline_while_placing(method):
    """Placing 10^5 tasks takes seconds: the heuristics check their deadline every 1,024 tasks placed (or
    HeteroPrio steps), not only before (a wall-clock overrun the work clock cannot see: nothing reads it
    in between, so the clock readings are counted: 4 before, registry included, on 5,000 tasks)."""
    instance = generate_layered(seed=3, n=5_000, layers=166, edge_probability=0.0 if method == "clb2c" else 0.3)
    with deadline_after(10**9) as clock:  # the deadline never passes; the clock counts its readings
        result = solve(instance, method, time_limit=60)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert clock.readings >= 2 * (instance.n // 1024), clock.readings
