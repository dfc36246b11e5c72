"""checkpoint methods honour their time limit on long chains (no wall clock: tests/workclock.py).

What made them overrun at 10x the usual size, each tested here on the work it did:

- `bounds.best` built its LP row by row (L²/2 Python steps: 1,500 stages, 1.1 M) whatever the
  deadline, in every heuristic's answer and in the exact methods' bounds;
- recompute-all's sequence has L(L-1)/2 + 3L + 1 operations: past ~10^5 the registry's check of
  it takes longer than the limit, so it is not built when it cannot be checked in time;
- the two-level validator looked up the latest copy of a value by scanning every copy (quadratic
  on recomputing sequences), and so did the chain's validator for repeated recording forwards and
  the simulator for the held values: their Python lines per operation must not grow with L;
- H-Revolve's level-0 table (O(c·L²)) and rotor's DP table (O(S·L³) work, S·L²/2 cells) started
  whatever the deadline: the first now checks it every 64 entries, the second is not started when
  it cannot be filled in the time left (or would exceed `MAX_TABLE_BYTES`);
- checkpoint-sequential, cut by its limit, answered nothing: now its best count so far.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from workclock import assert_stops_promptly, count_lines, deadline_after, solve_past_deadline

from hpcsched import solve
from hpcsched.checkpoint import Instance, Solution, bounds, store_all_peak, validate
from hpcsched.checkpoint.heuristics import recompute_all_sequence, segments_sequence
from hpcsched.checkpoint.simulate import peak as simulated_peak
from hpcsched.core.deadline import Deadline, TimeLimitReached
from hpcsched.core.result import Status


@functools.cache
def _chain(length: int, link: bool = False) -> Instance:
    """A random chain whose budget is the peak of Chen's √L segments (it fits, store-all does not)."""
    rng = np.random.default_rng(length)
    fw = rng.integers(1, 101, length).tolist()
    x = rng.integers(1, 101, length + 1).tolist()
    xbar = [None] + [2 * value for value in x[1:]]
    probe = Instance.create(fw, [2 * f for f in fw] + [1], x, xbar, 2**52, name=f"chain-{length}")
    step = max(1, round(length**0.5))
    chain = probe.with_memory(simulated_peak(probe, segments_sequence(length, list(range(0, length, step)))))
    assert chain.memory < store_all_peak(chain)
    return chain.with_link(bandwidth_out=20, bandwidth_in=20, latency=1) if link else chain


@pytest.mark.parametrize("method", ["chen", "dp"])
def test_the_bound_and_the_dp_stop_at_the_limit_on_a_long_chain(method):
    instance = _chain(1500)
    result, clock = solve_past_deadline(instance, method, reads=0, problem="checkpoint")
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert result.bound is not None and result.bound > instance.compute_time  # a recomputation bound, proven
    assert_stops_promptly(instance, result, clock)


def test_recompute_all_is_not_built_when_it_cannot_be_checked_in_time():
    instance = _chain(600)  # 181,501 operations: ~1.1 s to build and check, after the deadline
    result, clock = solve_past_deadline(instance, "recompute-all", reads=0, problem="checkpoint")
    assert result.status is Status.TIME_LIMIT_NO_SOLUTION
    assert "181501 operations" in result.notes[0]
    assert_stops_promptly(instance, result, clock)


def test_checkpoint_sequential_returns_its_best_count_when_cut():
    instance = _chain(50)
    instance = instance.with_memory(store_all_peak(instance))  # one segment (store-all) fits
    result, clock = solve_past_deadline(instance, "checkpoint-sequential", reads=5, problem="checkpoint")
    assert result.status is Status.OPTIMAL, result.notes
    assert "the best of 1..2" in result.notes[0]
    assert_stops_promptly(instance, result, clock)


def _lines_per_operation(instance: Instance, sequence: list[tuple[str, int]], check) -> float:
    solution = Solution(tuple(sequence))
    return count_lines(check, instance, solution) / len(sequence)


def _fall_recomputation(length: int) -> list[tuple[str, int]]:
    """F 0..L-1, B L, then before each B k the stages 0..k again with Fall: L productions of each xbar."""
    out = [("F", i) for i in range(length)] + [("B", length)]
    for k in range(length - 1, -1, -1):
        out += [("Fall", i) for i in range(k + 1)] + [("B", k)]
    return out


def test_the_validators_and_the_simulator_are_linear():
    """Python lines per operation do not grow with L (they grew as L: quadratic in all; from 40 to 160
    stages (400 for the simulator) the old code's went 1.7x, 2.5x and 3.2x up; here they stay within 5 %)."""
    two_level = [
        _lines_per_operation(_chain(n, link=True).with_memory(2**40), recompute_all_sequence(n), validate)
        for n in (40, 160)
    ]
    chain = [_lines_per_operation(_chain(n).with_memory(2**40), _fall_recomputation(n), validate) for n in (40, 160)]
    simulator = [
        count_lines(simulated_peak, _chain(n), [("Fall", i) for i in range(n)] + [("B", i) for i in range(n, -1, -1)])
        / (2 * n + 1)
        for n in (100, 400)
    ]
    for name, (small, large) in {"two-level": two_level, "chain": chain, "simulator": simulator}.items():
        assert large < 1.2 * small, f"{name}: {small:.1f} -> {large:.1f} lines per operation"


def test_h_revolve_level_zero_table_checks_the_deadline():
    from hpcsched.checkpoint.h_revolve import HRevolvePlan

    with deadline_after(0) as clock, pytest.raises(TimeLimitReached):
        HRevolvePlan(1, 1, 5, 5, gpu_slots=100, length=200, deadline=Deadline.after(1.0))
    assert clock.lines_after < 50_000, clock.lines_after


def test_dp_is_not_started_when_its_table_cannot_be_filled_in_time():
    """The clock stands still (the deadline never passes): the DP itself must see it has no time."""
    instance = _chain(200)
    with deadline_after(10**9):
        result = solve(instance, "dp", time_limit=0.01)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL), result.notes
    assert any("time limit too short for the DP" in note for note in result.notes), result.notes


def test_dp_refuses_a_table_over_the_memory_cap_before_allocating_it():
    from hpcsched.checkpoint.formulations.dp import DpTableTooLarge, persistent_dp
    from hpcsched.checkpoint.persistent.table import MAX_TABLE_BYTES

    instance = _chain(2000)  # (L+1)(L+2)/2 x 501 cells x 10 bytes = 10 GB
    with pytest.raises(DpTableTooLarge, match="GiB"):
        persistent_dp(instance, 500, Deadline(None))
    assert MAX_TABLE_BYTES < 2001 * 2002 // 2 * 501 * 10


def test_the_one_row_bounds_hold_below_the_lp(monkeypatch):
    """Without the LP (long chains, or no time left) the bound is weaker, never above the LP's."""
    for length in (5, 12, 40, 90):
        instance = _chain(length)
        with_lp = bounds.single_forward_lp(instance)
        monkeypatch.setattr(bounds, "_SOLVED", {})  # the LP solved just now is not asked again
        no_time = bounds.single_forward_lp(instance, Deadline.after(0.0))  # the deadline has passed: no LP
        monkeypatch.setattr(bounds, "LP_MAX_STAGES", 0)
        without = bounds.single_forward_lp(instance)
        monkeypatch.undo()
        assert bounds.compute_time(instance) <= without == no_time <= with_lp
        assert with_lp <= solve(instance, "dp", time_limit=30).objective


def test_the_copies_of_a_sequence_are_found_in_linear_time():
    """offload-greedy and offload-dp find which copy each operation reads (`value_copies`) before their
    first deadline check: by scanning every copy that was quadratic (5,000 stages: 5 s of CPU past a 1 s
    limit). Python lines per operation do not grow with L (the old code's went 3.7x up from 100 to 400)."""
    from hpcsched.checkpoint.model import store_all_sequence
    from hpcsched.checkpoint.offload_bridges import value_copies

    per_operation = [count_lines(value_copies, n, tuple(store_all_sequence(n))) / (2 * n + 1) for n in (100, 400)]
    assert per_operation[1] < 1.2 * per_operation[0], per_operation


def test_offload_greedy_stops_at_the_limit_on_a_long_chain():
    instance = _chain(600, link=True)  # the old code ran 1.4 M lines before its first check
    result, clock = solve_past_deadline(instance, "offload-greedy", reads=0, problem="checkpoint")
    assert result.status is Status.TIME_LIMIT_NO_SOLUTION, result.notes
    assert_stops_promptly(instance, result, clock)
