"""Heuristics: valid, never below the bound or the optimum, hand-checked policies."""

import math

from hypothesis import given, settings
from reference import proven_optimum

from hpcsched import solve
from hpcsched.core.result import Status
from hpcsched.coschedule import Instance
from hpcsched.coschedule.bounds import best, trivial

from .strategies import instances

HEURISTICS = (
    "serial",
    "fifo",
    "lpt",
    "spt",
    "greedy-partner",
    "matching-list",
    "lp-merge",
    "local-search",
    "matching-paired",
)


def test_fifo_blocks_at_the_head_list_scheduling_does_not():
    # 0 and 1 are incompatible; 2 pairs with both at rate 1.
    instance = Instance.create([4, 2, 4], [(0, 2, 1.0, 1.0), (1, 2, 1.0, 1.0)])
    fifo = solve(instance, "fifo")
    assert math.isclose(fifo.objective, 8.0)  # 1 waits for 0, then 1 and 2 run together
    listed = solve(instance, "lpt")  # LPT order 0, 2, 1: 0 and 2 together, then 1
    assert math.isclose(listed.objective, 6.0)
    assert math.isclose(solve(instance, "serial").objective, 10.0)


def test_greedy_partner_avoids_harmful_pairs():
    # Co-running 0 and 1 is slower than serial (0.3 + 0.3 < 1): greedy runs them in series.
    instance = Instance.create([5, 5], [(0, 1, 0.3, 0.3)])
    assert math.isclose(solve(instance, "greedy-partner").objective, 10.0)


@settings(max_examples=6, deadline=None)
@given(instances(max_n=4))
def test_heuristics_valid_and_never_better_than_optimum(instance):
    optimum = proven_optimum(instance, "brute-force")
    bound = best(instance)
    for method in HEURISTICS:
        result = solve(instance, method, time_limit=0.3)
        assert result.status in (Status.FEASIBLE, Status.OPTIMAL), (method, result.notes)
        assert result.kpis["preemptions"] == 0, method
        assert result.objective >= optimum * (1 - 1e-6), method
        assert result.objective >= bound * (1 - 1e-9), method
        if method in ("serial", "greedy-partner", "matching-paired"):  # these never co-run a harmful pair
            assert result.objective <= sum(instance.durations) * (1 + 1e-9), method


@settings(max_examples=15, deadline=None)
@given(instances(max_n=8))
def test_bounds_are_ordered(instance):
    lp = proven_optimum(instance, "lp-preemptive")
    assert trivial(instance) <= lp * (1 + 1e-9)
    assert best(instance) <= lp


def test_local_search_is_seeded():
    from hpcsched.coschedule import generate_uniform

    instance = generate_uniform(seed=5, n=12, density=0.7)
    first = solve(instance, "local-search", seed=3, max_iterations=200, time_limit=30)
    second = solve(instance, "local-search", seed=3, max_iterations=200, time_limit=30)
    assert first.objective == second.objective
