"""Transfers methods stop at their deadline on large instances (no wall clock: tests/workclock.py).

The searches and the exact methods start from the best of the ten constructive rules
(`heuristics.best_constructive`). It scored every rule whatever the deadline, building a full
schedule and evaluating it for each, and the warm start of the exact methods did it twice; the
iterated greedy's temperature summed ``instance.transfer[i]`` over i, a new n-tuple per access.
At n = 100,000 that was minutes before the first look at the deadline. Now the rules are scored
by the simulator's makespan while time is left, the first one always (the fallback every method
may still compute once its deadline has passed: one rule's order, its simulation, its schedule
and the lower bound), and the columns of an instance are made once.
"""

from __future__ import annotations

import functools

import pytest
from workclock import assert_stops_promptly, count_lines, solve_past_deadline

from hpcsched.core.result import Status
from hpcsched.transfers import Instance, Simulator, bounds, validate
from hpcsched.transfers.generate import generate_uniform
from hpcsched.transfers.heuristics import static_order

N = 3000


@functools.cache
def _instance() -> Instance:
    return generate_uniform(seed=0, n=N, memory_factor=1.5)


def _fallback(instance: Instance) -> int:
    """Lines of the first rule (FIFO): its order, its makespan, its schedule, and the lower bound."""
    simulator = Simulator(instance)

    def first_rule() -> None:
        order = static_order(instance, "fifo")
        simulator.makespan(order)
        simulator.schedule(order)

    return count_lines(first_rule) + count_lines(bounds.all_bounds, instance)


@pytest.mark.parametrize("reads", [0, 6])
@pytest.mark.parametrize("method", ["iterated-greedy", "ils", "neh", "cpsat", "milp"])
def test_searches_and_exact_methods_stop_at_the_limit_on_a_large_instance(method, reads):
    instance = _instance()
    result, clock = solve_past_deadline(instance, method, reads=reads, problem="transfers")
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert validate(instance, result.solution) == []
    assert_stops_promptly(instance, result, clock, plus=_fallback(instance))


def test_the_columns_of_an_instance_are_made_once():
    instance = _instance()
    assert instance.transfer is instance.transfer
    assert instance.compute is instance.compute and instance.memory is instance.memory
    assert instance.transfer == tuple(task.transfer for task in instance.tasks)


def test_a_cut_rule_scan_says_which_rules_it_left_out():
    result, _ = solve_past_deadline(_instance(), "ils", reads=0, problem="transfers")
    assert any("not scored: johnson-blocking" in note for note in result.notes), result.notes
