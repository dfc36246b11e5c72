"""`offload-dp` (our persistent DP with offloads): valid, never below the two-level optimum, never worse than remat."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import hpcsched
from hpcsched.checkpoint import Instance
from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason, store_all_peak
from hpcsched.checkpoint.offload_dp import OffloadDpParams, offload_plan, plan_bridges
from hpcsched.core.deadline import Deadline
from hpcsched.core.errors import OptionError
from hpcsched.core.result import Status

from .checkpoint_strategies import small_chains
from .test_brute_force_offload import small_two_level_chains
from .test_offload_greedy import random_two_level
from .test_two_levels import small_offload_instance

TRANSFERS = ("Off", "Pre", "Offall", "Preall")


def _never_below_the_brute_force_offload_optimum(instance):
    heuristic = hpcsched.solve(instance, "offload-dp", time_limit=60)
    assert heuristic.status is not Status.ERROR, heuristic.notes  # the registry validated the schedule
    exhaustive = hpcsched.solve(instance, "brute-force-offload", time_limit=600, max_states=500_000)
    if exhaustive.status is Status.OPTIMAL and heuristic.objective is not None:
        assert heuristic.objective >= exhaustive.objective
    if exhaustive.status is Status.INFEASIBLE:
        assert heuristic.solution is None


@settings(max_examples=15, deadline=None)
@given(small_two_level_chains(max_length=2, max_time=3, max_size=3))
def test_never_below_the_brute_force_offload_optimum(instance):
    """Up to two stages, where the exhaustive search takes under 0.5 s; three: the seeded chains below, and slow."""
    _never_below_the_brute_force_offload_optimum(instance)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(small_two_level_chains(max_length=3, max_time=3, max_size=3))
def test_never_below_the_brute_force_offload_optimum_on_three_stages(instance):
    """Three stages at times up to 3: the exhaustive search takes up to 20 s on one example."""
    _never_below_the_brute_force_offload_optimum(instance)


@pytest.mark.parametrize("seed", [*range(5), pytest.param(5, marks=pytest.mark.slow), *range(6, 12)])
def test_valid_and_never_below_the_optimum_on_seeded_chains(seed):
    instance = small_offload_instance(seed, max_length=3)
    heuristic = hpcsched.solve(instance, "offload-dp", time_limit=60)
    exhaustive = hpcsched.solve(instance, "brute-force-offload", time_limit=600)
    assert exhaustive.status is Status.OPTIMAL
    assert heuristic.status in (Status.OPTIMAL, Status.FEASIBLE), heuristic.notes
    assert heuristic.objective >= exhaustive.objective
    assert heuristic.bound <= heuristic.objective


@settings(max_examples=30, deadline=None)
@given(small_chains(max_length=5, max_size=4))
def test_with_an_unusable_link_it_is_remat_dp_or_better(chain):
    positive = Instance.create(
        [max(1, v) for v in chain.fw],
        [max(1, v) for v in chain.bw],
        list(chain.x),
        [None, *chain.xbar[1:]],
        chain.memory,
        ftmp=list(chain.ftmp),
        btmp=list(chain.btmp),
    )
    unusable = positive.with_link(bandwidth_out=1, bandwidth_in=1, latency=10**6)
    remat = hpcsched.solve(unusable, "dp", time_limit=60)
    heuristic = hpcsched.solve(unusable, "offload-dp", time_limit=60)
    assert remat.objective is not None  # the budget is at or above the remat floor
    assert heuristic.objective is not None and heuristic.objective <= remat.objective
    # no transfer can end before the makespan it would save: the DP itself offloads nothing
    assert not any(name in TRANSFERS for name, _ in heuristic.solution.sequence)
    without_candidate = hpcsched.solve(unusable, "offload-dp", time_limit=60, remat_candidate=False)
    assert without_candidate.objective is not None
    assert not any(name in TRANSFERS for name, _ in without_candidate.solution.sequence)


def test_below_the_remat_floor_the_dp_itself_offloads():
    """Seed 0's chain: remat alone does not fit M, so the answer can only be the DP's schedule with transfers."""
    instance = small_offload_instance(0, max_length=3)
    assert hpcsched.solve(instance, "dp", time_limit=60).solution is None
    result = hpcsched.solve(instance, "offload-dp", time_limit=60, remat_candidate=False)
    assert result.status is Status.FEASIBLE
    assert any(name in TRANSFERS for name, _ in result.solution.sequence)
    plan, _, _ = offload_plan(instance, 200, Deadline(None))
    assert plan is not None and plan.gaps
    # every offloaded gap is one copy's gap between two consecutive uses, and the first bridge of a copy writes it
    bridges = plan_bridges(instance, plan, "serial")
    assert len(bridges) == len(plan.gaps)
    for bridge in bridges:
        earliest = min(b.opens for b in bridges if b.copy == bridge.copy)
        assert bridge.offload or bridge.opens > earliest


def test_answers_random_chains_with_every_link_mode():
    """60 random chains (L <= 9, all link modes): every answer valid (the registry would say ERROR)."""
    answered = 0
    for seed in range(60):
        instance = random_two_level(seed)
        result = hpcsched.solve(instance, "offload-dp", time_limit=60)
        assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.NOT_APPLICABLE), result.notes
        assert result.status is not Status.OPTIMAL or result.objective == result.bound
        answered += result.solution is not None
    assert answered >= 55


def test_a_cut_dp_still_answers_with_the_remat_baseline():
    """A 1 ns time limit cuts the table at once; the remat dp's baseline incumbent is returned, FEASIBLE."""
    instance = random_two_level(11)
    assert store_all_peak(instance) > instance.memory >= offload_memory_lower_bound_with_reason(instance)[0]
    result = hpcsched.solve(instance, "offload-dp", time_limit=1e-9)
    assert result.status is Status.FEASIBLE
    assert any(note.startswith("the time limit cut the DP") for note in result.notes), result.notes
    assert result.notes[-1] == "kept: remat-only dp's sequence"


def test_not_applicable_for_a_chain_and_options_are_checked():
    chain = small_offload_instance(3).as_chain()
    assert hpcsched.solve(chain, "offload-dp", time_limit=10).status is Status.NOT_APPLICABLE
    with pytest.raises(OptionError):
        hpcsched.solve(small_offload_instance(3), "offload-dp", time_limit=10, slots=0)
    assert OffloadDpParams().slots == 200


def test_a_plan_that_no_timing_fits_is_repaired_by_adding_offloads():
    """On gnmt-pcie3-b70 the DP's plan (sizes to the nearest slot) exceeds M in each of its timings; the bridge
    loop of offload-greedy, started from the plan's offloads, adds offloads until the schedule fits."""
    from pathlib import Path

    from hpcsched.checkpoint.model.two_levels import evaluate_two_levels, validate_two_levels
    from hpcsched.checkpoint.offload_bridges import timed_schedule, value_copies
    from hpcsched.checkpoint.offload_dp import _repaired

    instance = hpcsched.read_instance(Path(__file__).parents[2] / "instances/checkpoint/gnmt-pcie3-b70.json")
    plan, _, _ = offload_plan(instance, 200, Deadline(None), "segment", "nearest")
    assert plan is not None
    copies = value_copies(instance.length, plan.sequence)
    for timing in ("dp", "serial", "late"):
        solution, _ = timed_schedule(instance, plan.sequence, copies, plan_bridges(instance, plan, timing))
        assert validate_two_levels(instance, solution), timing  # the plan alone exceeds M
    found: list = []
    _repaired(instance, plan, Deadline(None), "segment", found)
    assert found
    plan_offloads = sum(1 for bridge in plan_bridges(instance, plan) if bridge.offload)
    for makespan, solution, label in found:
        assert validate_two_levels(instance, solution) == [], label
        assert makespan == evaluate_two_levels(instance, solution)["makespan"]
        assert sum(1 for name, _ in solution.sequence if name in ("Off", "Offall")) >= plan_offloads
