"""Time limits on dense instances (every pair listed): the work a method may still do near its deadline.

At 10,000 kernels (1.9 M pairs) the methods overran 1.2 T + 2 s: linprog handed the LP to HiGHS
(uninterruptible, ~4 x the matrix build) and HiGHS then got the whole time left; lp-merge and
local-search simulated their best order a second time after the deadline; the greedy matching
that stands in for a cut max-weight matching looped over every sorted pair in Python.

No wall clock (tests/workclock.py, or a clock that advances a fixed step at every reading).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from workclock import assert_stops_promptly, count_lines, solve_past_deadline

from hpcsched.core import deadline as deadline_module
from hpcsched.core.result import Status
from hpcsched.coschedule import Instance, bounds, validate
from hpcsched.coschedule.generate import generate_uniform
from hpcsched.coschedule.heuristics import lists, search
from hpcsched.coschedule.special_cases import _greedy_matching, pair_savings


@functools.cache
def _dense(n: int) -> Instance:
    return generate_uniform(seed=0, n=n)


@pytest.fixture
def linprog_calls(monkeypatch):
    """The time limits linprog was called with (it is imported inside `bounds._solve_scipy`)."""
    calls: list[float | None] = []
    original = scipy.optimize.linprog

    def spy(*args, **kwargs):
        calls.append(kwargs.get("options", {}).get("time_limit"))
        return original(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "linprog", spy)
    return calls


@pytest.fixture
def stepping_clock(monkeypatch):
    """The deadline clock advances 0.3 s at every reading: the LP's matrix build 'takes' 0.3 s."""
    readings = iter(range(1_000_000))
    monkeypatch.setattr(deadline_module, "clock", lambda: 0.3 * next(readings))


def test_lp_not_handed_over_when_the_time_left_cannot_cover_it(linprog_calls, stepping_clock):
    # build 0.3 s -> hand-over ~1.5 s and answer ~2.4 s (HANDOVER_PER_BUILD, ANSWER_PER_BUILD): 1 s cannot
    # cover them, HiGHS is not started
    solved = bounds.solve_preemptive_lp(_dense(20), time_limit=1.0)
    assert solved.status is Status.TIME_LIMIT_NO_SOLUTION and solved.value is None
    assert linprog_calls == []


def test_highs_gets_the_time_left_after_the_hand_over_and_the_answer(linprog_calls, stepping_clock):
    solved = bounds.solve_preemptive_lp(_dense(20), time_limit=10.0)
    assert solved.status is Status.OPTIMAL
    reserved = (bounds.HANDOVER_PER_BUILD + bounds.ANSWER_PER_BUILD) * 0.3
    assert linprog_calls == [pytest.approx(10.0 - 0.3 - reserved)]


@pytest.mark.parametrize("method", ["auto", "lp-preemptive", "milp-min-preemptions", "lp-merge"])
def test_lp_methods_past_the_deadline_after_the_build(method, linprog_calls):
    # Readings: the registry's 2, the method's deadline and its look at it (lp-merge: remaining()),
    # then the LP build's start and end: the deadline passes at the build's end.
    reads = 5 if method == "lp-merge" else 6
    instance = _dense(40)
    result, clock = solve_past_deadline(instance, method, reads=reads, problem="coschedule")
    # (lp-merge's bound for n <= 300, `bounds.best`, solves the LP without a limit: a None here)
    assert [limit for limit in linprog_calls if limit is not None] == []
    assert result.status is Status.FEASIBLE, result.notes
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock)


@pytest.mark.parametrize("method", ["lp-merge", "local-search"])
def test_best_order_is_simulated_once_past_the_deadline(method, monkeypatch):
    # The deadline has passed at the method's first look: one list schedule (the cheap incumbent), not two.
    simulated = []
    original = search.list_schedule

    def spy(instance, order):
        simulated.append(list(order))
        return original(instance, order)

    monkeypatch.setattr(search, "list_schedule", spy)
    instance = _dense(40)
    result, clock = solve_past_deadline(instance, method, reads=2, problem="coschedule")
    assert result.status is Status.FEASIBLE
    assert len(simulated) == 1
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock)


def _reference_greedy(n, low, high, saving):
    """The greedy matching as the Python loop over every sorted edge made it."""
    matched, matching = set(), set()
    for k in np.lexsort((high, low, -saving)).tolist():
        a, b = int(low[k]), int(high[k])
        if len(matched) < n - 1 and a not in matched and b not in matched:
            matching.add((a, b))
            matched.update((a, b))
    return matching


def test_greedy_matching_screen_skips_the_matched_pairs_at_numpy_speed():
    instance = _dense(200)
    savings = pair_savings(instance)
    assert _greedy_matching(instance.n, *savings) == _reference_greedy(instance.n, *savings)
    # the loop over every sorted pair ran 56,384 lines here (19,900 pairs), the screen 10,685
    assert count_lines(_greedy_matching, instance.n, *savings) < len(savings[0])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 9),
    edges=st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8), st.sampled_from([0.5, 1.0, 2.0])), max_size=40),
)
def test_greedy_matching_is_the_heaviest_free_pair_first(n, edges):
    seen = {}
    for a, b, w in edges:
        if a != b and a < n and b < n:
            seen.setdefault((min(a, b), max(a, b)), w)
    low = np.array([a for a, _ in seen], dtype=np.int64)
    high = np.array([b for _, b in seen], dtype=np.int64)
    saving = np.array(list(seen.values()), dtype=float)
    assert _greedy_matching(n, low, high, saving) == _reference_greedy(n, low, high, saving)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 12),
    rows=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11), st.sampled_from([0.1, 0.25, 0.5])), max_size=60),
)
def test_partner_order_is_the_lexsort_order(n, rows):
    rows = [(o % n, p % n, g) for o, p, g in rows]
    owner = np.array([o for o, _, _ in rows], dtype=np.int64)
    other = np.array([p for _, p, _ in rows], dtype=np.int64)
    gains = np.array([g for _, _, g in rows], dtype=float)
    expected = np.lexsort((other, -gains, owner))
    assert lists._by_owner_gain_partner(owner, gains, other, n).tolist() == expected.tolist()
