"""The exact checkpoint methods and `dp` honour their time limit in every phase, and `cpsat` checks size first.

Each case overran by far more than `SLACK` before (times measured unloaded on the 2-core machine, old code):
`cpsat` L = 34 at -t 0.5 made every held literal before its first deadline check (2.9 s); `dp` ran its
baselines outside the deadline (checkpoint_sequential: 2.3 s at L = 300, more at 400); `cpsat-offload` ran rotor's
DP without a deadline to learn a horizon it then refused (4.4 s at -t 0.5); `brute-force-offload` checked the
deadline every 4096 expansions (4.6 s at -t 1 on 20 homogeneous stages).
"""

from __future__ import annotations

import pytest
from timed import SLACK, timed_solve

from hpcsched.checkpoint import bounds, model
from hpcsched.checkpoint.formulations.cpsat import CpsatParams, _SlotModel, cpsat, model_variables
from hpcsched.checkpoint.generate import generate_homogeneous, generate_random
from hpcsched.checkpoint.model.two_levels import validate_two_levels
from hpcsched.checkpoint.simulate import total_time
from hpcsched.core.deadline import Deadline
from hpcsched.core.result import Status


def _check_remat_answer(instance, result) -> None:
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert model.validate(instance, result.solution) == []
        assert result.bound is not None and result.bound <= total_time(instance, result.solution.sequence)


def test_cpsat_checks_the_deadline_while_making_its_literals() -> None:
    instance = generate_random(seed=0, n=34, budget=0.5)  # 1.8 M variables: under the default max_variables
    result, wall = timed_solve(instance, "cpsat", time_limit=0.5, max_stages=34)
    assert wall < 0.5 + SLACK, (wall, result.notes)
    _check_remat_answer(instance, result)
    assert result.solution is not None, "the cheap baselines run first: a cut build still has an answer"


def test_cpsat_refuses_a_model_over_max_variables_before_building() -> None:
    instance = generate_random(seed=0, n=12, budget=0.5)
    result, wall = timed_solve(instance, "cpsat", time_limit=30.0, max_stages=12, max_variables=10_000)
    assert result.status is Status.NOT_APPLICABLE
    assert any("max_variables" in note for note in result.notes), result.notes
    assert wall < SLACK


def test_the_default_cap_refuses_long_chains_at_once() -> None:
    # before: L = 60 took 47 s and 4.7 GB, L = 300 never returned; 9.6e9 variables now refused without work
    instance = generate_random(seed=0, n=300, budget=0.5)
    result, wall = timed_solve(instance, "cpsat", time_limit=30.0, max_stages=300)
    assert result.status is Status.NOT_APPLICABLE
    assert wall < SLACK


@pytest.mark.parametrize("length", [3, 5])
def test_model_variables_counts_the_built_model(length: int) -> None:
    instance = generate_random(seed=1, n=length, budget=0.6)
    built = _SlotModel(instance, Deadline(None)).build()
    assert model_variables(length) == len(built.model.proto.variables)


@pytest.mark.parametrize("length", [6, 10])
def test_cpsat_bound_is_at_least_the_cheap_bound(length: int) -> None:
    """CP-SAT stopped after a sliver of deterministic time proves little; the instance's bound is still proven
    (before: bound 0.0 with TIME_LIMIT_NO_SOLUTION)."""
    instance = generate_random(seed=0, n=length, budget=0.5)
    params = CpsatParams(max_stages=length, deterministic_time=0.01)
    result = cpsat(instance, time_limit=30.0, seed=0, params=params)
    assert result.bound is not None and result.bound >= bounds.best(instance), (result.bound, result.status)
    _check_remat_answer(instance, result)


def test_dp_runs_its_baselines_under_the_deadline() -> None:
    instance = generate_homogeneous(seed=0, n=400, budget=0.5)
    result, wall = timed_solve(instance, "dp", time_limit=0.5)
    assert wall < 0.5 + SLACK, (wall, result.notes)
    assert result.status is Status.FEASIBLE, result.notes
    _check_remat_answer(instance, result)


def test_cpsat_offload_refuses_a_long_horizon_without_searching_for_one() -> None:
    chain = generate_random(seed=0, n=300, budget=0.5).with_link(bandwidth_out=20, bandwidth_in=20, latency=1)
    result, wall = timed_solve(chain, "cpsat-offload", time_limit=0.5)
    assert result.status is Status.NOT_APPLICABLE, result.notes
    assert any("max_horizon" in note for note in result.notes), result.notes
    assert wall < 0.5 + SLACK, (wall, result.notes)


def test_brute_force_offload_checks_the_deadline_in_its_search() -> None:
    chain = generate_homogeneous(seed=0, n=20, budget=0.5).with_link(bandwidth_out=20, bandwidth_in=20, latency=1)
    result, wall = timed_solve(chain, "brute-force-offload", time_limit=1.0, max_stages=20)
    assert wall < 1.0 + SLACK, (wall, result.notes)
    assert result.status in (Status.OPTIMAL, Status.TIME_LIMIT_NO_SOLUTION), result.notes
    if result.solution is not None:
        assert validate_two_levels(chain, result.solution) == []
