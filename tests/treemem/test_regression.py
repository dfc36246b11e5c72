"""The methods reproduce instances/treemem/solved.json (written by make_solved.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hpcsched
from hpcsched.core.io import read_instance
from hpcsched.core.result import Status

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "treemem"
SOLVED = json.loads((FOLDER / "solved.json").read_text())


def test_solved_json_covers_every_shipped_instance():
    shipped = {p.name for p in FOLDER.glob("*.json") if p.name != "solved.json"}
    # the DNN instance is built from ../shared/data; everything else is generated
    assert shipped == set(SOLVED) and len(shipped) >= 23
    for entry in SOLVED.values():
        assert entry["bound"] <= entry["objective"]
        assert (entry["status"] == "OPTIMAL") == (entry["bound"] >= entry["objective"])


@pytest.mark.parametrize("name", sorted(SOLVED))
def test_method_reproduces_solved(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    options = dict(entry.get("options", {}))
    result = hpcsched.solve(instance, entry["method"], problem="treemem", time_limit=120, seed=entry["seed"], **options)
    assert result.status.value == entry["status"], result.notes
    assert result.objective == entry["objective"]
    assert result.bound == entry["bound"]


@pytest.mark.parametrize(
    "name",
    [
        n
        for n, e in sorted(SOLVED.items())
        if e["n"] <= 12 and e["status"] == "OPTIMAL" and e["method"] in ("liu-optimal", "dp")
    ],
)
def test_cpsat_and_milp_agree_on_small_shipped_instances(name):
    instance = read_instance(FOLDER / name)
    for method, options in (("cpsat", {"workers": 1, "deterministic_time": 30.0}), ("milp", {})):
        result = hpcsched.solve(instance, method, problem="treemem", time_limit=120, **options)
        assert result.objective >= SOLVED[name]["objective"] >= result.bound
        if result.status is Status.OPTIMAL:
            assert result.objective == SOLVED[name]["objective"]


def test_out_of_core_entries_need_io_and_match_brute_force_where_tiny():
    out_of_core = {n: e for n, e in SOLVED.items() if "-io-M" in n}
    assert len(out_of_core) >= 5 and all(e["objective"] > 0 for e in out_of_core.values())
    for name, entry in out_of_core.items():
        if entry["n"] <= 8:
            assert entry["method"] == "brute-force-io"
        instance = read_instance(FOLDER / name)
        assert instance.question == "out-of-core"
