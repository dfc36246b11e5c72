"""The shipped instances against instances/hetero/solved.json (written by ``hpcsched solved hetero``, see docs/hetero.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

import hpcsched
from hpcsched.core.io import instance_sha256, read_instance
from hpcsched.core.result import Status
from hpcsched.core.solved import SOLVED_FILE, read_solved, shipped_instances
from hpcsched.hetero import bounds

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "hetero"
SOLVED = read_solved(FOLDER / SOLVED_FILE)


def test_solved_json_covers_every_shipped_instance():
    shipped = set(shipped_instances(FOLDER))
    assert shipped == set(SOLVED) and len(shipped) >= 10
    assert "spotrf-960-5-m8-k2.json" in shipped
    for name, entry in SOLVED.items():
        assert entry.bound <= entry.objective
        assert (entry.status == "OPTIMAL") == (entry.bound >= entry.objective)
        assert entry.instance_sha256 == instance_sha256(read_instance(FOLDER / name)), name


@pytest.mark.parametrize("name", sorted(SOLVED))
def test_bounds_and_heuristics_agree_with_solved(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    lower = bounds.best(instance)
    assert lower <= entry.objective
    if entry.bound_method == "hlp-rounding":  # its bound is `bounds.best`
        assert lower == entry.bound
    for method in ("heft", "heteroprio", "hlp-rounding"):
        result = hpcsched.solve(instance, method, time_limit=60)
        assert result.status.has_solution and result.objective >= entry.bound, method


@pytest.mark.parametrize(
    "name",
    sorted(n for n, e in SOLVED.items() if e.status == "OPTIMAL" and read_instance(FOLDER / n).n <= 40),
)
def test_cpsat_reproduces_the_small_optima(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    result = hpcsched.solve(instance, "cpsat", time_limit=300, deterministic_time=30.0, workers=1)
    assert result.status is Status.OPTIMAL, result.notes
    assert result.objective == entry.objective


def test_spotrf_960_5_on_8_cpus_and_2_gpus_is_85_40_ms():
    entry = SOLVED["spotrf-960-5-m8-k2.json"]
    assert entry.status == "OPTIMAL" and entry.objective == 85403  # microseconds: the 85.40 ms
