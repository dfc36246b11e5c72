"""Shared helpers of the offload tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hpcsched.offload import Instance, memory_floors, no_offload_peak

REPO = Path(__file__).resolve().parents[2]
INSTANCES = REPO / "instances" / "offload"


def shared_data() -> Path:
    env = os.environ.get("HPCSCHED_SHARED_DATA")
    return Path(env) if env else REPO / ".." / "shared" / "data"


@pytest.fixture
def pipedream_dir() -> Path:
    folder = shared_data() / "pipedream"
    if not (folder / "vgg16.graph.txt").exists():
        pytest.skip(f"../shared/data not found: {folder}")
    return folder


def small_instance(forward, backward, activation, *, fraction=0.7, bandwidth=1.0, latency=0, duplex="full",
                   workspace_forward=None, workspace_backward=None, offloadable=None) -> Instance:
    """A chain whose budget sits between the largest floor and the no-offload peak."""
    n = len(forward)
    base = Instance(name="small", forward=tuple(forward), backward=tuple(backward), activation=tuple(activation),
                    memory=10**12, bandwidth_out=bandwidth, bandwidth_in=bandwidth, latency=latency, duplex=duplex,
                    workspace_forward=tuple(workspace_forward or (0,) * n),
                    workspace_backward=tuple(workspace_backward or (0,) * n), offloadable=offloadable)
    floor = max(need for _, need in memory_floors(base))
    peak = no_offload_peak(base)
    return base.with_memory(floor + int(fraction * (peak - floor)))
