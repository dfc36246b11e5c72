"""Shipped instances, the solved.json regression, generators and the CSV importer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hpcsched
from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.core.io import instance_sha256, read_instance
from hpcsched.core.result import Status
from hpcsched.core.solved import check_entry, read_solved, shipped_instances
from hpcsched.locality import PROBLEM, generate_rack_aware, generate_uniform, import_csv

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "instances" / "locality"
SOLVED = read_solved(SHIPPED / "solved.json")
#: Methods whose proofs do not depend on the clock: polynomial flows, enumeration, CP-SAT under a
#: deterministic budget (one worker: the same work on a loaded machine); the time limit is a safety net.
DETERMINISTIC = {
    "semi-matching": {},
    "unit-flow": {},
    "quota-flow": {},
    "brute-force": {},
    "cpsat": {"deterministic_time": 10.0, "workers": 1},
}
#: Methods under a wall-clock limit: they may or may not prove in time, but never contradict an entry.
CLOCKED = ("auto", "milp", "milp-communication")


@pytest.mark.parametrize("file_name", sorted(SOLVED))
def test_solved_json_is_reproduced(file_name):
    instance = read_instance(SHIPPED / file_name)
    entry = SOLVED[file_name]
    assert entry.status == "OPTIMAL" and entry.instance_sha256 == instance_sha256(instance)
    proved = []
    for method, options in DETERMINISTIC.items():
        result = hpcsched.solve(instance, method, time_limit=60, **options)
        assert check_entry(entry, result) == [], (method, result.notes)
        if result.status is Status.OPTIMAL:
            proved.append(method)
    assert proved, "no deterministic method proved the recorded optimum"
    for method in CLOCKED:
        result = hpcsched.solve(instance, method, time_limit=10)
        assert check_entry(entry, result) == [], (method, result.notes)


def test_every_shipped_instance_is_in_solved_json():
    assert set(shipped_instances(SHIPPED)) == set(SOLVED)


def test_uniform_generator_draws_distinct_uniform_replicas():
    instance = generate_uniform(seed=3, n=20_000, m=50, r=3)
    matrix = instance.replica_matrix()
    assert matrix.shape == (20_000, 3)
    assert (np.sort(matrix, axis=1)[:, 1:] != np.sort(matrix, axis=1)[:, :-1]).all()
    counts = np.bincount(matrix.ravel(), minlength=50)
    assert abs(counts.mean() - 1200) < 1e-9 and counts.min() > 1000 and counts.max() < 1400  # 1200 +- 5 sd
    assert generate_uniform(seed=3, n=20_000, m=50, r=3) == instance  # seeded
    assert generate_uniform(seed=4, n=20_000, m=50, r=3) != instance


def test_rack_aware_places_two_replicas_on_one_other_rack():
    instance = generate_rack_aware(seed=1, n=5000, m=40, r=3, rack_size=10)
    rack = instance.replica_matrix() // 10
    assert (rack[:, 1] != rack[:, 0]).all()
    assert (rack[:, 2] == rack[:, 1]).all()
    matrix = instance.replica_matrix()
    assert (matrix[:, 2] != matrix[:, 1]).all()


@pytest.mark.parametrize("model", ["unit", "lognormal", "pareto"])
def test_duration_models_give_positive_integers(model):
    instance = generate_uniform(seed=0, n=3000, m=30, r=2, durations=model)
    assert instance.durations.dtype == np.int64 and instance.durations.min() >= 1
    if model == "unit":
        assert instance.is_unit
    else:
        assert instance.durations.max() > 5


def test_generator_bad_parameters():
    with pytest.raises(InvalidInstanceError, match="r"):
        generate_uniform(seed=0, n=10, m=2, r=3)
    with pytest.raises(InvalidInstanceError, match="durations"):
        generate_uniform(seed=0, n=10, m=5, r=2, durations="weibull")
    with pytest.raises(InvalidInstanceError, match="n"):
        generate_uniform(seed=0, n=0, m=5)
    with pytest.raises(InvalidInstanceError, match="rack_size"):
        generate_rack_aware(seed=0, n=10, m=5, rack_size=10)


def test_csv_importer(tmp_path):
    instance = import_csv(SHIPPED / "example.csv")
    assert instance.num_tasks == 10 and instance.servers == 6
    assert instance.task_name(0) == "map-0" and instance.replicas(0).tolist() == [0, 1, 2]
    assert instance.source["sha256"] and instance.source["importer"] == "locality.csv"
    assert PROBLEM.importers["csv"] is import_csv


@pytest.mark.parametrize(
    "text, error, where",
    [
        ("task,duration,replicas\na,1,0;1\nb,0,1\n", InvalidInstanceError, "line 3.duration"),
        ("task,duration,replicas\na,1,0;1\nb,nan,1\n", InvalidInstanceError, "line 3.duration"),
        ("task,duration,replicas\na,1,0;x\n", InvalidInstanceError, "line 2.replicas"),
        ("task,duration,replicas\na,1\n", InvalidInstanceError, "line 2"),
        ("task,duration,replicas\na,1,0;0\n", InvalidInstanceError, "data.tasks[0].replicas"),
        ("task,duration,replicas\na,1,0\na,2,1\n", InvalidInstanceError, "data.tasks[1].name"),
        ("name,size\na,1\n", FormatError, "header"),
        ("task,duration,replicas\n", InvalidInstanceError, "tasks"),
    ],
)
def test_csv_importer_rejects_bad_rows(tmp_path, text, error, where):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(error) as raised:
        import_csv(path)
    assert where in str(raised.value) and str(path) in str(raised.value)


def test_csv_importer_servers_option_catches_dangling_replicas(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("task,duration,replicas\na,1,0 5\n")
    with pytest.raises(InvalidInstanceError, match=r"data.tasks\[0\].replicas\[1\]"):
        import_csv(path, servers=3)
    with pytest.raises(FormatError):
        import_csv(tmp_path / "missing.csv")


def test_rack_aware_with_more_replicas_stays_distinct():
    instance = generate_rack_aware(seed=3, n=2000, m=30, r=5, rack_size=7)
    rows = np.sort(instance.replica_matrix(), axis=1)
    assert (rows[:, 1:] != rows[:, :-1]).all()


def test_create_rejects_non_integer_replicas():
    from hpcsched.locality import Instance

    with pytest.raises(InvalidInstanceError):
        Instance.create(3, [1, 1], [[0, 1.5], [2]])
    with pytest.raises(InvalidInstanceError, match="at least 1"):
        Instance.create(3, [1, 1], [[0, 1], []])
