"""The methods reproduce instances/treemem/solved.json (written by ``hpcsched solved treemem``, see docs/treemem.md).

Every entry's run is stopped by its algorithm or by a deterministic budget
(CP-SAT's ``deterministic_time`` with one worker, dp's ``max_states``,
local-search's ``max_iterations``), never by the wall clock: the reproduction
runs under `SAFETY_LIMIT`, a stop for a hung run only, so that a loaded machine
gets the same answer as a quiet one. `test_every_feasible_entry_is_reproducible`
keeps it so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import hpcsched
from hpcsched.core.io import instance_sha256, read_instance
from hpcsched.core.result import Status
from hpcsched.core.solved import SOLVED_FILE, read_solved, shipped_instances

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "treemem"
SOLVED = read_solved(FOLDER / SOLVED_FILE)

#: Wall-clock seconds a reproduction may run: a safety stop, far above what any entry needs (the
#: longest, cpsat-parallel at deterministic_time 30, takes ~30 s on a quiet machine, ~200 s at load 10).
SAFETY_LIMIT = 3600.0
#: Entries whose recorded run took longer than this many seconds are reproduced by the slow suite only.
SLOW_RUN_S = 5.0

#: Methods whose answer after a wall-clock stop depends on the machine's speed, and the option that gives
#: them a deterministic budget instead (with ``workers`` 1: one CP-SAT worker is deterministic).
DETERMINISTIC_BUDGET = {"cpsat": "deterministic_time", "cpsat-parallel": "deterministic_time"}


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


def test_every_feasible_entry_is_reproducible():
    # a FEASIBLE value is what a run found before it was stopped: only a deterministic stop reproduces it
    for name, entry in SOLVED.items():
        if entry.status != "FEASIBLE":
            continue
        assert entry.method not in ("milp", "milp-io"), f"{name}: a time-limited MILP incumbent is not reproducible"
        option = DETERMINISTIC_BUDGET.get(entry.method)
        if option is not None:
            assert entry.options.get(option) and entry.options.get("workers") == 1, (name, entry.options)
            assert (entry.time_limit_s or 0) >= SAFETY_LIMIT, f"{name}: the wall clock could stop the recorded run"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.slow] if entry.runtime_s > SLOW_RUN_S else [])
        for name, entry in sorted(SOLVED.items())
    ],
)
def test_method_reproduces_solved(name):
    entry = SOLVED[name]
    instance = read_instance(FOLDER / name)
    result = hpcsched.solve(
        instance, entry.method, problem="treemem", time_limit=SAFETY_LIMIT, seed=entry.seed, **dict(entry.options)
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
