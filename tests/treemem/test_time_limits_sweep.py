"""Time limits found overrun by the 2026-12-04 sweep of every treemem method at growing sizes.

``par-subtrees`` and ``par-subtrees-optim`` walk up to n cuts of the tree at O(n) (O(n log n) with
LPT) each; on a 12,800-node parallel tree at a 0.5 s limit they took 4.5 s and 15.7 s before the walk
stopped at the deadline with its best cut so far. ``sp-ization``'s series split counted every edge
once per level boundary it crosses, O(edges × levels), with no deadline check inside: 5.9 s on a
dense 2,400-node random DAG at a 0.5 s limit. The greedy, the incumbent of ``dp`` and
``local-search``, left them with TIME_LIMIT_NO_SOLUTION when the limit cut it.

No wall clock (tests/workclock.py): the deadline passes once the method has run a given number of
Python lines, in the middle of the phase that overran (a phase that does all its work between two
readings of the clock is caught only this way), and the lines it runs after that are counted.
"""

from __future__ import annotations

import functools

import pytest
from workclock import assert_stops_promptly, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.treemem import Instance, generate_parallel_tree, generate_random_dag, generate_random_tree, validate

#: Lines after the deadline at which a run is stopped: a method that ignores its deadline fails fast.
BUDGET = 5_000_000


@functools.cache
def _parallel_tree(n: int) -> Instance:
    # memory_factor 10: M never binds, so both variants return a schedule that validates
    return generate_parallel_tree(seed=0, n=n, memory_factor=10.0)


@pytest.mark.parametrize("method", ["par-subtrees", "par-subtrees-optim"])
def test_par_subtrees_cut_search_stops_at_the_limit(method):
    # 2,000 nodes: Liu's order ends ~134,000 lines into the run; the walk over cuts then runs 1.7 million
    # lines (4.9 million with LPT) to its end, and the deadline passes ~66,000 lines into it
    instance = _parallel_tree(2000)
    result, clock = solve_past_deadline(instance, method, problem="treemem", lines=200_000, budget=BUDGET)
    assert result.status is Status.FEASIBLE, result.notes
    assert validate(instance, result.solution) == []
    assert any("time limit" in note for note in result.notes), result.notes
    assert_stops_promptly(instance, result, clock)


def test_sp_ization_series_split_stops_at_the_limit():
    # a dense random DAG (about n²/8 edges): the first series split starts ~169,000 lines into the run and
    # the deadline passes in its count of the edges crossing each level boundary (~325,000 lines follow:
    # the DFS post-order and the check of the answer); the old count, one per boundary an edge crosses and
    # no deadline check, ran 2.2 million lines there
    instance = generate_random_dag(seed=0, n=400)
    result, clock = solve_past_deadline(instance, "sp-ization", problem="treemem", lines=200_000, budget=BUDGET)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert_stops_promptly(instance, result, clock)
    assert result.notes[0] == "time limit reached while sp-ization (series split): the DFS post-order instead"


@pytest.mark.parametrize("method", ["dp", "local-search"])
def test_a_cut_greedy_leaves_an_incumbent(method):
    # the deadline passes at the greedy's second check (step 256 of 3,000; the registry reads the clock
    # twice and the method once before it); the greedy was the incumbent of dp, cpsat, milp and
    # local-search, which returned TIME_LIMIT_NO_SOLUTION. The spanning-forest order is cut too (same
    # deadline), so the DFS post-order (one linear pass) is the incumbent.
    instance = generate_random_tree(seed=0, n=3000)
    result, clock = solve_past_deadline(instance, method, problem="treemem", reads=4, budget=BUDGET)
    assert result.status is Status.FEASIBLE, result.notes
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock)
