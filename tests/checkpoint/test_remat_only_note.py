"""A remat-only method on a two-level instance below the remat floor points to the offloading methods."""

from __future__ import annotations

from pathlib import Path

import hpcsched
from hpcsched.core.io import read_instance
from hpcsched.core.result import Status

FILE = Path(__file__).parents[2] / "instances" / "checkpoint" / "vgg16-h100-link-b30.json"


def test_dp_below_the_remat_floor_names_the_offloading_methods_and_offload_greedy_fits():
    instance = read_instance(FILE)
    result = hpcsched.solve(instance, "dp", time_limit=60)  # the problem's default method
    assert result.status is Status.NOT_APPLICABLE
    assert "-m offload-greedy" in result.notes[0] and "recomputation alone cannot fit" in result.notes[0]
    assert hpcsched.solve(instance, "offload-greedy", time_limit=60).status in (Status.FEASIBLE, Status.OPTIMAL)
