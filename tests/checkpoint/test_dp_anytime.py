"""The default `dp` under a budget: the baseline incumbent when the DP is cut short (issue 23)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpcsched.checkpoint import generate_random, heuristics, model
from hpcsched.checkpoint.formulations.dp import DpParams, dp
from hpcsched.checkpoint.formulations.incumbent import baseline_incumbent
from hpcsched.checkpoint.simulate import total_time
from hpcsched.core.io import read_instance
from hpcsched.core.result import Status

INSTANCES = Path(__file__).resolve().parents[2] / "instances" / "checkpoint"


@pytest.mark.parametrize("seed", range(5))
def test_table_cap_returns_the_fastest_baseline_as_feasible(seed: int) -> None:
    instance = generate_random(seed=seed, n=12, budget=0.6)
    result = dp(instance, time_limit=60.0, seed=0, params=DpParams(max_cells=1))
    baselines = [
        heuristics.checkpoint_sequential(instance, time_limit=1.0, seed=0, params=None),
        heuristics.chen(instance, time_limit=1.0, seed=0, params=None),
        heuristics.recompute_all(instance, time_limit=1.0, seed=0, params=None),
    ]
    times = [total_time(instance, r.solution.sequence) for r in baselines if r.solution is not None]
    assert times, "recompute-all fits every instance the generator makes"
    assert result.status is Status.FEASIBLE  # never OPTIMAL: the DP did not run
    assert result.solution is not None
    assert model.validate(instance, result.solution) == []
    assert total_time(instance, result.solution.sequence) <= min(times)
    assert result.bound is not None and result.bound <= total_time(instance, result.solution.sequence)
    assert any("did not finish" in note for note in result.notes)


def test_expired_deadline_returns_the_incumbent_not_a_time_limit_failure() -> None:
    instance = generate_random(seed=3, n=15, budget=0.5)
    result = dp(instance, time_limit=0.0, seed=0, params=None)  # Deadline.after(0) is already expired
    assert result.status is Status.FEASIBLE
    assert result.solution is not None and model.validate(instance, result.solution) == []


def test_uncapped_dp_is_unchanged_when_it_finishes() -> None:
    instance = generate_random(seed=1, n=10, budget=0.5)
    capped = dp(instance, time_limit=60.0, seed=0, params=DpParams(max_cells=10**9))
    plain = dp(instance, time_limit=60.0, seed=0, params=None)
    assert capped.solution == plain.solution and capped.status is plain.status


def test_resnet50_b30_with_a_tiny_table_cap_answers() -> None:
    instance = read_instance(INSTANCES / "resnet50-b30.json")
    result = dp(instance, time_limit=60.0, seed=0, params=DpParams(max_cells=1))
    assert result.status is Status.FEASIBLE
    assert result.solution is not None and model.validate(instance, result.solution) == []


def test_incumbent_is_never_worse_than_the_dp_answer() -> None:
    for seed in range(4):
        instance = generate_random(seed=seed, n=10, budget=0.45)
        result = dp(instance, time_limit=60.0, seed=0, params=None)
        incumbent = baseline_incumbent(instance)
        if result.solution is not None and incumbent is not None:
            assert total_time(instance, result.solution.sequence) <= incumbent.time
