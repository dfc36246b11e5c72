"""The stage DP (PipeDream's) against brute force over every cut, with and without memory."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.pipeline.partition_stages import brute_force_partition, partition


@st.composite
def chains(draw):
    layers = draw(st.integers(1, 9))
    compute = draw(st.lists(st.integers(0, 20), min_size=layers, max_size=layers))
    transfer = draw(st.lists(st.integers(0, 15), min_size=layers, max_size=layers))
    devices = draw(st.integers(1, layers))
    return compute, transfer, devices


@settings(max_examples=300)
@given(chains())
def test_dp_equals_brute_force(chain):
    compute, transfer, devices = chain
    dp, brute = partition(compute, transfer, devices), brute_force_partition(compute, transfer, devices)
    assert dp is not None and brute is not None
    assert dp.bottleneck == brute.bottleneck
    assert len(dp.bounds) == devices and dp.bounds[0][0] == 0 and dp.bounds[-1][1] == len(compute) - 1
    assert all(a <= b for a, b in dp.bounds)
    assert all(dp.bounds[k][1] + 1 == dp.bounds[k + 1][0] for k in range(devices - 1))
    stages = max(sum(compute[a : b + 1]) for a, b in dp.bounds)
    assert dp.bottleneck == max([stages, *(transfer[b] for _, b in dp.bounds[:-1])])


@settings(max_examples=300)
@given(chains(), st.lists(st.integers(0, 9), min_size=9, max_size=9), st.integers(0, 60))
def test_dp_with_memory_equals_brute_force(chain, sizes, limit):
    compute, transfer, devices = chain

    def memory(first, last, k):  # 1F1B: stage k holds D - k copies of its activations
        return (devices - k) * sum(sizes[first : last + 1])

    dp = partition(compute, transfer, devices, memory=memory, limit=limit)
    brute = brute_force_partition(compute, transfer, devices, memory=memory, limit=limit)
    assert (dp is None) == (brute is None)
    if dp is not None:
        assert dp.bottleneck == brute.bottleneck
        assert all(memory(a, b, k) <= limit for k, (a, b) in enumerate(dp.bounds))


def test_bad_sizes():
    with pytest.raises(ValueError, match="cannot fill"):
        partition([1, 2], [0, 0], 3)
    with pytest.raises(ValueError, match="one entry per layer"):
        partition([1, 2], [0], 1)


def test_a_link_can_be_the_bottleneck():
    # cutting after layer 0 costs a slow link; the DP moves the cut
    found = partition([5, 5, 5, 5], [100, 1, 1, 1], 2)
    assert found is not None and found.bounds == ((0, 1), (2, 3)) and found.bottleneck == 10
