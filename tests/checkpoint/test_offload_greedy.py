"""The two-level heuristic `offload-greedy`: valid, never below the bound, never below the exact optimum."""

from __future__ import annotations

import random

import pytest

import hpcsched
from hpcsched.checkpoint import Instance
from hpcsched.checkpoint.bounds import best as best_bound
from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason, store_all_peak
from hpcsched.checkpoint.offload_greedy import OffloadGreedyParams
from hpcsched.core.errors import OptionError
from hpcsched.core.result import Status

from .test_two_levels import PROOF, small_offload_instance


@pytest.mark.parametrize("seed", range(12))
def test_never_below_the_cpsat_offload_optimum(seed):
    instance = small_offload_instance(seed, max_length=3)
    greedy = hpcsched.solve(instance, method="offload-greedy", time_limit=60)
    exact = hpcsched.solve(instance, method="cpsat-offload", time_limit=600, **PROOF)
    # below the remat-only floor the greedy's schedule gives cpsat-offload its proven horizon
    assert exact.status is Status.OPTIMAL
    assert greedy.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert exact.objective <= greedy.objective
    assert greedy.objective >= best_bound(instance)


def random_two_level(seed: int) -> Instance:
    rng = random.Random(seed)
    L = rng.randint(1, 9)
    fw = [rng.randint(1, 9) for _ in range(L)]
    bw = [rng.randint(1, 9) for _ in range(L + 1)]
    x = [rng.randint(1, 9) for _ in range(L + 1)]
    xbar = [None] + [x[i] + rng.randint(0, 4) for i in range(1, L + 1)]
    probe = Instance.create(
        fw,
        bw,
        x,
        xbar,
        10**6,
        ftmp=[rng.randint(0, 2) for _ in range(L)],
        btmp=[rng.randint(0, 2) for _ in range(L + 1)],
    )
    probe = probe.with_link(
        bandwidth_out=rng.choice([None, 1, 3]),
        bandwidth_in=rng.choice([None, 1, 3]),
        latency=rng.randint(0, 2),
        duplex=rng.choice(["full", "half"]),
    )
    low, high = offload_memory_lower_bound_with_reason(probe)[0], store_all_peak(probe)
    return probe.with_memory(rng.randint(low, max(low, high)), name=f"random-two-level-{seed}")


@pytest.mark.parametrize(
    "seeds", [range(30), pytest.param(range(30, 60), marks=pytest.mark.slow)], ids=["0-29", "30-59"]
)
def test_valid_on_random_chains_with_every_link_mode(seeds):
    """Every answer passes the definition (the registry validates: an invalid one would be ERROR).

    Seeds 0-29 (1.5 s: 15 FEASIBLE, 15 OPTIMAL) by default, 30-59 in the slow suite.
    """
    statuses = set()
    for seed in seeds:
        instance = random_two_level(seed)
        result = hpcsched.solve(instance, method="offload-greedy", time_limit=60)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.NOT_APPLICABLE), (seed, result.notes)
        if result.objective is not None:
            assert result.objective >= best_bound(instance)
        statuses.add(result.status)
    assert Status.FEASIBLE in statuses and Status.OPTIMAL in statuses


def test_offloading_fits_below_the_remat_floor_with_a_fast_link():
    """Five stages whose activations all fit only on the host: no remat sequence fits, the link hides all."""
    chain = Instance.create([10] * 5, [10] * 6, [4] * 6, [None] + [4] * 5, 10**6)
    two = chain.with_link(bandwidth_out=1, bandwidth_in=1)
    floor = offload_memory_lower_bound_with_reason(two)[0]
    instance = two.with_memory(floor)
    assert hpcsched.solve(instance, method="dp", time_limit=60).status is Status.NOT_APPLICABLE
    result = hpcsched.solve(instance, method="offload-greedy", time_limit=60)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert any(name in ("Offall", "Off") for name, _ in result.solution.sequence)


def test_without_a_link_budget_it_matches_remat_only():
    """At the store-all peak no transfer is needed: Σfw + Σbw, OPTIMAL."""
    instance = small_offload_instance(3)
    instance = instance.with_memory(store_all_peak(instance))
    result = hpcsched.solve(instance, method="offload-greedy", time_limit=60)
    assert result.status is Status.OPTIMAL and result.objective == instance.compute_time


def test_expired_time_limit_returns_promptly():
    instance = small_offload_instance(5)
    result = hpcsched.solve(instance, method="offload-greedy", time_limit=1e-9)
    assert result.status is Status.TIME_LIMIT_NO_SOLUTION


def test_chain_kind_is_not_applicable():
    chain = Instance.create([1, 1], [1, 1, 1], [1, 1, 1], [None, 1, 1], 10)
    assert hpcsched.solve(chain, method="offload-greedy", time_limit=10).status is Status.NOT_APPLICABLE


@pytest.mark.parametrize("options", [{"budgets": 0}, {"slots": 0}, {"max_bridges": -1}])
def test_params_are_checked(options):
    with pytest.raises(OptionError):
        OffloadGreedyParams(**options)


def test_offload_only_recomputes_nothing_and_is_never_better_than_both():
    for seed in range(8):
        instance = random_two_level(seed)
        only = hpcsched.solve(instance, method="offload-greedy", time_limit=60, recompute=False)
        both = hpcsched.solve(instance, method="offload-greedy", time_limit=60)
        if only.solution is None:
            continue
        assert only.kpis["recomputation_time"] == 0
        assert not any(name == "F" for name, _ in only.solution.sequence)
        assert both.objective <= only.objective
