"""The methods reproduce instances/treemem/solved.json (written by ``hpcsched solved treemem``, see docs/treemem.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

import hpcsched
from hpcsched.core.io import instance_sha256, read_instance
from hpcsched.core.result import Status
from hpcsched.core.solved import SOLVED_FILE, read_solved, shipped_instances

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "treemem"
SOLVED = read_solved(FOLDER / SOLVED_FILE)


def _size(name: str) -> int:
    """Number of nodes of the shipped instance ``name``."""
    return read_instance(FOLDER / name).n


def test_solved_json_covers_every_shipped_instance():
    shipped = set(shipped_instances(FOLDER))
    # the DNN instance is built from ../shared/data; everything else is generated
    assert shipped == set(SOLVED) and len(shipped) >= 23
    for name, entry in SOLVED.items():
        assert entry.bound <= entry.objective
        assert (entry.status == "OPTIMAL") == (entry.bound >= entry.objective)
        assert entry.instance_sha256 == instance_sha256(read_instance(FOLDER / name)), name


@pytest.mark.parametrize("name", sorted(SOLVED))
def test_method_reproduces_solved(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    result = hpcsched.solve(
        instance, entry.method, problem="treemem", time_limit=120, seed=entry.seed, **dict(entry.options)
    )
    assert result.status.value == entry.status, result.notes
    assert result.objective == entry.objective
    assert result.bound == entry.bound


@pytest.mark.parametrize(
    "name",
    [
        n
        for n, e in sorted(SOLVED.items())
        if e.status == "OPTIMAL" and e.method in ("liu-optimal", "dp") and _size(n) <= 12
    ],
)
def test_cpsat_and_milp_agree_on_small_shipped_instances(name):
    instance = read_instance(FOLDER / name)
    for method, options in (("cpsat", {"workers": 1, "deterministic_time": 30.0}), ("milp", {})):
        result = hpcsched.solve(instance, method, problem="treemem", time_limit=120, **options)
        assert result.objective >= SOLVED[name].objective >= result.bound
        if result.status is Status.OPTIMAL:
            assert result.objective == SOLVED[name].objective


def test_out_of_core_entries_need_io_and_match_brute_force_where_tiny():
    out_of_core = {n: e for n, e in SOLVED.items() if "-io-M" in n}
    assert len(out_of_core) >= 5 and all(e.objective > 0 for e in out_of_core.values())
    for name, entry in out_of_core.items():
        if _size(name) <= 8:
            assert entry.method == "brute-force-io"
        instance = read_instance(FOLDER / name)
        assert instance.question == "out-of-core"
