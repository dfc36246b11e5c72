"""The methods reproduce instances/treemem/solved.json (written by make_solved.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hpcsched.core.io import read_instance
from hpcsched.core.registry import run_method
from hpcsched.core.result import Status

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "treemem"
SOLVED = json.loads((FOLDER / "solved.json").read_text())


def test_solved_json_covers_every_shipped_instance():
    shipped = {p.name for p in FOLDER.glob("*.json") if p.name != "solved.json"}
    # the DNN instance is built from ../shared/data; everything else is generated
    assert shipped == set(SOLVED) and len(shipped) >= 18
    for entry in SOLVED.values():
        assert entry["bound"] <= entry["objective"]
        assert (entry["status"] == "OPTIMAL") == (entry["bound"] >= entry["objective"])


@pytest.mark.parametrize("name", sorted(SOLVED))
def test_method_reproduces_solved(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    options = dict(entry.get("options", {}))
    result = run_method(instance, entry["method"], problem="treemem", time_limit=120, seed=entry["seed"], **options)
    assert result.status.value == entry["status"], result.notes
    assert result.objective == entry["objective"]
    assert result.bound == entry["bound"]


@pytest.mark.parametrize("name", [n for n, e in sorted(SOLVED.items())
                                  if e["n"] <= 12 and e["status"] == "OPTIMAL" and e["method"] != "cpsat-parallel"])
def test_cpsat_and_milp_agree_on_small_shipped_instances(name):
    instance = read_instance(FOLDER / name)
    for method, options in (("cpsat", {"workers": 1, "deterministic_time": 30.0}), ("milp", {})):
        result = run_method(instance, method, problem="treemem", time_limit=120, **options)
        assert result.objective >= SOLVED[name]["objective"] >= result.bound
        if result.status is Status.OPTIMAL:
            assert result.objective == SOLVED[name]["objective"]
