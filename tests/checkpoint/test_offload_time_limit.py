"""The two-level heuristics honour their time limit on a long chain (every phase checks the deadline).

No wall clock (tests/workclock.py): the deadline passes after a chosen number of deadline-clock
readings, and the Python lines run after it are counted. On this 200-stage chain offload-dp reads
the clock ~12 times in its baselines and then once per slice of its DP table (reads 100 and 1000 fall
inside the table); offload-greedy reads it ~120 times in its offload loop. A baseline may still run
past the deadline when none has fit M yet (the remat-only baselines answer with the first cheap one
that fits): at reads=10 that is recompute-all, whose lines are measured and allowed (``plus``).
"""

from __future__ import annotations

import math

import pytest
from workclock import assert_stops_promptly, count_lines, solve_past_deadline

import hpcsched
from hpcsched.checkpoint.generate import generate_random
from hpcsched.checkpoint.heuristics import recompute_all
from hpcsched.checkpoint.model.two_levels import validate_two_levels
from hpcsched.core.result import Status


@pytest.fixture(scope="module")
def long_chain():
    # 200 stages: neither the offload DP's table nor rotor's DP finishes in a second
    chain = generate_random(seed=0, n=200, budget=0.5)
    return chain.with_link(bandwidth_out=20, bandwidth_in=20, latency=1)


@pytest.mark.parametrize(
    ("method", "reads"),
    [*(("offload-dp", reads) for reads in (0, 10, 100, 1000)), *(("offload-greedy", reads) for reads in (0, 10, 100))],
)
def test_a_long_chain_stops_at_the_time_limit(long_chain, method, reads):
    result, clock = solve_past_deadline(long_chain, method, reads=reads, budget=5_000_000)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert validate_two_levels(long_chain, result.solution) == []
    else:
        assert result.status is Status.TIME_LIMIT_NO_SOLUTION
    fallback = 0
    if method == "offload-dp":  # the first cheap remat baseline that fits M, run once past the deadline
        chain = long_chain.as_chain()
        fallback = count_lines(lambda: recompute_all(chain, time_limit=math.inf, seed=0, params=None))
    assert_stops_promptly(long_chain, result, clock, plus=fallback)


def test_offload_greedy_answers_a_long_chain_within_a_work_budget(long_chain):
    """Store-all and the remat greedy's sequences are tried before the persistent DP's tables are filled, so the
    first ~120 deadline-clock readings are enough for a schedule (before, the DP's six tables came first: no
    schedule even in 15 s). The deadline passes at the 1,000th reading: it is never reached."""
    from hpcsched.checkpoint import bounds

    result, clock = solve_past_deadline(long_chain, "offload-greedy", reads=1000)
    assert not clock.expired, clock.readings
    assert result.solution is not None, result.notes
    assert validate_two_levels(long_chain, result.solution) == []
    assert result.objective >= bounds.best(long_chain)
    assert result.status is (Status.OPTIMAL if result.objective <= bounds.best(long_chain) else Status.FEASIBLE)


def test_offload_greedy_tries_store_all_before_making_the_greedy_sequences(monkeypatch):
    """Homogeneous stages, a slow link: making the remat greedy's sequences takes seconds at 300 stages (a
    simulation per prefix of its drop order), store-all with offloads is tried first and already meets the bound,
    so they are never made (no wall clock: making them fails the test, at any length: 100 stages, 0.2 s)."""
    from hpcsched.checkpoint import bounds, offload_greedy
    from hpcsched.checkpoint.generate import generate_homogeneous

    def made(*args):
        raise AssertionError("the greedy's sequences were made")

    monkeypatch.setattr(offload_greedy, "greedy_remat_candidates", made)
    chain = generate_homogeneous(seed=1, n=100, budget=0.5).with_link(bandwidth_out=1, bandwidth_in=1)
    result = hpcsched.solve(chain, "offload-greedy", time_limit=600)
    assert result.solution is not None, result.notes
    assert validate_two_levels(chain, result.solution) == []
    assert result.objective == bounds.best(chain)
    assert result.status is Status.OPTIMAL
