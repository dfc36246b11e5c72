"""The small shipped two-level chains: both exact two-level methods prove the same optimum (make_small_offload.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hpcsched
from hpcsched.core.io import read_instance

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "checkpoint"
FILES = ["small3-floor-full.json", "homogeneous4-full.json", "homogeneous4-half-lat1.json"]
SOLVED = json.loads((FOLDER / "solved.json").read_text())


@pytest.mark.parametrize("name", FILES)
def test_cpsat_offload_proves_the_brute_force_optimum(name):
    instance = read_instance(FOLDER / name)
    entry = SOLVED[name]
    assert entry["status"] == "OPTIMAL" and entry["method"] == "brute-force-offload"
    # deterministic limit and one worker: the proof does not depend on the machine's load
    other = hpcsched.solve(instance, "cpsat-offload", time_limit=600, deterministic_time=60.0, workers=1)
    assert other.status is hpcsched.Status.OPTIMAL
    assert other.objective == entry["objective"]
    assert entry["objective"] > instance.compute_time  # the link cannot hide everything: Σfw + Σbw is not met


@pytest.mark.parametrize("name", FILES)
def test_heuristics_stay_above_the_optimum(name):
    instance = read_instance(FOLDER / name)
    optimum = SOLVED[name]["objective"]
    methods = ["offload-greedy"] + (["h-revolve"] if name.startswith("homogeneous") else [])
    for method in methods:
        result = hpcsched.solve(instance, method, time_limit=60)
        assert result.status.has_solution and result.objective >= optimum, method
