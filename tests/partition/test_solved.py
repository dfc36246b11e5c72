"""The shipped instances: solved.json is consistent with the methods (heuristics never below a recorded bound)."""

from __future__ import annotations

from pathlib import Path

import pytest

import hpcsched
from hpcsched.core.io import instance_sha256, read_instance
from hpcsched.core.result import Status
from hpcsched.core.solved import SOLVED_FILE, read_solved, shipped_instances
from hpcsched.partition import BASELINE_METHODS, bounds

from .partition_strategies import INSTALLED_HEURISTICS

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "partition"
SOLVED = read_solved(FOLDER / SOLVED_FILE)


def test_solved_json_covers_every_shipped_instance_and_matches_its_data():
    assert set(shipped_instances(FOLDER)) == set(SOLVED)
    for name, entry in SOLVED.items():
        assert entry.instance_sha256 == instance_sha256(read_instance(FOLDER / name)), name


@pytest.mark.parametrize("name", sorted(SOLVED))
def test_heuristics_respect_the_recorded_bound(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    assert bounds.best(instance) <= entry.bound <= entry.objective
    for method in INSTALLED_HEURISTICS + BASELINE_METHODS:
        result = hpcsched.solve(instance, method, time_limit=60)
        assert result.status is not Status.ERROR, (method, result.notes)
        if result.objective is not None:
            assert result.objective >= entry.bound, method


@pytest.mark.parametrize("name", [n for n, e in sorted(SOLVED.items()) if e.status == "OPTIMAL" and e.runtime_s < 5])
def test_small_optima_are_reproduced_with_a_deterministic_budget(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    result = hpcsched.solve(instance, "cpsat", time_limit=600, workers=1, deterministic_time=30.0)
    assert result.status is Status.OPTIMAL, result.notes
    assert result.objective == entry.objective
