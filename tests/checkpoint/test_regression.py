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


def test_solved_json_covers_every_shipped_instance():
    shipped = set(shipped_instances(FOLDER))
    assert shipped == set(SOLVED) and len(shipped) >= 10
    for name, entry in SOLVED.items():
        assert entry.bound <= entry.objective
        assert (entry.status == "OPTIMAL") == (entry.bound >= entry.objective)
        assert entry.instance_sha256 == instance_sha256(read_instance(FOLDER / name)), name


@pytest.mark.parametrize("name", sorted(SOLVED), ids=sorted(SOLVED))
def test_recorded_method_reproduces_its_value(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    if instance.length > 60:
        pytest.skip("long chain: run the slow benchmark instead")  # the DP takes seconds at L > 100
    result = hpcsched.solve(instance, entry.method, time_limit=600)
    assert result.status.has_solution
    assert result.objective == entry.objective
    assert bounds.best(instance) <= entry.objective
    if entry.bound_method == "brute-force":
        exact = hpcsched.solve(instance, "brute-force", time_limit=600)
        assert exact.status is Status.OPTIMAL and exact.objective == entry.objective
