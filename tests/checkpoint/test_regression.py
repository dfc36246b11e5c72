"""The methods reproduce instances/checkpoint/solved.json (written by ``hpcsched solved checkpoint``, see docs/checkpoint.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

import hpcsched
from hpcsched.checkpoint import bounds
from hpcsched.core.io import instance_sha256, read_instance
from hpcsched.core.result import Status
from hpcsched.core.solved import SOLVED_FILE, read_solved, shipped_instances

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "checkpoint"
SOLVED = read_solved(FOLDER / SOLVED_FILE)

#: Seconds of CPU the reproduction took, for the entries whose run is longer than 1.2 s: reproduced by the
#: slow suite only. Measured (hpcsched.solve of the recorded method, one core), not the entries' runtime_s,
#: which also counts the runs that proved the bound (resnet18-b30: 2.7 s recorded, its dp run 0.16 s).
SLOW_RUNS = {
    "gnmt-pcie3-b70.json": 2.2,
    "homogeneous4-full.json": 2.7,
    "homogeneous4-half-lat1.json": 3.2,
    "resnet18-pcie3-b50.json": 4.7,
    "resnet18-pcie3-b70.json": 1.6,
    "resnet50-b30.json": 1.4,
    "resnet50-b50.json": 1.4,
    "resnet50-b70.json": 1.4,
    "resnet50_v100_workers0-b30.json": 1.4,
    "resnet50_v100_workers0-b50.json": 1.6,
    "squeezenet1_0-pcie3-b50.json": 2.4,
    "squeezenet1_0-pcie3-b70.json": 2.1,
}


def test_solved_json_covers_every_shipped_instance():
    shipped = set(shipped_instances(FOLDER))
    assert shipped == set(SOLVED) and len(shipped) >= 10
    for name, entry in SOLVED.items():
        assert entry.bound <= entry.objective
        assert (entry.status == "OPTIMAL") == (entry.bound >= entry.objective)
        assert entry.instance_sha256 == instance_sha256(read_instance(FOLDER / name)), name


def test_the_slow_runs_are_entries():
    assert set(SLOW_RUNS) <= set(SOLVED)


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_RUNS else []) for name in sorted(SOLVED)]
)
def test_recorded_method_reproduces_its_value(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    result = hpcsched.solve(instance, entry.method, time_limit=600)
    assert result.status.has_solution
    assert result.objective == entry.objective
    assert bounds.best(instance) <= entry.objective
    if entry.bound_method == "brute-force":
        exact = hpcsched.solve(instance, "brute-force", time_limit=600)
        assert exact.status is Status.OPTIMAL and exact.objective == entry.objective
