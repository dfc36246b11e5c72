"""burstbuffer at 10^4-10^5 applications: the work a method did before or between deadline checks.

At -t 1 on periodic instances: sharing-dp took 30 s at 10^5 (the spare bandwidth shared out with a
sum over all applications per application, O(K^2); then the knapsack DP adds 10^5 applications
without looking at the clock), sharing-milp 4.3 s at 10^4 and > 70 s at 10^5 (each row k scanned
every variable, O(K^2 N); PuLP hands the model to HiGHS one column at a time), sizing-static-lp
ran 9 s CPU at 10^4 before TIME_LIMIT_NO_SOLUTION (its dense inflow table, 10^4 x 8 10^4
intervals). No wall clock here: tests/workclock.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from workclock import assert_stops_promptly, count_lines, deadline_after, solve_past_deadline

import hpcsched
from hpcsched.burstbuffer import Solution, evaluate, generate_periodic, validate
from hpcsched.burstbuffer import special_cases as special_cases_module
from hpcsched.burstbuffer.formulations import intervals, knapsack, sharing
from hpcsched.core.deadline import Deadline, TimeLimitReached
from hpcsched.core.result import Status


def _fresh_check(instance, solution) -> int:
    """Lines of the registry's check on a copy of ``solution`` (validate and evaluate cache their replay per object).

    `assert_stops_promptly` counts the check again on the answer itself, whose replay the solve
    already cached: a few lines, where the solve's own check simulated every burst.
    """
    copy = Solution.static(list(solution.granules), list(solution.drain_rates))
    return count_lines(validate, instance, copy) + count_lines(evaluate, instance, copy)


def _costs(count: int, granules: int = 16) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.sort(rng.uniform(0, 1, size=(count, granules + 1)), axis=1)[:, ::-1].copy()


def test_the_knapsack_dp_stops_within_one_batch_of_applications():
    costs = _costs(20 * knapsack.APPS_PER_CHECK)
    batch = count_lines(knapsack.knapsack_dp, costs[: knapsack.APPS_PER_CHECK], 16)
    with deadline_after(reads=3) as clock:  # passes at the 4th look: inside the DP
        with pytest.raises(TimeLimitReached, match="dynamic programming"):
            knapsack.knapsack_dp(costs, 16, Deadline.after(1.0))
    assert clock.expired and clock.lines_after <= batch + 100, (clock.lines_after, batch)


def test_the_knapsack_dp_with_a_deadline_gives_the_same_answer():
    costs = _costs(700, 9)
    assert knapsack.knapsack_dp(costs, 9, Deadline.after(1e9)) == knapsack.knapsack_dp(costs, 9)


def test_sharing_dp_answers_with_the_greedy_allocation_when_the_deadline_passes_in_the_dp(monkeypatch):
    instance = generate_periodic(seed=0, n=3000)
    original, starts, raised = knapsack.knapsack_dp, [], []

    def watched(*args):
        starts.append(hpcsched.core.deadline.clock.__self__.readings)
        try:
            return original(*args)
        except TimeLimitReached:
            raised.append(1)
            raise

    monkeypatch.setattr(knapsack, "knapsack_dp", watched)
    with deadline_after(reads=10**9):  # never passes: how many looks at the clock before the first DP?
        hpcsched.solve(instance, "sharing-dp", time_limit=1.0)
    result, clock = solve_past_deadline(instance, "sharing-dp", reads=starts[0] + 2)
    assert raised, "the deadline did not pass inside the knapsack DP"
    assert result.status is Status.FEASIBLE and "time limit reached during the bisection" in result.notes
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock, plus=_fresh_check(instance, result.solution))


def test_the_spare_bandwidth_is_summed_once(monkeypatch):
    calls = []
    counted = lambda values: calls.append(1) or sum(values)  # noqa: E731
    instance = generate_periodic(seed=0, n=300)
    monkeypatch.setattr(sharing, "sum", counted, raising=False)
    sharing._share_spare_bandwidth(instance, [0.0] * 300)
    monkeypatch.setattr(special_cases_module, "sum", counted, raising=False)
    calls.clear()
    hpcsched.solve(instance.with_objective("sizing-static"), "sizing-static-constant", time_limit=10)
    assert len(calls) <= 10, len(calls)  # was one sum of K weights per application


def test_sharing_milp_stops_building_its_knapsack_at_the_deadline():
    # the old rows scanned every variable per application: millions of lines after the deadline
    instance = generate_periodic(seed=0, n=1500)
    result, clock = solve_past_deadline(instance, "sharing-milp", lines=300_000)
    assert result.status is Status.FEASIBLE, result.notes
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock, plus=_fresh_check(instance, result.solution))


def test_sharing_milp_stops_at_a_knapsack_too_large_to_hand_to_highs(monkeypatch):
    monkeypatch.setattr(knapsack, "MAX_KNAPSACK_SIZE", 50)
    instance = generate_periodic(seed=0, n=40)
    result = hpcsched.solve(instance, "sharing-milp", time_limit=10)
    assert result.status is Status.FEASIBLE
    assert any("bisection stopped: the knapsack MILP would have" in note for note in result.notes), result.notes
    assert validate(instance, result.solution) == []


def test_sizing_static_lp_refuses_a_model_above_the_cap_before_any_work(monkeypatch):
    instance = generate_periodic(seed=0, n=16, objective="sizing-static")
    pairs = intervals.model_pairs(instance)
    monkeypatch.setattr(intervals, "MAX_MODEL_PAIRS", pairs - 1)
    result = hpcsched.solve(instance, "sizing-static-lp", time_limit=1.0)
    assert result.status is Status.NOT_APPLICABLE
    assert f"{pairs} (application, interval) pairs, more than {pairs - 1}" in result.notes[0]
    monkeypatch.setattr(intervals, "MAX_MODEL_PAIRS", pairs)
    assert hpcsched.solve(instance, "sizing-static-lp", time_limit=30).status is not Status.NOT_APPLICABLE


def test_sizing_static_lp_does_not_start_a_solve_it_cannot_hand_over_in_time(monkeypatch):
    # 99,800 pairs: built in 6 s, handed to HiGHS in 29.5 s more, so a 30 s limit ended at 46 s
    from hpcsched.burstbuffer.formulations import sizing
    from hpcsched.solvers import pyomo

    instance = generate_periodic(seed=0, n=16, objective="sizing-static")
    monkeypatch.setattr(sizing, "HANDOVER_PER_BUILD", 1e12)  # any build, however fast, predicts too long a hand-over

    def never(*args, **kwargs):
        raise AssertionError("the solver was started")

    monkeypatch.setattr(pyomo, "solve_pyomo", never)
    result = hpcsched.solve(instance, "sizing-static-lp", time_limit=30)
    assert result.status is Status.TIME_LIMIT_NO_SOLUTION
    assert "LP not solved: handing the model to HiGHS takes" in result.notes[-1], result.notes


def test_the_generators_largest_sizing_instances_are_refused():
    instance = generate_periodic(seed=0, n=2000, objective="sizing-static")
    assert intervals.model_pairs(instance) > intervals.MAX_MODEL_PAIRS
    result = hpcsched.solve(instance, "exact", time_limit=1.0)
    assert result.status is Status.NOT_APPLICABLE and "sizing-static-constant" in result.notes[0]


def test_sizing_static_constant_stops_its_greedy_at_the_deadline():
    # 10^5 periodic applications take ~450,000 granules (2.8 s CPU at -t 1); the greedy never looked
    instance = generate_periodic(seed=0, n=3000, objective="sizing-static")
    result, clock = solve_past_deadline(instance, "sizing-static-constant", reads=2)
    assert result.status is Status.FEASIBLE and "time limit reached in the greedy" in result.notes[0]
    assert validate(instance, result.solution) == []
    assert result.objective >= result.bound
    assert_stops_promptly(instance, result, clock, plus=_fresh_check(instance, result.solution))


def test_a_drain_table_pass_reads_the_deadline_per_chunk_with_the_same_brackets(monkeypatch):
    # one pass over 10^5 mix applications x 33 sizes took seconds between two looks at the clock
    from hpcsched.burstbuffer import simulate

    instance = generate_periodic(seed=1, n=40, granules=30)
    sizes = np.arange(31) * instance.platform.granule
    whole = simulate.drain_table_brackets(instance.applications, sizes, 1.3)
    monkeypatch.setattr(simulate, "CELLS_PER_CHECK", 97)
    chunked = simulate.drain_table_brackets(instance.applications, sizes, 1.3)
    assert all(np.array_equal(a, b) for a, b in zip(whole, chunked, strict=True))
    sizes_seen, original = [], simulate._elapsed
    monkeypatch.setattr(simulate, "_elapsed", lambda *columns: sizes_seen.append(columns[0].size) or original(*columns))
    with deadline_after(reads=10**9) as clock:
        simulate.drain_table_brackets(instance.applications, sizes, 1.3, deadline=Deadline.after(1.0))
    assert max(sizes_seen) <= 97 and clock.readings >= len(sizes_seen), (max(sizes_seen), clock.readings)
