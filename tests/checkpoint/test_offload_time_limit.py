"""The two-level heuristics honour their time limit on a long chain (every phase checks the deadline)."""

from __future__ import annotations

import pytest
from timed import SLACK, timed_solve

import hpcsched
from hpcsched.checkpoint.generate import generate_random
from hpcsched.checkpoint.model.two_levels import validate_two_levels
from hpcsched.core.result import Status

LIMIT = 1.0


@pytest.fixture(scope="module")
def long_chain():
    # 200 stages: neither the offload DP's table nor rotor's DP finishes in a second
    chain = generate_random(seed=0, n=200, budget=0.5)
    return chain.with_link(bandwidth_out=20, bandwidth_in=20, latency=1)


@pytest.mark.parametrize("method", ["offload-dp", "offload-greedy"])
def test_a_long_chain_stops_at_the_time_limit(long_chain, method):
    result, wall = timed_solve(long_chain, method, time_limit=LIMIT)
    assert wall < LIMIT + SLACK, (wall, result.notes)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert validate_two_levels(long_chain, result.solution) == []
    else:
        assert result.status is Status.TIME_LIMIT_NO_SOLUTION


def test_offload_greedy_answers_a_long_chain_within_the_limit(long_chain):
    """Store-all and the remat greedy's sequences are tried before the persistent DP's tables are filled, so a few
    seconds are enough for a schedule (before, the DP's six tables came first: no schedule even in 15 s; here
    store-all with offloads meets the bound in about 0.6 s, 5 s leaves room for a loaded machine)."""
    from hpcsched.checkpoint import bounds

    result = hpcsched.solve(long_chain, "offload-greedy", time_limit=5 * LIMIT)
    assert result.solution is not None, result.notes
    assert validate_two_levels(long_chain, result.solution) == []
    assert result.objective >= bounds.best(long_chain)
    assert result.status is (Status.OPTIMAL if result.objective <= bounds.best(long_chain) else Status.FEASIBLE)


def test_offload_greedy_tries_store_all_before_making_the_greedy_sequences(monkeypatch):
    """300 homogeneous stages, a slow link: making the remat greedy's sequences takes seconds (a simulation per
    prefix of its drop order), store-all with offloads is tried first and already meets the bound, so they are
    never made (no wall clock: making them fails the test)."""
    from hpcsched.checkpoint import bounds, offload_greedy
    from hpcsched.checkpoint.generate import generate_homogeneous

    def made(*args):
        raise AssertionError("the greedy's sequences were made")

    monkeypatch.setattr(offload_greedy, "greedy_remat_candidates", made)
    chain = generate_homogeneous(seed=1, n=300, budget=0.5).with_link(bandwidth_out=1, bandwidth_in=1)
    result = hpcsched.solve(chain, "offload-greedy", time_limit=600)
    assert result.solution is not None, result.notes
    assert validate_two_levels(chain, result.solution) == []
    assert result.objective == bounds.best(chain)
    assert result.status is Status.OPTIMAL
