"""The methods reproduce instances/pipeline/solved.json and real/solved.json (written by ``hpcsched solved pipeline``).

Every entry was made by ``cpsat`` with one worker, a deterministic limit
(``deterministic_time``, and the default ``period_step_deterministic_time`` of
each fixed-period model) and a warm start given far more seconds than its
heuristics need (``warm_start_seconds``; local-search stops at its
``max_iterations``), so its run is stopped by its algorithm or by a
deterministic budget, never by the wall clock: the reproduction runs under
`SAFETY_LIMIT`, a stop for a hung run only, and a loaded machine gets the same
answer as a quiet one. `test_every_entry_is_reproducible` keeps it so. The
Tessel placements in ``tessel/`` are checked against Tessel's published
repetends in test_exact_models.py instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import hpcsched
from hpcsched.core.io import instance_sha256, read_instance
from hpcsched.core.result import Status, gap_of
from hpcsched.core.solved import PROVEN_GAP, SOLVED_FILE, read_solved, shipped_instances
from hpcsched.pipeline import bounds

ROOT = Path(__file__).resolve().parents[2] / "instances" / "pipeline"
#: Folder -> the least number of instances it ships (a lost file must fail the test).
FOLDERS = {ROOT: 13, ROOT / "real": 8}
SOLVED = {folder: read_solved(folder / SOLVED_FILE) for folder in FOLDERS}
ENTRIES = sorted((folder, name) for folder, table in SOLVED.items() for name in table)

#: Wall-clock seconds a reproduction may run: a safety stop, far above what any entry needs.
SAFETY_LIMIT = 3600.0
#: Entries whose recorded run took longer than this many seconds are reproduced by the slow suite only.
SLOW_RUN_S = 5.0
#: Options that make a cpsat run independent of the machine's speed (with ``workers`` 1).
DETERMINISTIC = ("deterministic_time", "warm_start_seconds")
#: Brute force re-proves an entry up to its default size limits (jobs of a makespan, of a period pattern).
BRUTE_FORCE_JOBS = {"makespan": 24, "period": 8}
#: Brute force tries every period from the lower bound up to the optimum, one search each: it re-proves
#: a period entry only when that is a short walk (transformer12-h100-d4-n1-f1.5-period's optimum is
#: 74,275 periods above its bound: an hour of searches on CI).
BRUTE_FORCE_PERIODS = 64


def _label(folder: Path, name: str) -> str:
    return f"{folder.relative_to(ROOT).as_posix()}/{name}".removeprefix("./")


def _jobs(instance) -> int:
    return instance.micro_batches * instance.n_blocks


@pytest.mark.parametrize("folder", sorted(FOLDERS), ids=lambda f: f.name)
def test_solved_json_covers_every_shipped_instance(folder):
    shipped = set(shipped_instances(folder))
    assert shipped == set(SOLVED[folder]) and len(shipped) >= FOLDERS[folder]
    for name, entry in SOLVED[folder].items():
        assert entry.bound <= entry.objective
        # OPTIMAL within the registry's relative gap: cpsat's integer bound may sit 1 below a value of ~10^6
        assert (entry.status == "OPTIMAL") == (gap_of(entry.objective, entry.bound) <= PROVEN_GAP), name
        assert entry.instance_sha256 == instance_sha256(read_instance(folder / name)), name


def test_every_entry_is_reproducible():
    # a value found before a stop is reproducible only when the stop is deterministic
    for folder, name in ENTRIES:
        entry = SOLVED[folder][name]
        for method, options, limit in (
            (entry.method, entry.options, entry.time_limit_s),
            (entry.bound_method, entry.bound_options, entry.bound_time_limit_s),
        ):
            assert method == "cpsat", (name, method)
            assert options.get("workers") == 1 and all(options.get(key) for key in DETERMINISTIC), (name, options)
            assert (limit or 0) >= SAFETY_LIMIT, f"{name}: the wall clock could stop the recorded run"


@pytest.mark.parametrize(
    ("folder", "name"),
    [
        pytest.param(folder, name, marks=[pytest.mark.slow] if SOLVED[folder][name].runtime_s > SLOW_RUN_S else [])
        for folder, name in ENTRIES
    ],
    ids=[_label(folder, name) for folder, name in ENTRIES],
)
def test_method_reproduces_solved(folder, name):
    entry = SOLVED[folder][name]
    instance = read_instance(folder / name)
    result = hpcsched.solve(
        instance, entry.method, problem="pipeline", time_limit=SAFETY_LIMIT, seed=entry.seed, **dict(entry.options)
    )
    assert result.status.value == entry.status, result.notes
    assert result.objective == entry.objective
    assert result.bound == entry.bound
    assert bounds.best(instance) <= entry.objective


def _brute_force_can_prove(folder: Path, name: str) -> bool:
    instance = read_instance(folder / name)
    if _jobs(instance) > BRUTE_FORCE_JOBS[instance.objective]:
        return False
    return (
        instance.objective != "period" or SOLVED[folder][name].objective - bounds.best(instance) <= BRUTE_FORCE_PERIODS
    )


SMALL = [(folder, name) for folder, name in ENTRIES if _brute_force_can_prove(folder, name)]


@pytest.mark.parametrize(("folder", "name"), SMALL, ids=[_label(folder, name) for folder, name in SMALL])
def test_brute_force_proves_the_small_entries(folder, name):
    entry = SOLVED[folder][name]
    result = hpcsched.solve(read_instance(folder / name), "brute-force", time_limit=SAFETY_LIMIT)
    assert result.status is Status.OPTIMAL, result.notes
    assert result.objective == entry.objective and entry.status == "OPTIMAL"
