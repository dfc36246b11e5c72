"""Shared helpers of the offload tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import strategies as st
from reference import SAFETY_LIMIT

from hpcsched import Result, solve
from hpcsched.offload import Instance, memory_floors, no_offload_peak

REPO = Path(__file__).resolve().parents[2]
INSTANCES = REPO / "instances" / "offload"

#: CP-SAT deterministic time of each solve of a proof the tests assert (`deterministic_cpsat`). Measured:
#: the full-resolution solve of `cpsat` needs at most 0.001 units on the test strategies' chains (it is
#: limited in deterministic time; the offload-set search is limited per branch by ``branch_node_limit``).
PROOF_DETERMINISTIC_TIME = 20.0


def deterministic_cpsat(instance: Instance, **options) -> Result:
    """``cpsat`` whose proofs do not depend on the machine's load.

    Each CP-SAT solve gets `PROOF_DETERMINISTIC_TIME`; the wall clock is the suite's safety stop
    (`reference.SAFETY_LIMIT`), far above what these proofs take, so a loaded machine cannot turn
    OPTIMAL into FEASIBLE.
    """
    return solve(instance, "cpsat", time_limit=SAFETY_LIMIT, deterministic_time=PROOF_DETERMINISTIC_TIME, **options)


def shared_data() -> Path:
    env = os.environ.get("HPCSCHED_SHARED_DATA")
    return Path(env) if env else REPO / ".." / "shared" / "data"


@pytest.fixture
def pipedream_dir() -> Path:
    folder = shared_data() / "pipedream"
    if not (folder / "vgg16.graph.txt").exists():
        pytest.skip(f"../shared/data not found: {folder}")
    return folder


def small_instance(
    forward,
    backward,
    activation,
    *,
    fraction=0.7,
    bandwidth=1.0,
    latency=0,
    duplex="full",
    workspace_forward=None,
    workspace_backward=None,
    offloadable=None,
) -> Instance:
    """A chain whose budget sits between the largest floor and the no-offload peak."""
    n = len(forward)
    base = Instance(
        name="small",
        forward=tuple(forward),
        backward=tuple(backward),
        activation=tuple(activation),
        memory=10**12,
        bandwidth_out=bandwidth,
        bandwidth_in=bandwidth,
        latency=latency,
        duplex=duplex,
        workspace_forward=tuple(workspace_forward or (0,) * n),
        workspace_backward=tuple(workspace_backward or (0,) * n),
        offloadable=offloadable,
    )
    floor = max(need for _, need in memory_floors(base))
    peak = no_offload_peak(base)
    return base.with_memory(floor + int(fraction * (peak - floor)))


@st.composite
def chains(draw, max_layers=4):
    n = draw(st.integers(1, max_layers))
    forward = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    backward = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    activation = draw(st.lists(st.integers(1, 12), min_size=n + 1, max_size=n + 1))
    fraction = draw(st.sampled_from([0.0, 0.3, 0.7]))
    bandwidth = draw(st.sampled_from([1.0, 2.0, 4.0]))
    latency = draw(st.integers(0, 1))
    duplex = draw(st.sampled_from(["full", "half"]))
    return small_instance(
        forward, backward, activation, fraction=fraction, bandwidth=bandwidth, latency=latency, duplex=duplex
    )


@st.composite
def rough_chains(draw):
    """Chains with zero durations and workspaces too (the edge cases of half-open residency)."""
    n = draw(st.integers(2, 5))
    times = st.lists(st.integers(0, 6), min_size=n, max_size=n)
    spaces = st.lists(st.integers(0, 3), min_size=n, max_size=n)
    return small_instance(
        draw(times),
        draw(times),
        draw(st.lists(st.integers(1, 12), min_size=n + 1, max_size=n + 1)),
        fraction=draw(st.sampled_from([0.0, 0.3, 0.7])),
        bandwidth=draw(st.sampled_from([1.0, 2.0])),
        latency=draw(st.integers(0, 1)),
        duplex=draw(st.sampled_from(["full", "half"])),
        workspace_forward=draw(spaces),
        workspace_backward=draw(spaces),
    )
