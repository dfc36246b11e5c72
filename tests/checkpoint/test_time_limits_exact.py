"""The exact checkpoint methods and `dp` honour their time limit in every phase, and `cpsat` checks size first.

What overran before (wall times measured unloaded on the 2-core machine, old code): `cpsat` L = 34 at -t 0.5
made every held literal before its first deadline check (2.9 s); `dp` ran its baselines outside the deadline
(checkpoint_sequential: 2.3 s at L = 300, more at 400); `cpsat-offload` ran rotor's DP without a deadline to
learn a horizon it then refused (4.4 s at -t 0.5); `brute-force-offload` checked the deadline every 4096
expansions (4.6 s at -t 1 on 20 homogeneous stages).

No wall clock (tests/workclock.py): the deadline passes after a chosen number of deadline-clock readings and
the Python lines run after it are counted (`assert_stops_promptly`). A refusal needs no deadline at all: the
clock stands still and the whole solve, registry included, must answer within `REFUSAL_LINES` lines (it runs
580 to 2,300; building the refused model or searching for a horizon runs far more).
"""

from __future__ import annotations

import pytest
from workclock import WorkBudgetExceeded, assert_stops_promptly, count_lines, deadline_after, solve_past_deadline

from hpcsched import Result, solve
from hpcsched.checkpoint import bounds, model
from hpcsched.checkpoint.formulations.cpsat import CpsatParams, _SlotModel, cpsat, model_variables
from hpcsched.checkpoint.formulations.offload_search import OffloadSearch
from hpcsched.checkpoint.generate import generate_homogeneous, generate_random
from hpcsched.checkpoint.heuristics import recompute_all
from hpcsched.checkpoint.simulate import total_time
from hpcsched.core.deadline import Deadline
from hpcsched.core.result import Status

#: Python lines a refusal may run, the registry's own included (measured: 580 to 2,300).
REFUSAL_LINES = 5_000

#: Python lines brute-force-offload's search runs before its deadline passes (4 expansions of ~5,000 lines).
SEARCH_LINES = 20_000


def _check_remat_answer(instance, result) -> None:
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert model.validate(instance, result.solution) == []
        assert result.bound is not None and result.bound <= total_time(instance, result.solution.sequence)


def _refusal(instance, method: str, **options) -> Result:
    """``solve`` with a clock that stands still, failed at its ``REFUSAL_LINES + 1``-th Python line."""
    with deadline_after(lines=REFUSAL_LINES, budget=0) as clock:
        try:
            return solve(instance, method, **options)
        except WorkBudgetExceeded:
            where = clock.exceeded_at
            pytest.fail(f"{method} ran {REFUSAL_LINES} Python lines without refusing, on at {where}", pytrace=False)


@pytest.mark.parametrize("reads", [0, 5, 20, 100])
def test_cpsat_checks_the_deadline_while_making_its_literals(reads: int) -> None:
    """The deadline passes at reads 0 and 5 in the cheap baselines, at 20 in checkpoint_sequential, at 100 at the
    model's 50th slot (the build reads the clock once per slot, from the 51st reading): 7,000 to 51,000 lines
    after it, where the old build made the held literals of all 14,910 slots (10^6) before its first check."""
    instance = generate_random(seed=0, n=34, budget=0.5)  # 1.8 M variables: under the default max_variables
    result, clock = solve_past_deadline(instance, "cpsat", reads=reads, time_limit=0.5, max_stages=34, budget=2_000_000)
    _check_remat_answer(instance, result)
    assert result.solution is not None, "the cheap baselines run first: a cut build still has an answer"
    assert_stops_promptly(instance, result, clock)


def test_cpsat_refuses_a_model_over_max_variables_before_building() -> None:
    instance = generate_random(seed=0, n=12, budget=0.5)
    result = _refusal(instance, "cpsat", time_limit=30.0, max_stages=12, max_variables=10_000)
    assert result.status is Status.NOT_APPLICABLE
    assert any("max_variables" in note for note in result.notes), result.notes


def test_the_default_cap_refuses_long_chains_at_once() -> None:
    # before: L = 60 took 47 s and 4.7 GB, L = 300 never returned; 9.6e9 variables now refused without work
    instance = generate_random(seed=0, n=300, budget=0.5)
    result = _refusal(instance, "cpsat", time_limit=30.0, max_stages=300)
    assert result.status is Status.NOT_APPLICABLE
    assert any("max_variables" in note for note in result.notes), result.notes


@pytest.mark.parametrize("length", [3, 5])
def test_model_variables_counts_the_built_model(length: int) -> None:
    instance = generate_random(seed=1, n=length, budget=0.6)
    built = _SlotModel(instance, Deadline(None)).build()
    assert model_variables(length) == len(built.model.proto.variables)


@pytest.mark.parametrize("length", [6, 8])
def test_cpsat_bound_is_at_least_the_cheap_bound(length: int) -> None:
    """CP-SAT stopped after a sliver of deterministic time proves little; the instance's bound is still proven
    (before: bound 0.0 with TIME_LIMIT_NO_SOLUTION)."""
    instance = generate_random(seed=0, n=length, budget=0.5)
    params = CpsatParams(max_stages=length, deterministic_time=0.01)
    result = cpsat(instance, time_limit=30.0, seed=0, params=params)
    assert result.bound is not None and result.bound >= bounds.best(instance), (result.bound, result.status)
    _check_remat_answer(instance, result)


@pytest.fixture(scope="module")
def dp_chain():
    # 200 stages: the old baselines, run whatever the deadline, do 3-4 M lines on it (the limit allows ~0.3-1.1 M)
    return generate_homogeneous(seed=0, n=200, budget=0.5)


@pytest.mark.parametrize("reads", [0, 10, 20])
def test_dp_runs_its_baselines_under_the_deadline(dp_chain, reads: int) -> None:
    """The deadline passes at reads 0 before the baselines (store-all and chen still run until one fits M), at 10
    inside recompute-all (it has found that its sequence can be checked in the time left, and finishes it), at 20
    inside checkpoint_sequential. That one recompute-all run is allowed (``plus``), counted past its own deadline."""
    result, clock = solve_past_deadline(dp_chain, "dp", reads=reads, time_limit=0.5, budget=5_000_000)
    assert result.status is Status.FEASIBLE, result.notes
    _check_remat_answer(dp_chain, result)
    fallback = 0
    if reads == 10:
        fallback = count_lines(lambda: recompute_all(dp_chain, time_limit=0.0, seed=0, params=None))
    assert_stops_promptly(dp_chain, result, clock, plus=fallback)


def test_cpsat_offload_refuses_a_long_horizon_without_searching_for_one() -> None:
    chain = generate_random(seed=0, n=300, budget=0.5).with_link(bandwidth_out=20, bandwidth_in=20, latency=1)
    result = _refusal(chain, "cpsat-offload", time_limit=0.5)
    assert result.status is Status.NOT_APPLICABLE, result.notes
    assert any("max_horizon" in note for note in result.notes), result.notes


def test_brute_force_offload_checks_the_deadline_in_its_search(monkeypatch) -> None:
    """The deadline passes once the search has run `SEARCH_LINES` Python lines, in the middle of its work as a
    wall clock would (a deadline passing at a clock reading cannot catch a search that reads it only every 4096
    expansions); the upper bound's DP and greedy run before it with the clock standing still."""
    chain = generate_homogeneous(seed=0, n=12, budget=0.5).with_link(bandwidth_out=20, bandwidth_in=20, latency=1)
    run, clocks = OffloadSearch.run, []

    def run_under_a_work_clock(search):
        with deadline_after(lines=SEARCH_LINES, budget=2_000_000) as clock:
            clocks.append(clock)
            return run(search)

    monkeypatch.setattr(OffloadSearch, "run", run_under_a_work_clock)
    with deadline_after(10**9):
        try:
            result = solve(chain, "brute-force-offload", time_limit=1.0, max_stages=12)
        except WorkBudgetExceeded as exceeded:
            pytest.fail(f"brute-force-offload: {exceeded}", pytrace=False)
    assert result.status is Status.TIME_LIMIT_NO_SOLUTION, result.notes
    assert "searching the timed schedules" in result.notes[0], result.notes
    assert_stops_promptly(chain, result, clocks[0])
