"""`brute-force-offload`: the exhaustive timed search of kind chain-offload against `cpsat-offload` and the remat search."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hpcsched
from hpcsched.checkpoint import Instance, memory_lower_bound
from hpcsched.checkpoint.formulations import BruteForceOffloadParams, shortest_sequence
from hpcsched.checkpoint.model import offload_memory_lower_bound_with_reason, store_all_peak
from hpcsched.core.errors import InvalidInstanceError, OptionError
from hpcsched.core.result import Status

from .test_two_levels import PROOF, small_offload_instance

PROVEN = (Status.OPTIMAL, Status.INFEASIBLE)


@st.composite
def small_two_level_chains(draw, max_length: int = 2, max_time: int = 3, max_size: int = 3):
    """Chains with a host link in every mode, at a budget between the two-level floor and the store-all peak."""
    L = draw(st.integers(1, max_length))
    times = st.integers(1, max_time)
    fw = draw(st.lists(times, min_size=L, max_size=L))
    bw = draw(st.lists(times, min_size=L + 1, max_size=L + 1))
    x = draw(st.lists(st.integers(1, max_size), min_size=L + 1, max_size=L + 1))
    extra = draw(st.lists(st.integers(0, 1), min_size=L, max_size=L))
    ftmp = draw(st.lists(st.integers(0, 1), min_size=L, max_size=L))
    btmp = draw(st.lists(st.integers(0, 1), min_size=L + 1, max_size=L + 1))
    probe = Instance.create(fw, bw, x, [None] + [x[i + 1] + extra[i] for i in range(L)], 10**6, ftmp=ftmp, btmp=btmp)
    bandwidth = st.sampled_from([None, 1, 2, 4])
    probe = probe.with_link(
        bandwidth_out=draw(bandwidth),
        bandwidth_in=draw(bandwidth),
        latency=draw(st.integers(0, 1)),
        duplex=draw(st.sampled_from(["full", "half"])),
    )
    low, high = offload_memory_lower_bound_with_reason(probe)[0], store_all_peak(probe)
    return probe.with_memory(draw(st.integers(low, max(low, high))), name=f"two-level-L{L}")


def _equals_cpsat_offload_and_greedy_is_never_below(instance):
    exhaustive = hpcsched.solve(instance, "brute-force-offload", time_limit=600)
    exact = hpcsched.solve(instance, "cpsat-offload", time_limit=600, **PROOF)
    assert exhaustive.status in PROVEN, exhaustive.notes
    if exact.status in PROVEN:  # cpsat-offload is NOT_APPLICABLE when its horizon is unknown or too long
        assert exact.status is exhaustive.status, (exact.notes, exhaustive.notes)
        assert exact.objective == exhaustive.objective
    if exhaustive.status is Status.OPTIMAL:
        assert exhaustive.bound == exhaustive.objective
        greedy = hpcsched.solve(instance, "offload-greedy", time_limit=60)
        if greedy.objective is not None:
            assert greedy.objective >= exhaustive.objective


@settings(max_examples=20, deadline=None)
@given(small_two_level_chains())
def test_equals_cpsat_offload_and_greedy_is_never_below(instance):
    _equals_cpsat_offload_and_greedy_is_never_below(instance)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(small_two_level_chains())
def test_equals_cpsat_offload_and_greedy_is_never_below_on_more_chains(instance):
    _equals_cpsat_offload_and_greedy_is_never_below(instance)


# seed 6, three stages: a 1.3 s search (three and four stages are compared by default on the four-stage chains)
@pytest.mark.parametrize("seed", [0, pytest.param(6, marks=pytest.mark.slow), 9, 10, 11])
def test_equals_cpsat_offload_on_seeded_chains_up_to_three_stages(seed):
    instance = small_offload_instance(seed, max_length=3)
    exhaustive = hpcsched.solve(instance, "brute-force-offload", time_limit=600)
    exact = hpcsched.solve(instance, "cpsat-offload", time_limit=600, **PROOF)
    assert exhaustive.status is Status.OPTIMAL and exact.status is Status.OPTIMAL
    assert exhaustive.objective == exact.objective


def four_stage_chain(seed: int) -> Instance:
    """Four stages, times 1-2, sizes 1-3, a link of 2 bytes per time unit each way."""
    rng = random.Random(seed)
    fw, bw = [rng.randint(1, 2) for _ in range(4)], [rng.randint(1, 2) for _ in range(5)]
    x = [rng.randint(1, 3) for _ in range(5)]
    xbar = [None] + [x[i] + rng.randint(0, 1) for i in range(1, 5)]
    probe = Instance.create(fw, bw, x, xbar, 10**6).with_link(bandwidth_out=2, bandwidth_in=2)
    low, high = offload_memory_lower_bound_with_reason(probe)[0], store_all_peak(probe)
    return probe.with_memory(rng.randint(low, high), name=f"four-stages-{seed}")


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5])
def test_equals_cpsat_offload_on_four_stage_chains(seed):
    instance = four_stage_chain(seed)
    exhaustive = hpcsched.solve(instance, "brute-force-offload", time_limit=600)
    exact = hpcsched.solve(instance, "cpsat-offload", time_limit=600, **PROOF)
    assert exhaustive.status is Status.OPTIMAL and exact.status is Status.OPTIMAL
    assert exhaustive.objective == exact.objective


@settings(max_examples=25, deadline=None)
@given(small_two_level_chains(max_length=3, max_time=2))
def test_with_an_unusable_link_it_equals_the_remat_search(instance):
    """Latency 10^6: no transfer ends within any useful schedule, so the optimum is the remat one (another search)."""
    try:
        chain = instance.as_chain()
    except InvalidInstanceError:
        return  # below the remat-only floor: only schedules of ~10^6 time units exist, too long to search
    remat = shortest_sequence(chain)
    if remat is None:
        return
    slow = instance.with_link(bandwidth_out=None, bandwidth_in=None, latency=10**6)
    result = hpcsched.solve(slow, "brute-force-offload", time_limit=600)
    assert result.status is Status.OPTIMAL and result.objective == remat[0]
    assert not any(name in ("Off", "Pre", "Offall", "Preall") for name, _ in result.solution.sequence)


def test_offloading_beats_remat_where_the_link_is_fast():
    """Below the remat-only floor only offloading fits; the search finds a schedule there."""
    chain = Instance.create([2] * 2, [2] * 3, [2] * 3, [None] + [2] * 2, 10**6)
    two = chain.with_link(bandwidth_out=2, bandwidth_in=2)
    instance = two.with_memory(offload_memory_lower_bound_with_reason(two)[0])
    assert instance.memory < memory_lower_bound(chain)  # 8 < 10: no remat sequence fits
    result = hpcsched.solve(instance, "brute-force-offload", time_limit=600)
    assert result.status is Status.OPTIMAL
    assert any(name in ("Off", "Offall") for name, _ in result.solution.sequence)


def test_outside_its_class_and_under_its_budget():
    chain = Instance.create([1, 1], [1, 1, 1], [1, 1, 1], [None, 1, 1], 10)
    assert hpcsched.solve(chain, "brute-force-offload", time_limit=10).status is Status.NOT_APPLICABLE
    long = small_offload_instance(5, max_length=3)  # L = 3
    assert hpcsched.solve(long, "brute-force-offload", time_limit=10, max_stages=2).status is Status.NOT_APPLICABLE
    stopped = hpcsched.solve(long, "brute-force-offload", time_limit=60, max_states=1)
    assert stopped.status is Status.TIME_LIMIT_NO_SOLUTION and stopped.bound is None


@pytest.mark.parametrize("options", [{"max_stages": 0}, {"max_states": 0}])
def test_params_are_checked(options):
    with pytest.raises(OptionError):
        BruteForceOffloadParams(**options)
