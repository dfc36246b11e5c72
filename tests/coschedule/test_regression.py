"""Shipped instances: readable without ../shared/data, and solved.json reproduced."""

import json
import math
from pathlib import Path

import pytest

from hpcsched.core.io import read_instance
from hpcsched import solve
from hpcsched.core.result import Status

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "coschedule"
SOLVED = json.loads((FOLDER / "solved.json").read_text())


def test_every_shipped_instance_is_listed():
    files = {p.name for p in FOLDER.glob("*.json")} - {"solved.json"}
    assert files == set(SOLVED)
    assert {"orion-n10.json", "orion-n20.json", "orion-n50.json", "orion-n100.json", "orion-n200.json"} <= files


@pytest.mark.parametrize("name", sorted(n for n in SOLVED if not n.startswith("orion-n200")))
def test_lp_reproduces_solved(name):
    instance = read_instance(FOLDER / name)
    assert instance.source["files"] and all(len(f["sha256"]) == 64 for f in instance.source["files"])
    result = solve(instance, "lp-preemptive", time_limit=10)
    if instance.streams:  # Orion mixes: one stream per application; the LP ignores the order
        assert result.status is Status.NOT_APPLICABLE and "stream" in result.notes[0]
        from hpcsched.coschedule import bounds

        assert SOLVED[name]["nonpreemptive"]["objective"] >= bounds.best(instance) * (1 - 1e-9)
        return
    assert result.status is Status.OPTIMAL
    assert math.isclose(result.objective, SOLVED[name]["objective"], rel_tol=1e-7)
    # The non-preemptive best known never beats the preemptive optimum.
    assert SOLVED[name]["nonpreemptive"]["objective"] >= result.objective * (1 - 1e-7)


@pytest.mark.parametrize("name", ["orion-n6.json", "gavel-v100-n6.json"])
def test_milp_reproduces_nonpreemptive_optimum(name):
    entry = SOLVED[name]["nonpreemptive"]
    assert entry["status"] == "OPTIMAL"
    result = solve(read_instance(FOLDER / name), "milp", time_limit=10)
    assert result.status is Status.OPTIMAL
    assert math.isclose(result.objective, entry["objective"], rel_tol=1e-6)
