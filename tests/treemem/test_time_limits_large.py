"""A time limit covers model building and search steps: dp, milp, cpsat, milp-io and the par-* list schedules.

Before the deadline was checked inside the build loops and at every search step, ``dp`` on a 2,000-node
tree ran past 60 s at ``-t 1`` (it checked every 512 pops, each O(n²)) and ``milp``/``cpsat``/``milp-io``
took 11-25 s (and 1.6 GB) at ``-t 0.5`` building their n² slot variables and O(n³) prefix terms unchecked;
a build stopped by the deadline now returns the heuristic incumbent FEASIBLE (with the MemReq bound for
the slot models), not TIME_LIMIT_NO_SOLUTION.

No wall clock (tests/workclock.py): the deadline passes once the method has run a given number of
Python lines, inside the model's build or the DP's search (a build that does all its work between two
readings of the clock is caught only this way), and the lines run after it are counted. PuLP and
OR-Tools are imported here, so that their first import is counted neither before nor after the
deadline, whatever ran first."""

from __future__ import annotations

import functools

import pulp  # noqa: F401  (see the module docstring)
import pytest
from ortools.sat.python import cp_model  # noqa: F401  (see the module docstring)
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.treemem import Instance, as_out_of_core, as_parallel, generate_random_tree, validate

#: Lines after the deadline at which a run is stopped: a method that ignores its deadline fails fast.
BUDGET = 5_000_000


@functools.cache
def _tree(n: int, seed: int) -> Instance:
    return generate_random_tree(seed=seed, n=n)


@functools.cache
def _out_of_core(n: int, seed: int) -> Instance:
    return as_out_of_core(_tree(n, seed), fraction=0.8)


def _check(instance: Instance, result) -> None:
    """FEASIBLE (the heuristic incumbent: the deadline cut the exact part), valid, bound at most the value."""
    assert result.status is Status.FEASIBLE, result.notes
    assert validate(instance, result.solution) == []
    if result.bound is not None:
        assert result.bound <= result.objective


#: What the notes say when the deadline passed in the DP's search or in the model's build.
_CUT_IN = {
    "dp": "stopped at time limit",
    "milp": "while building the MILP",
    "cpsat": "while building the CP-SAT model",
    "milp-io": "while building the MILP",
    "par-inner-first": "while list scheduling",
    "par-deepest-first-capped": "while list scheduling",
    "par-inner-first-memlimit": "while the MemLimit list schedule",
}


# lines: past the heuristic incumbent, which ends ~111,000-117,000 lines into the run at 600 nodes and
# ~364,000-380,000 at 2,000 nodes; each build then runs millions of lines, the DP's first expansion
# ~n² lines
@pytest.mark.parametrize(
    ("n", "seed", "lines"), [(600, 1, 200_000), (2000, 4, 450_000)], ids=["600-nodes", "2000-nodes"]
)
@pytest.mark.parametrize("method", ["dp", "milp", "cpsat"])
def test_sequential_methods_stop_at_the_limit(method, n, seed, lines):
    instance = _tree(n, seed)
    result, clock = solve_past_deadline(instance, method, problem="treemem", lines=lines, budget=BUDGET)
    _check(instance, result)
    assert_stops_promptly(instance, result, clock)
    assert any(_CUT_IN[method] in note for note in result.notes), result.notes  # the deadline passed there
    if method != "dp":  # a build stopped by the limit returns the heuristic incumbent with the MemReq bound
        assert result.bound is not None and "incumbent from heuristics" in result.notes[0]


def test_milp_io_stops_at_the_limit():
    # the eviction heuristics' incumbent ends ~332,000 lines into the run; the deadline passes in the build
    # (the 2,000-node tree of seed 4 the wall-clock version also ran has an in-core traversal that fits M:
    # OPTIMAL without a model, so it tested no build)
    instance = _out_of_core(600, 1)
    result, clock = solve_past_deadline(instance, "milp-io", problem="treemem", lines=400_000, budget=BUDGET)
    _check(instance, result)
    assert_stops_promptly(instance, result, clock)
    assert any(_CUT_IN["milp-io"] in note for note in result.notes), result.notes


@pytest.mark.parametrize("method", ["par-inner-first", "par-deepest-first-capped", "par-inner-first-memlimit"])
def test_parallel_list_schedules_stop_at_the_limit(method):
    """The par-* list schedules (once O(n²) ready-list scans) check the deadline at every event.

    The clock is read ten times before the first event (the registry, Liu's order, the priorities; 12
    times with MemLimit's reduction tree); the deadline passes at the 100th reading, ~90 events into the
    schedule, and Liu's order (made first, within M) is returned on one processor. par-inner-first took
    8.3 s at a 0.3 s limit on a 60,000-node tree before the check.
    """
    instance = as_parallel(_tree(5000, 1), processors=8, memory=10**12)
    result, clock = solve_past_deadline(instance, method, problem="treemem", reads=99, budget=BUDGET)
    assert result.status is Status.FEASIBLE, result.notes
    assert validate(instance, result.solution) == []
    assert any(_CUT_IN[method] in note and "Liu's sequential order" in note for note in result.notes), result.notes
    assert_stops_promptly(instance, result, clock)
