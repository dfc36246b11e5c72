"""The methods reproduce instances/checkpoint/solved.json (written by instances/checkpoint/make.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hpcsched
from hpcsched.checkpoint import bounds
from hpcsched.core.io import read_instance
from hpcsched.core.result import Status

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "checkpoint"
SOLVED = json.loads((FOLDER / "solved.json").read_text())


def test_solved_json_covers_every_shipped_instance():
    shipped = {p.name for p in FOLDER.glob("*.json") if p.name != "solved.json"}
    assert shipped == set(SOLVED) and len(shipped) >= 10
    for entry in SOLVED.values():
        assert entry["bound"] <= entry["objective"]
        assert (entry["status"] == "OPTIMAL") == (entry["bound"] >= entry["objective"])


@pytest.mark.parametrize("name", sorted(SOLVED),
                         ids=sorted(SOLVED))
def test_recorded_method_reproduces_its_value(name):
    entry = SOLVED[name]
    if entry["L"] > 60:
        pytest.skip("long chain: run the slow benchmark instead")  # the DP takes seconds at L > 100
    instance = read_instance(FOLDER / name)
    result = hpcsched.solve(instance, entry["method"], time_limit=600)
    assert result.status.has_solution
    assert result.objective == entry["objective"]
    assert bounds.best(instance) <= entry["objective"]
    if entry["bound_method"] == "brute-force":
        exact = hpcsched.solve(instance, "brute-force", time_limit=600)
        assert exact.status is Status.OPTIMAL and exact.objective == entry["objective"]
